"""Properties: every tree renders to text that parses back to the same tree,
and UpdateExpression application agrees with an independent reference model
(plain Python values, actions applied one by one) on top-level and nested
map paths, errors included."""

from __future__ import annotations

import copy
from decimal import Decimal
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tallydb.engine.errors import ValidationException
from tallydb.engine.expressions import (
    Placeholders,
    ast,
    is_reserved,
    parse_condition,
    parse_projection,
    parse_update,
)
from tallydb.engine.expressions.messages import (
    INCORRECT_DATA_TYPE,
    INVALID_UPDATE_PATH,
    MISSING_OPERAND,
)

# -- trees ----------------------------------------------------------------------

KEYWORDS = {"SET", "REMOVE", "ADD", "DELETE", "AND", "OR", "NOT", "BETWEEN", "IN"}
_FIRST = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_REST = _FIRST + "0123456789_"
identifiers = st.builds(lambda a, b: a + b, st.sampled_from(_FIRST),
                        st.text(_REST, max_size=5)).filter(
    lambda s: s.upper() not in KEYWORDS and not is_reserved(s))
name_refs = st.text(_REST, min_size=1, max_size=4).map(lambda s: ast.NameRef("#" + s))
value_refs = st.text(_REST, min_size=1, max_size=4).map(lambda s: ast.ValueRef(":" + s))
heads = st.one_of(identifiers.map(ast.Name), name_refs)
steps = st.one_of(heads, st.integers(0, 50).map(ast.Index))
paths = st.builds(lambda head, rest: ast.Path((head, *rest)), heads,
                  st.lists(steps, max_size=3))


def update_operands() -> st.SearchStrategy[ast.Operand]:
    return st.recursive(
        st.one_of(paths, value_refs),
        lambda inner: st.one_of(
            st.builds(lambda p, d: ast.Call("if_not_exists", (p, d)), paths, inner),
            st.builds(lambda a, b: ast.Call("list_append", (a, b)), inner, inner),
        ),
        max_leaves=4,
    )


set_values = st.one_of(
    update_operands(),
    st.builds(ast.Arithmetic, st.sampled_from(["+", "-"]), update_operands(),
              update_operands()),
)
actions_of: dict[str, st.SearchStrategy[Any]] = {
    "SET": st.builds(ast.SetAction, paths, set_values),
    "REMOVE": st.builds(ast.RemoveAction, paths),
    "ADD": st.builds(ast.AddAction, paths, value_refs),
    "DELETE": st.builds(ast.DeleteAction, paths, value_refs),
}
clauses = st.sampled_from(["SET", "REMOVE", "ADD", "DELETE"]).flatmap(
    lambda kw: st.lists(actions_of[kw], min_size=1, max_size=3).map(
        lambda acts: ast.UpdateClause(kw, tuple(acts))))
updates = st.lists(clauses, min_size=1, max_size=4).map(
    lambda cs: ast.UpdateExpression(tuple(cs)))

condition_operands = st.one_of(paths, value_refs,
                               paths.map(lambda p: ast.Call("size", (p,))))
atomics = st.one_of(
    st.builds(ast.Comparison, st.sampled_from(list(ast.COMPARATORS)), condition_operands,
              condition_operands),
    st.builds(ast.Between, condition_operands, condition_operands, condition_operands),
    st.builds(lambda o, cs: ast.In(o, tuple(cs)), condition_operands,
              st.lists(condition_operands, min_size=1, max_size=3)),
    st.builds(lambda p: ast.Call("attribute_exists", (p,)), paths),
    st.builds(lambda p, v: ast.Call("begins_with", (p, v)), paths, value_refs),
)
conditions = st.recursive(
    atomics,
    lambda inner: st.one_of(st.builds(ast.Not, inner), st.builds(ast.And, inner, inner),
                            st.builds(ast.Or, inner, inner)),
    max_leaves=6,
)


@given(updates)
@settings(max_examples=200)
def test_update_render_parses_back(tree: ast.UpdateExpression) -> None:
    assert parse_update(tree.render()) == tree


@given(conditions)
@settings(max_examples=200)
def test_condition_render_parses_back(tree: ast.Condition) -> None:
    parsed = parse_condition(tree.render())
    assert parsed.tree == tree
    assert not parsed.redundant_parens


@given(st.lists(paths, min_size=1, max_size=4))
def test_projection_render_parses_back(items: list[ast.Path]) -> None:
    tree = ast.Projection(tuple(items))
    assert parse_projection(tree.render()) == tree


# -- update application against a reference model ---------------------------------

NAMES = ["a", "b", "c"]
KEYS = ["x", "y"]


def scalar() -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(
        st.integers(-5, 5).map(lambda n: {"N": str(n)}),
        st.sampled_from(["p", "q"]).map(lambda s: {"S": s}),
        st.sets(st.sampled_from(["1", "2", "3"]), min_size=1).map(lambda s: {"NS": sorted(s)}),
        st.sets(st.sampled_from(["u", "v", "w"]), min_size=1).map(lambda s: {"SS": sorted(s)}),
    )


attribute_values = st.recursive(
    scalar(),
    lambda inner: st.dictionaries(st.sampled_from(KEYS), inner, max_size=2).map(
        lambda m: {"M": m}),
    max_leaves=4,
)
items = st.dictionaries(st.sampled_from(NAMES), attribute_values, max_size=3)
model_paths = st.builds(lambda h, rest: (h, *rest), st.sampled_from(NAMES),
                        st.lists(st.sampled_from(KEYS), max_size=2))


Action = tuple[str, tuple[str, ...], tuple[str, ...]]


