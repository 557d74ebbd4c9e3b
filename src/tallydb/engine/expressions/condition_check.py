"""What can be known about a condition (Condition-, Filter- or
KeyConditionExpression) from its text alone.

DynamoDB reports, in this order: redundant parentheses, an unknown function,
a function used where it cannot be, a reserved word; then it takes the
conditions (comparisons, BETWEEN, IN, function calls) one by one in the order
written, and for the first one with a problem reports an undefined name or
value, else a wrong number of operands, else two operands that are the same
path, else a function or BETWEEN misuse. Within a condition, nested calls are
checked before the call around them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tallydb.engine.expressions import ast
from tallydb.engine.expressions.functions import (
    CONDITION_FUNCTIONS,
    MAX_OPERATORS,
    UPDATE_FUNCTIONS,
)
from tallydb.engine.expressions.messages import (
    ALL_TYPES_SET,
    REDUNDANT_PARENS,
    invalid_function,
    misused_function,
    requires_path,
    reserved_keyword,
    too_many_in_operands,
    too_many_operators,
    wrong_operand_count,
    wrong_operand_type,
)
from tallydb.engine.expressions.parser import ParsedCondition
from tallydb.engine.expressions.reserved import is_reserved

MAX_IN_OPERANDS = 100
VALID_TYPES = frozenset({"S", "N", "B", "NULL", "SS", "BOOL", "L", "BS", "NS", "M"})


@dataclass(frozen=True, slots=True)
class FunctionCheck:
    """One misuse check on a function's operands, run with the request's
    values. ``kind`` says which rule applies:

    - ``static``: ``message`` is the error, whatever the values;
    - ``types``: the operand ``ref`` must not be of a type in ``banned``
      (``allowed`` when non-empty lists the only types it may be);
    - ``type_name``: ``ref`` must be a String naming a DynamoDB type;
    - ``ordered``: ``ref`` is an operand of ``function``, an ordering
      comparison, and must be a String, Number or Binary;
    - ``between``: ``ref`` and ``other`` are BETWEEN's bounds.
    """

    kind: str
    function: str = ""
    message: str | None = None
    ref: str = ""
    other: str = ""
    allowed: frozenset[str] = frozenset()
    banned: frozenset[str] = frozenset()


@dataclass(slots=True)
class AtomicCheck:
    """The per-condition checks of one comparison, BETWEEN, IN or call."""

    refs: list[ast.NameRef | ast.ValueRef] = field(default_factory=list)
    operand_error: str | None = None
    distinct: list[tuple[str, ast.Path, ast.Path]] = field(default_factory=list)
    functions: list[FunctionCheck] = field(default_factory=list)


@dataclass(slots=True)
class ConditionAnalysis:
    static_error: str | None = None
    atomics: list[AtomicCheck] = field(default_factory=list)
    name_refs: list[str] = field(default_factory=list)
    value_refs: list[str] = field(default_factory=list)


def analyze_condition(parsed: ParsedCondition) -> ConditionAnalysis:
    walker = _Walker()
    walker.condition(parsed.tree)
    analysis = walker.analysis
    if parsed.redundant_parens:
        analysis.static_error = REDUNDANT_PARENS
    elif walker.unknown is not None:
        analysis.static_error = invalid_function(walker.unknown)
    elif walker.misused is not None:
        analysis.static_error = misused_function(walker.misused)
    elif walker.reserved is not None:
        analysis.static_error = reserved_keyword(walker.reserved)
    elif walker.operators > MAX_OPERATORS:
        analysis.static_error = too_many_operators(MAX_OPERATORS + 1)
    return analysis


class _Walker:
    def __init__(self) -> None:
        self.analysis = ConditionAnalysis()
        self.unknown: str | None = None
        self.misused: str | None = None
        self.reserved: str | None = None
        self.operators = 0  # comparisons, BETWEEN, IN, AND, OR, NOT, function calls
        self.atomic = AtomicCheck()

    # -- conditions ---------------------------------------------------------

    def condition(self, node: ast.Condition) -> None:
        if not isinstance(node, ast.Call):  # calls count themselves
            self.operators += 1
        if isinstance(node, (ast.And, ast.Or)):
            self.condition(node.left)
            self.condition(node.right)
            return
        if isinstance(node, ast.Not):
            self.condition(node.condition)
            return
        self.atomic = AtomicCheck()
        self.analysis.atomics.append(self.atomic)
        if isinstance(node, ast.Call):
            self.call(node)
            if node.name == "size":
                self.misuse("size")
        elif isinstance(node, ast.Comparison):
            self.operands(node.left, node.right)
            if isinstance(node.left, ast.Path) and isinstance(node.right, ast.Path):
                self.atomic.distinct.append((node.op, node.left, node.right))
            if node.op not in ("=", "<>"):
                self.orderable(node.op, node.left, node.right)
        elif isinstance(node, ast.Between):
            self.operands(node.operand, node.low, node.high)
            self.orderable("BETWEEN", node.operand, node.low, node.high)
            if isinstance(node.low, ast.ValueRef) and isinstance(node.high, ast.ValueRef):
                self.atomic.functions.append(FunctionCheck("between", "BETWEEN",
                                                           ref=node.low.ref,
                                                           other=node.high.ref))
        else:
            self.operands(node.operand, *node.candidates)
            if len(node.candidates) > MAX_IN_OPERANDS and self.atomic.operand_error is None:
                self.atomic.operand_error = too_many_in_operands(len(node.candidates))

    def operands(self, *operands: ast.Operand) -> None:
        for operand in operands:
            self.operand(operand)
        for operand in operands:
            if isinstance(operand, ast.Call) and operand.name != "size":
                self.misuse(operand.name)

    def orderable(self, operator: str, *operands: ast.Operand) -> None:
        """A value an ordering comparison takes must be a String, Number or
        Binary: another type is the request's mistake, not a false condition."""
        for operand in operands:
            if isinstance(operand, ast.ValueRef):
                self.atomic.functions.append(FunctionCheck("ordered", operator, ref=operand.ref))

    def misuse(self, name: str) -> None:
        if self.misused is None:
            self.misused = name

    # -- operands -------------------------------------------------------------

    def operand(self, operand: ast.Operand) -> None:
        if isinstance(operand, ast.ValueRef):
            self.atomic.refs.append(operand)
            self.analysis.value_refs.append(operand.ref)
        elif isinstance(operand, ast.Path):
            for element in operand.elements:
                if isinstance(element, ast.NameRef):
                    self.atomic.refs.append(element)
                    self.analysis.name_refs.append(element.ref)
                elif (isinstance(element, ast.Name) and self.reserved is None
                      and is_reserved(element.name)):
                    self.reserved = element.name
        else:
            self.call(operand)

    def call(self, call: ast.Call) -> None:
        self.operators += 1
        self.operands(*call.args)
        arity = CONDITION_FUNCTIONS.get(call.name)
        if arity is None:
            if call.name in UPDATE_FUNCTIONS:  # a function, but not of conditions
                self.misuse(call.name)
            elif self.unknown is None:
                self.unknown = call.name
            return
        if len(call.args) != arity:
            if self.atomic.operand_error is None:
                self.atomic.operand_error = wrong_operand_count(call.name, len(call.args))
            return
        if arity == 2 and all(isinstance(arg, ast.Path) for arg in call.args):
            first, second = call.args
            assert isinstance(first, ast.Path) and isinstance(second, ast.Path)
            self.atomic.distinct.append((call.name, first, second))
        self.function_checks(call)

    def function_checks(self, call: ast.Call) -> None:
        checks = self.atomic.functions
        name, args = call.name, call.args
        if name in ("attribute_exists", "attribute_not_exists"):
            if not isinstance(args[0], ast.Path):
                checks.append(FunctionCheck("static", name, message=requires_path(name)))
        elif name == "begins_with":
            for arg in args:
                self.type_check(name, arg, allowed=frozenset({"S", "B"}))
        elif name == "size":
            self.type_check(name, args[0], banned=frozenset({"N", "BOOL", "NULL"}))
        elif name == "attribute_type":
            kind = args[1]
            if isinstance(kind, ast.ValueRef):
                checks.append(FunctionCheck("type_name", name, ref=kind.ref))
            else:
                static = _static_type(kind) or ALL_TYPES_SET
                checks.append(FunctionCheck("static", name,
                                            message=wrong_operand_type(name, static)))

    def type_check(self, name: str, arg: ast.Operand, allowed: frozenset[str] = frozenset(),
                   banned: frozenset[str] = frozenset()) -> None:
        checks = self.atomic.functions
        if isinstance(arg, ast.ValueRef):
            checks.append(FunctionCheck("types", name, ref=arg.ref, allowed=allowed,
                                        banned=banned))
            return
        static = _static_type(arg)
        if static is None:
            return
        if (allowed and static not in allowed) or static in banned:
            checks.append(FunctionCheck("static", name, message=wrong_operand_type(name, static)))


def _static_type(operand: ast.Operand) -> str | None:
    """The type a call evaluates to, known without values (size is a Number)."""
    if isinstance(operand, ast.Call):
        return "N" if operand.name == "size" else "BOOL"
    return None
