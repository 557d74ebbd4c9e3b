"""A statement, its parameters and its table's key, as the request of an
existing operation.

Expressions are rendered into DynamoDB's expression language with ``#n``
names and ``:v`` values, so the operation parses them once (cached by text)
and evaluates them exactly as it would the JSON API's:

* ``UPDATE`` with the whole key in WHERE: UpdateItem (SET/REMOVE; ``set_add``
  and ``set_delete`` as ADD and DELETE), conditioned on the item existing and
  on WHERE's other terms. ``SET n = n + 1`` is UpdateItem ``SET #n = #n + :v``.
* ``DELETE`` with the whole key: DeleteItem, with WHERE's other terms.
* ``INSERT``: PutItem conditioned on the key being absent.
* ``EXISTS(SELECT ...)`` with the whole key (transactions only): a
  TransactWriteItems ConditionCheck that the item exists and meets WHERE's
  other terms.
* ``SELECT``: a Query when WHERE holds an equality on the (index's) HASH key,
  with a RANGE key condition when there is one, and its other terms name no
  key attribute (a Query's filter may not); otherwise a Scan.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tallydb.engine.errors import ValidationException
from tallydb.engine.partiql import ast
from tallydb.engine.partiql.messages import EXISTS_OUTSIDE_TRANSACTION, WHOLE_KEY
from tallydb.engine.partiql.parser import StatementError, build_collection

#: (name, type) of the HASH key, then of the RANGE key when there is one.
KeyAttributes = list[tuple[str, str]]
_FUNCTIONS = frozenset({"begins_with", "contains", "attribute_type", "size"})
_RANGE_OPS = frozenset({"=", "<", "<=", ">", ">="})


@dataclass(slots=True)
class Planned:
    """The operation a statement runs as, and its request."""

    operation: str
    request: dict[str, Any]
    key: dict[str, Any] | None = None  # the item's key, for a keyed write or read
    returning: str | None = None
    #: An UpdateItem that applies only to an item that exists, which its
    #: runner checks (``plan``'s ``exists_in_condition``): ConditionalCheck-
    #: FailedException, as a failed condition, for a missing one.
    must_exist: bool = False
    #: A template's (``template``): what builds its request, and its key,
    #: with the parameters in their slots (None: it has no slot).
    fill_request: Filler | None = None
    fill_key: Filler | None = None


#: Builds a copy of a template's part with a request's parameters in its slots.
Filler = Callable[[list[dict[str, Any]]], Any]


class _Slot(dict[str, Any]):
    """Where parameter ``index`` goes in a planned request (a template)."""

    def __init__(self, index: int) -> None:
        super().__init__()
        self.index = index


def template(statement: ast.Statement, count: int, keys: KeyAttributes, *,
             get: bool = False, exists_in_condition: bool = True) -> Planned | None:
    """The plan of ``statement`` (``plan``, ``plan_get`` when ``get``, or
    ``plan_check``) with a slot where each of its ``count`` parameters goes,
    to be ``fill``-ed: made once, it serves every request of the statement.
    None for a statement that cannot be planned without its parameters'
    values (one inside a set literal, or one whose plan fails: it is planned,
    and refused, with its values each time)."""
    slots: list[dict[str, Any]] = [_Slot(i) for i in range(count)]
    try:
        made = plan_with(statement, slots, keys, get=get,
                         exists_in_condition=exists_in_condition)
    except Exception:
        return None
    made.fill_request, made.fill_key = _filler(made.request), _filler(made.key)
    return made


def fill(made: Planned, parameters: list[dict[str, Any]]) -> Planned:
    """A copy of a ``template`` with each slot replaced by its parameter:
    its request and the containers on the way to a slot are new, the rest
    is shared with the template (callers add members to a request, never
    change one in place)."""
    fill_request, fill_key = made.fill_request, made.fill_key
    return Planned(made.operation,
                   dict(made.request) if fill_request is None else fill_request(parameters),
                   made.key if fill_key is None else fill_key(parameters),
                   made.returning, made.must_exist)


def _filler(value: Any) -> Filler | None:
    """What copies ``value`` with its slots filled (None: it has none)."""
    if isinstance(value, _Slot):
        index = value.index
        return lambda parameters: parameters[index]
    if isinstance(value, dict):
        members = [(name, member, _filler(member)) for name, member in value.items()]
        if all(filler is None for _, _, filler in members):
            return None
        return lambda parameters: {
            name: member if filler is None else filler(parameters)
            for name, member, filler in members}
    if isinstance(value, list):
        elements = [(element, _filler(element)) for element in value]
        if all(filler is None for _, filler in elements):
            return None
        return lambda parameters: [
            element if filler is None else filler(parameters) for element, filler in elements]
    return None


def plan_with(statement: ast.Statement, parameters: list[dict[str, Any]],
              keys: KeyAttributes, *, get: bool = False, exists_in_condition: bool = True
              ) -> Planned:
    """The statement's plan, as its kind calls for: ``plan_get`` for a
    SELECT when ``get``, ``plan_check`` for EXISTS, else ``plan``."""
    if get and isinstance(statement, ast.Select):
        return plan_get(statement, parameters, keys)
    if isinstance(statement, ast.Exists):
        return plan_check(statement, parameters, keys)
    return plan(statement, parameters, keys, exists_in_condition=exists_in_condition)


def plan(statement: ast.Statement, parameters: list[dict[str, Any]],
         keys: KeyAttributes, *, exists_in_condition: bool = True) -> Planned:
    """``statement`` as an operation's request. ``keys`` are the table's key
    attributes (or, for a SELECT from ``"table"."index"``, the index's).

    An UPDATE applies only to an item that exists: with
    ``exists_in_condition`` its request says so in its ConditionExpression
    (``attribute_exists`` of the HASH key: what a transaction's Update
    action carries); without, the plan says so (``Planned.must_exist``)
    and its runner checks the item it reads, as UpdateItem's own step, with
    no condition to evaluate; WHERE's other terms are the condition."""
    render = _Render(parameters)
    if isinstance(statement, ast.Update):
        key, rest = _whole_key(statement.where, keys, render)
        request = {"TableName": statement.table, "Key": key,
                   "UpdateExpression": render.update(statement)}
        terms = [f"attribute_exists({render.name(keys[0][0])})"] if exists_in_condition else []
        terms += [render.condition(term) for term in rest]
        if terms:
            request["ConditionExpression"] = " AND ".join(terms)
        if statement.returning is not None:
            request["ReturnValues"] = _RETURN_VALUES[statement.returning]
        return render.finish(Planned("UpdateItem", request, key, statement.returning,
                                     not exists_in_condition))
    if isinstance(statement, ast.Delete):
        key, rest = _whole_key(statement.where, keys, render)
        request = {"TableName": statement.table, "Key": key}
        if rest:
            request["ConditionExpression"] = " AND ".join(render.condition(t) for t in rest)
        if statement.returning is not None:  # ALL_OLD, the parser's only one
            request["ReturnValues"] = "ALL_OLD"
        return render.finish(Planned("DeleteItem", request, key, statement.returning))
    if isinstance(statement, ast.Insert):
        item = render.value(statement.value)
        if "M" not in item:
            raise StatementError("INSERT's VALUE must be a tuple")
        request = {"TableName": statement.table, "Item": item["M"],
                   "ConditionExpression": f"attribute_not_exists({render.name(keys[0][0])})"}
        key = {name: item["M"][name] for name, _ in keys if name in item["M"]}
        return render.finish(Planned("PutItem", request, key))
    if isinstance(statement, ast.Exists):
        raise ValidationException(EXISTS_OUTSIDE_TRANSACTION)
    return _select(statement, keys, render)


def plan_check(statement: ast.Exists, parameters: list[dict[str, Any]],
               keys: KeyAttributes) -> Planned:
    """``EXISTS(SELECT ...)`` as a ConditionCheck: true when the SELECT
    finds its item (which it names by its whole key)."""
    render = _Render(parameters)
    select = statement.select
    if select.index is not None:
        raise ValidationException(WHOLE_KEY)
    key, rest = _whole_key(select.where, keys, render)
    condition = " AND ".join([f"attribute_exists({render.name(keys[0][0])})",
                              *(render.condition(term) for term in rest)])
    request = {"TableName": select.table, "Key": key, "ConditionExpression": condition}
    return render.finish(Planned("ConditionCheck", request, key))


def plan_get(statement: ast.Select, parameters: list[dict[str, Any]],
             keys: KeyAttributes) -> Planned:
    """A SELECT that names a whole key and nothing else, as a GetItem (what
    batches and read transactions run)."""
    render = _Render(parameters)
    key, rest = _whole_key(statement.where, keys, render)
    if rest or statement.index is not None:
        raise ValidationException(WHOLE_KEY)
    request: dict[str, Any] = {"TableName": statement.table, "Key": key}
    if statement.projection is not None:
        request["ProjectionExpression"] = ", ".join(
            render.path(p) for p in statement.projection)
    return render.finish(Planned("GetItem", request, key))


_RETURN_VALUES = {"ALL_OLD": "ALL_OLD", "ALL_NEW": "ALL_NEW",
                  "MODIFIED_OLD": "UPDATED_OLD", "MODIFIED_NEW": "UPDATED_NEW"}


def _conjuncts(where: ast.Expr | None) -> list[ast.Expr]:
    if where is None:
        return []
    if isinstance(where, ast.Logical) and where.op == "AND":
        return _conjuncts(where.left) + _conjuncts(where.right)
    return [where]


def _equality_on(term: ast.Expr, name: str) -> ast.Expr | None:
    """The value ``term`` sets attribute ``name`` equal to, if it does."""
    if not isinstance(term, ast.Compare) or term.op != "=":
        return None
    for path, other in ((term.left, term.right), (term.right, term.left)):
        if isinstance(path, ast.Path) and path.elements == (name,) \
                and isinstance(other, ast.Literal | ast.Param | ast.Collection):
            return other
    return None


def _whole_key(where: ast.Expr | None, keys: KeyAttributes, render: _Render
               ) -> tuple[dict[str, Any], list[ast.Expr]]:
    """The key WHERE names in full, and WHERE's other terms."""
    rest = _conjuncts(where)
    key: dict[str, Any] = {}
    for name, _ in keys:
        for term in rest:
            value = _equality_on(term, name)
            if value is not None:
                key[name] = render.value(value)
                rest.remove(term)
                break
        else:
            raise ValidationException(WHOLE_KEY)
    return key, rest


def _select(statement: ast.Select, keys: KeyAttributes, render: _Render) -> Planned:
    request: dict[str, Any] = {"TableName": statement.table}
    if statement.index is not None:
        request["IndexName"] = statement.index
    if statement.projection is not None:
        request["ProjectionExpression"] = ", ".join(
            render.path(p) for p in statement.projection)
    terms = _conjuncts(statement.where)
    hash_name = keys[0][0]
    hash_term = next((t for t in terms if _equality_on(t, hash_name) is not None), None)
    range_term = None
    if hash_term is not None:
        terms.remove(hash_term)
        if len(keys) > 1:
            range_term = next((t for t in terms if _is_range_condition(t, keys[1][0])), None)
            if range_term is not None:
                terms.remove(range_term)
    key_names = {name for name, _ in keys}
    if hash_term is None or any(_heads(t) & key_names for t in terms):
        # no key condition, or a term on a key attribute a Query's filter
        # may not name (``k IN (...)``, ``k <> v``): a Scan filters on it all
        if statement.where is not None:
            request["FilterExpression"] = render.condition(statement.where)
        return render.finish(Planned("Scan", request))
    key_parts = [render.condition(hash_term)]
    if range_term is not None:
        key_parts.append(render.condition(range_term))
    request["KeyConditionExpression"] = " AND ".join(key_parts)
    if terms:
        request["FilterExpression"] = " AND ".join(render.condition(t) for t in terms)
    if statement.descending:
        request["ScanIndexForward"] = False
    return render.finish(Planned("Query", request))


def _heads(expr: Any) -> set[str]:
    """The attributes a condition's paths start with."""
    if isinstance(expr, ast.Path):
        return {str(expr.elements[0])}
    found: set[str] = set()
    if isinstance(expr, ast.Compare | ast.Logical | ast.Arithmetic):
        found |= _heads(expr.left) | _heads(expr.right)
    elif isinstance(expr, ast.Not):
        found |= _heads(expr.operand)
    elif isinstance(expr, ast.Between):
        found |= _heads(expr.operand) | _heads(expr.low) | _heads(expr.high)
    elif isinstance(expr, ast.In):
        found |= _heads(expr.operand)
        for choice in expr.choices:
            found |= _heads(choice)
    elif isinstance(expr, ast.Is):
        found |= _heads(expr.operand)
    elif isinstance(expr, ast.Call):
        for arg in expr.args:
            found |= _heads(arg)
    return found


def _is_range_condition(term: ast.Expr, name: str) -> bool:
    def on_key(expr: ast.Expr) -> bool:
        return isinstance(expr, ast.Path) and expr.elements == (name,)

    if isinstance(term, ast.Compare):
        return term.op in _RANGE_OPS and on_key(term.left) \
            and not isinstance(term.right, ast.Path | ast.Call)
    if isinstance(term, ast.Between):
        return on_key(term.operand)
    return isinstance(term, ast.Call) and term.name == "begins_with" \
        and len(term.args) == 2 and on_key(term.args[0])


@dataclass
class _Render:
    """Renders expressions with placeholders, allocating each name once."""

    parameters: list[dict[str, Any]]
    names: dict[str, str] = field(default_factory=dict)
    values: dict[str, dict[str, Any]] = field(default_factory=dict)

    def finish(self, planned: Planned) -> Planned:
        if self.names:
            planned.request["ExpressionAttributeNames"] = {
                placeholder: name for name, placeholder in self.names.items()}
        if self.values:
            planned.request["ExpressionAttributeValues"] = self.values
        return planned

    def name(self, name: str) -> str:
        placeholder = self.names.get(name)
        if placeholder is None:
            placeholder = self.names[name] = f"#n{len(self.names)}"
        return placeholder

    def path(self, path: ast.Path) -> str:
        text = ""
        for element in path.elements:
            if isinstance(element, int):
                text += f"[{element}]"
            else:
                text += ("." if text else "") + self.name(element)
        return text

    def value(self, expr: ast.Expr) -> dict[str, Any]:
        if isinstance(expr, ast.Literal):
            return expr.value
        if isinstance(expr, ast.Param):
            return self.parameters[expr.index]
        if isinstance(expr, ast.Collection):
            return build_collection(expr.kind, expr.members, self.value)
        raise StatementError("expected a value")

    def placeholder(self, value: dict[str, Any]) -> str:
        text = f":v{len(self.values)}"
        self.values[text] = value
        return text

    def operand(self, expr: ast.Expr) -> str:
        if isinstance(expr, ast.Path):
            return self.path(expr)
        if isinstance(expr, ast.Call) and expr.name == "size" and len(expr.args) == 1 \
                and isinstance(expr.args[0], ast.Path):
            return f"size({self.path(expr.args[0])})"
        if isinstance(expr, ast.Arithmetic | ast.Call):
            raise StatementError("unsupported operand in a condition")
        return self.placeholder(self.value(expr))

    def condition(self, expr: ast.Expr) -> str:
        if isinstance(expr, ast.Compare):
            return f"{self.operand(expr.left)} {expr.op} {self.operand(expr.right)}"
        if isinstance(expr, ast.Logical):
            return f"({self.condition(expr.left)} {expr.op} {self.condition(expr.right)})"
        if isinstance(expr, ast.Not):
            return f"(NOT {self.condition(expr.operand)})"
        if isinstance(expr, ast.Between):
            return (f"{self.operand(expr.operand)} BETWEEN {self.operand(expr.low)} "
                    f"AND {self.operand(expr.high)}")
        if isinstance(expr, ast.In):
            choices = ", ".join(self.operand(c) for c in expr.choices)
            return f"{self.operand(expr.operand)} IN ({choices})"
        if isinstance(expr, ast.Is):
            path = self.path(expr.operand)
            if expr.what == "MISSING":
                return f"attribute_exists({path})" if expr.negated \
                    else f"attribute_not_exists({path})"
            test = f"attribute_type({path}, {self.placeholder({'S': 'NULL'})})"
            return f"(NOT {test})" if expr.negated else test
        if isinstance(expr, ast.Call) and expr.name in _FUNCTIONS and expr.name != "size":
            args = ", ".join(self.operand(a) for a in expr.args)
            return f"{expr.name}({args})"
        raise StatementError("unsupported condition")

    def update(self, statement: ast.Update) -> str:
        sets: list[str] = []
        adds: list[str] = []
        deletes: list[str] = []
        for path, expr in statement.sets:
            target = self.path(path)
            if isinstance(expr, ast.Call) and expr.name in ("set_add", "set_delete"):
                if len(expr.args) != 2 or expr.args[0] != path:
                    raise StatementError(f"{expr.name} must name the attribute it sets")
                clause = f"{target} {self.operand(expr.args[1])}"
                (adds if expr.name == "set_add" else deletes).append(clause)
            else:
                sets.append(f"{target} = {self.set_value(expr)}")
        parts = []
        if sets:
            parts.append("SET " + ", ".join(sets))
        if statement.removes:
            parts.append("REMOVE " + ", ".join(self.path(p) for p in statement.removes))
        if adds:
            parts.append("ADD " + ", ".join(adds))
        if deletes:
            parts.append("DELETE " + ", ".join(deletes))
        return " ".join(parts)

    def set_value(self, expr: ast.Expr) -> str:
        if isinstance(expr, ast.Arithmetic):
            return f"{self.set_operand(expr.left)} {expr.op} {self.set_operand(expr.right)}"
        return self.set_operand(expr)

    def set_operand(self, expr: ast.Expr) -> str:
        if isinstance(expr, ast.Call) and expr.name in ("list_append", "if_not_exists"):
            args = ", ".join(self.set_operand(a) for a in expr.args)
            return f"{expr.name}({args})"
        if isinstance(expr, ast.Path):
            return self.path(expr)
        if isinstance(expr, ast.Arithmetic | ast.Call):
            raise StatementError("unsupported value in SET")
        return self.placeholder(self.value(expr))