@st.composite
def model_updates(draw: st.DrawFn) -> tuple[str, dict[str, Any], list[Action]]:
    """An update over non-overlapping map paths: its text, its values, and its
    actions in the order written as (keyword, target, operands)."""
    chosen: list[tuple[str, ...]] = []
    for candidate in draw(st.lists(model_paths, min_size=1, max_size=4)):
        if all(candidate[:len(p)] != p and p[:len(candidate)] != candidate for p in chosen):
            chosen.append(candidate)
    values: dict[str, Any] = {}
    sections: dict[str, list[tuple[str, Action]]] = {
        "SET": [], "REMOVE": [], "ADD": [], "DELETE": []}
    for i, target in enumerate(chosen):
        text = ".".join(target)
        ref = f":v{i}"
        kind = draw(st.sampled_from(["SET", "SET+", "SETIF", "REMOVE", "ADD", "DELETE"]))
        if kind == "REMOVE":
            sections["REMOVE"].append((text, ("REMOVE", target, ())))
        elif kind == "SET":
            values[ref] = draw(attribute_values)
            sections["SET"].append((f"{text} = {ref}", ("SET", target, (ref,))))
        elif kind == "SET+":
            values[ref] = {"N": str(draw(st.integers(-3, 3)))}
            source = draw(model_paths)
            sections["SET"].append((f"{text} = {'.'.join(source)} + {ref}",
                                    ("SET+", target, (*source, ref))))
        elif kind == "SETIF":
            values[ref] = draw(attribute_values)
            sections["SET"].append((f"{text} = if_not_exists({text}, {ref})",
                                    ("SETIF", target, (ref,))))
        elif kind == "ADD":
            values[ref] = draw(st.one_of(st.integers(-3, 3).map(lambda n: {"N": str(n)}),
                                         scalar().filter(lambda v: "S" not in v)))
            sections["ADD"].append((f"{text} {ref}", ("ADD", target, (ref,))))
        else:
            values[ref] = draw(scalar().filter(lambda v: "NS" in v or "SS" in v))
            sections["DELETE"].append((f"{text} {ref}", ("DELETE", target, (ref,))))
    order = [kw for kw in draw(st.permutations(list(sections))) if sections[kw]]
    text = " ".join(f"{kw} {', '.join(t for t, _ in sections[kw])}" for kw in order)
    actions = [action for kw in order for _, action in sections[kw]]
    return text, values, actions


class ModelError(Exception):
    pass


def native(av: dict[str, Any]) -> Any:
    ((kind, payload),) = av.items()
    if kind == "N":
        return ("N", Decimal(payload))
    if kind == "S":
        return ("S", payload)
    if kind == "NS":
        return ("NS", frozenset(Decimal(x) for x in payload))
    if kind == "SS":
        return ("SS", frozenset(payload))
    return {k: native(v) for k, v in payload.items()}


def model_get(doc: dict[str, Any], path: tuple[str, ...]) -> Any:
    node: Any = doc
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


def model_apply(item: dict[str, Any], values: dict[str, Any], actions: list[Action]
                ) -> dict[str, Any]:
    """Plain-Python reference: SET values first (from the old item), then each
    action's path and types checked, then the actions applied one by one."""
    old = {k: native(v) for k, v in item.items()}
    vals = {k: native(v) for k, v in values.items()}
    computed: dict[int, Any] = {}
    for i, (keyword, target, operands) in enumerate(actions):
        if keyword == "SETIF":
            found = model_get(old, target)
            computed[i] = found if found is not None else vals[operands[0]]
        elif keyword == "SET+":
            found = model_get(old, operands[:-1])
            if found is None:
                raise ModelError(MISSING_OPERAND)
            if not (isinstance(found, tuple) and found[0] == "N"):
                raise ModelError(INCORRECT_DATA_TYPE)
            computed[i] = ("N", found[1] + vals[operands[-1]][1])
        elif keyword == "SET":
            computed[i] = vals[operands[0]]
    for keyword, target, operands in actions:
        parent = model_get(old, target[:-1]) if len(target) > 1 else old
        if not isinstance(parent, dict):
            raise ModelError(INVALID_UPDATE_PATH)
        existing = parent.get(target[-1])
        if keyword in ("ADD", "DELETE") and existing is not None and (
                not isinstance(existing, tuple) or existing[0] != vals[operands[0]][0]):
            raise ModelError(INCORRECT_DATA_TYPE)
    new = copy.deepcopy(old)
    for i, (keyword, target, operands) in enumerate(actions):
        parent = model_get(new, target[:-1]) if len(target) > 1 else new
        key = target[-1]
        existing = parent.get(key)
        if i in computed:
            parent[key] = computed[i]
        elif keyword == "REMOVE":
            parent.pop(key, None)
        elif keyword == "ADD":
            value = vals[operands[0]]
            if existing is None:
                parent[key] = value
            elif value[0] == "N":
                parent[key] = ("N", existing[1] + value[1])
            else:
                parent[key] = (value[0], existing[1] | value[1])
        elif existing is not None:
            value = vals[operands[0]]
            left = existing[1] - value[1]
            if left:
                parent[key] = (value[0], left)
            else:
                del parent[key]
    return new


@given(items, model_updates())
@settings(max_examples=400)
def test_apply_agrees_with_reference_model(
        item: dict[str, Any], update: tuple[str, dict[str, Any], list[Action]]) -> None:
    text, values, actions = update
    try:
        expected: Any = model_apply(item, values, actions)
    except ModelError as problem:
        expected = ModelError(str(problem))
    bound = Placeholders(None, values).update(text)
    try:
        result: Any = {k: native(v) for k, v in bound.apply(item).items()}
    except ValidationException as problem:
        result = ModelError(problem.message)
    if isinstance(expected, ModelError):
        assert isinstance(result, ModelError) and str(result) == str(expected), text
    else:
        assert result == expected, text
