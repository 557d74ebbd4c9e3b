"""What can be known about an UpdateExpression from its text alone.

DynamoDB reports the first problem of the first kind in this order:
reserved word, unknown function, repeated section, undefined name, undefined
value, overlapping paths, conflicting paths, wrong ADD/DELETE operand type,
function misuse (operand count, document path, operand types). The kinds that
need no placeholders are settled here once per expression text; the rest are
recorded as checks that binding runs against a request's placeholders.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tallydb.engine.expressions import ast
from tallydb.engine.expressions.functions import MAX_OPERATORS, UPDATE_FUNCTIONS
from tallydb.engine.expressions.messages import (
    invalid_function,
    misused_function,
    requires_path,
    reserved_keyword,
    section_twice,
    too_many_operators,
    wrong_operand_count,
)
from tallydb.engine.expressions.reserved import is_reserved


@dataclass(frozen=True, slots=True)
class TypeCheck:
    """The ``:value`` operands of ``function`` must be of ``allowed`` types;
    a static ``message`` instead when the misuse needs no values."""

    function: str
    refs: tuple[str, ...] = ()
    allowed: frozenset[str] = frozenset()
    message: str | None = None


@dataclass(slots=True)
class UpdateAnalysis:
    static_error: str | None = None  # reserved word, unknown function or repeated section
    name_refs: list[str] = field(default_factory=list)  # in the order written
    value_refs: list[str] = field(default_factory=list)
    action_operands: list[tuple[str, str]] = field(default_factory=list)  # (ADD|DELETE, :ref)
    function_checks: list[TypeCheck] = field(default_factory=list)  # innermost first


def analyze_update(tree: ast.UpdateExpression) -> UpdateAnalysis:
    analysis = UpdateAnalysis()
    reserved: str | None = None
    unknown: list[str] = []
    repeated: str | None = None
    seen: set[str] = set()
    walker = _Walker(analysis, unknown)
    for clause in tree.clauses:
        for action in clause.actions:
            found = walker.path(action.path)
            if isinstance(action, ast.SetAction):
                in_value = walker.set_value(action.value)
                found = found or in_value
            elif isinstance(action, (ast.AddAction, ast.DeleteAction)):
                walker.value(action.value.ref)
                analysis.action_operands.append((clause.keyword, action.value.ref))
            reserved = reserved or found
        if clause.keyword in seen and repeated is None:
            repeated = section_twice(clause.keyword)
        seen.add(clause.keyword)
    if reserved is not None:
        analysis.static_error = reserved_keyword(reserved)
    elif unknown:
        analysis.static_error = invalid_function(unknown[0])
    elif repeated is not None:
        analysis.static_error = repeated
    elif walker.operators > MAX_OPERATORS:
        analysis.static_error = too_many_operators(MAX_OPERATORS + 1)
    return analysis


class _Walker:
    """Collects placeholders in the order written and function checks
    innermost first; returns the first reserved word it meets."""

    def __init__(self, analysis: UpdateAnalysis, unknown: list[str]) -> None:
        self.analysis = analysis
        self.unknown = unknown
        self.operators = 0  # + - and function calls

    def value(self, ref: str) -> None:
        self.analysis.value_refs.append(ref)

    def path(self, path: ast.Path) -> str | None:
        first: str | None = None
        for element in path.elements:
            if isinstance(element, ast.NameRef):
                self.analysis.name_refs.append(element.ref)
            elif isinstance(element, ast.Name) and first is None and is_reserved(element.name):
                first = element.name
        return first

    def set_value(self, value: ast.SetValue) -> str | None:
        if isinstance(value, ast.Arithmetic):
            self.operators += 1
            first = self.operand(value.left)
            second = self.operand(value.right)
            self.analysis.function_checks.append(
                TypeCheck(value.op, _refs(value.left, value.right), frozenset({"N"})))
            return first or second
        return self.operand(value)

    def operand(self, operand: ast.Operand) -> str | None:
        if isinstance(operand, ast.ValueRef):
            self.value(operand.ref)
            return None
        if isinstance(operand, ast.Path):
            return self.path(operand)
        first: str | None = None
        for arg in operand.args:
            found = self.operand(arg)
            first = first or found
        self.call(operand)
        return first

    def call(self, call: ast.Call) -> None:
        self.operators += 1
        arity = UPDATE_FUNCTIONS.get(call.name)
        if arity is None:
            self.unknown.append(call.name)
            return
        checks = self.analysis.function_checks
        if len(call.args) != arity:
            checks.append(TypeCheck(call.name, message=wrong_operand_count(call.name,
                                                                           len(call.args))))
        elif call.name == "if_not_exists":
            if not isinstance(call.args[0], ast.Path):
                checks.append(TypeCheck(call.name, message=requires_path(call.name)))
        elif any(isinstance(arg, ast.Call) and arg.name == call.name for arg in call.args):
            # list_append does not take its own result (DynamoDB: "functions
            # do not nest" this way; if_not_exists inside it is fine).
            checks.append(TypeCheck(call.name, message=misused_function(call.name)))
        else:
            checks.append(TypeCheck(call.name, _refs(*call.args), frozenset({"L"})))


def _refs(*operands: ast.Operand) -> tuple[str, ...]:
    return tuple(op.ref for op in operands if isinstance(op, ast.ValueRef))
