"""Property tests (hypothesis), through boto3 on the server and in-process.

1. Random update expressions (SET with + / - / if_not_exists, ADD, DELETE,
   REMOVE; placeholders or plain names; any clause order and keyword case)
   applied to one item agree with a small reference model written here:
   the stored item, every ReturnValues mode, and the refusal of
   ``SET x = x + :n`` when ``x`` is missing.
2. Random Numbers (up to 38 significant digits, magnitudes 1E-130 to
   9.99...E+125, in any textual form) round-trip exactly through PutItem and
   GetItem, coming back in DynamoDB's canonical form: plain positional
   notation, no exponent, no leading or trailing zeros, "-0" as "0"
   (as recorded in dynalite's test/putItem.js "should put really long numbers").

Example counts are kept small: the suite runs on 2 cores.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from decimal import Decimal, localcontext
from typing import Any

import pytest
from botocore.exceptions import ClientError
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

MISSING_OPERAND = "The provided expression refers to an attribute that does not exist in the item"

PROPERTY_SETTINGS = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def canonical(number: Decimal) -> str:
    """DynamoDB's wire form of a Number."""
    if number == 0:
        return "0"
    with localcontext() as ctx:
        ctx.prec = 80
        return format(number.normalize(), "f")


# -- the reference model --------------------------------------------------------

Value = Decimal | str | frozenset[Decimal] | frozenset[str]
NUMERIC = ("a", "b")
STRING = "s"
SETS = {"ns": "NS", "ss": "SS"}


def to_wire(name: str, value: Value) -> dict[str, Any]:
    if isinstance(value, Decimal):
        return {"N": canonical(value)}
    if isinstance(value, str):
        return {"S": value}
    if SETS[name] == "NS":
        return {"NS": sorted(canonical(v) for v in value)}  # type: ignore[arg-type]
    return {"SS": sorted(value)}  # type: ignore[type-var]


def from_wire(attributes: dict[str, Any]) -> dict[str, Any]:
    """A response's attributes, with sets made order-free for comparison."""
    result: dict[str, Any] = {}
    for name, value in attributes.items():
        ((kind, payload),) = value.items()
        result[name] = (kind, frozenset(payload)) if kind in ("NS", "SS") else (kind, payload)
    return result


@dataclass
class Action:
    """One action on one attribute: its clause, its text, its effect."""

    clause: str  # SET, REMOVE, ADD, DELETE
    attribute: str
    op: str
    operands: tuple[Any, ...] = ()
    placeholder: bool = False

    def render(self, values: dict[str, Any]) -> tuple[str, dict[str, str]]:
        path = f"#{self.attribute}" if self.placeholder else self.attribute
        names = {path: self.attribute} if self.placeholder else {}
        refs = []
        for operand in self.operands:
            ref = f":v{len(values)}"
            values[ref] = operand
            refs.append(ref)
        first = refs[0] if refs else ""
        if self.op == "set":
            text = f"{path} = {first}"
        elif self.op == "plus":
            text = f"{path} = {path} + {first}"
        elif self.op == "minus":
            text = f"{path} = {path} - {first}"
        elif self.op == "ifne_plus":
            text = f"{path} = if_not_exists({path}, {first}) + {refs[-1]}"
        elif self.op in ("add", "delete"):
            text = f"{path} {first}"
        else:
            text = path
        return text, names

    def wire_operands(self) -> list[dict[str, Any]]:
        wired = []
        for operand in self.operands:
            if isinstance(operand, Decimal):
                wired.append({"N": str(operand)})  # as given: "1.50", "-0.0", ...
            elif isinstance(operand, str):
                wired.append({"S": operand})
            elif self.attribute == "ns":
                wired.append({"NS": sorted(canonical(v) for v in operand)})
            else:
                wired.append({"SS": sorted(operand)})
        return wired


class Refused(Exception):
    pass


def apply(item: dict[str, Value] | None, actions: list[Action]) -> dict[str, Value]:
    """The model: the item after ``actions`` (all read the item as it was)."""
    old = dict(item or {})
    new = dict(old)
    for action in actions:
        name, current = action.attribute, old.get(action.attribute)
        if action.op == "set":
            new[name] = action.operands[0]
        elif action.op in ("plus", "minus"):
            if current is None:
                raise Refused(MISSING_OPERAND)
            delta = action.operands[0]
            new[name] = current + delta if action.op == "plus" else current - delta  # type: ignore[operator]
        elif action.op == "ifne_plus":
            start = current if current is not None else action.operands[0]
            new[name] = start + action.operands[1]  # type: ignore[operator]
        elif action.op == "add":
            if name in SETS:
                new[name] = frozenset(current or ()) | action.operands[0]  # type: ignore[operator]
            else:
                new[name] = (current if current is not None else Decimal(0)) + action.operands[0]  # type: ignore[operator]
        elif action.op == "delete":
            if current is not None:
                remaining = current - action.operands[0]  # type: ignore[operator]
                if remaining:
                    new[name] = remaining
                else:
                    del new[name]
        elif action.op == "remove":
            new.pop(name, None)
    return new


def expected_return(mode: str, old: dict[str, Value] | None, new: dict[str, Value],
                    actions: list[Action], key: dict[str, Any]) -> dict[str, Any]:
    touched = {a.attribute for a in actions}
    if mode == "NONE":
        return {}
    if mode == "ALL_OLD":
        return {} if old is None else {**key, **{k: to_wire(k, v) for k, v in old.items()}}
    if mode == "ALL_NEW":
        return {**key, **{k: to_wire(k, v) for k, v in new.items()}}
    source = new if mode == "UPDATED_NEW" else (old or {})
    return {k: to_wire(k, v) for k, v in source.items() if k in touched}


# -- strategies ---------------------------------------------------------------

def _decimal(units: int, places: int, pad: bool) -> Decimal:
    """units x 10^-places, sometimes written with a trailing zero ("1.50", "7.0")."""
    text = f"{Decimal(units).scaleb(-places):f}"
    if pad:
        text += "0" if "." in text else ".0"
    return Decimal(text)


small_decimals = st.builds(_decimal, st.integers(-100_000, 100_000), st.integers(0, 3),
                           st.booleans())
number_sets = st.frozensets(st.integers(-50, 50).map(Decimal), min_size=1, max_size=4)
string_sets = st.frozensets(st.sampled_from("abcdefgh"), min_size=1, max_size=4)


@st.composite
def action_for(draw: st.DrawFn, attribute: str) -> Action:
    placeholder = draw(st.booleans())
    if attribute in NUMERIC:
        op = draw(st.sampled_from(["set", "plus", "minus", "ifne_plus", "add", "remove"]))
        count = {"ifne_plus": 2, "remove": 0}.get(op, 1)
        operands = tuple(draw(small_decimals) for _ in range(count))
    elif attribute == STRING:
        op = draw(st.sampled_from(["set", "remove"]))
        operands = () if op == "remove" else (draw(st.text("xyz", min_size=1, max_size=5)),)
    else:
        op = draw(st.sampled_from(["set", "add", "delete", "remove"]))
        members = number_sets if attribute == "ns" else string_sets
        operands = () if op == "remove" else (draw(members),)
    clause = {"set": "SET", "plus": "SET", "minus": "SET", "ifne_plus": "SET",
              "add": "ADD", "delete": "DELETE", "remove": "REMOVE"}[op]
    return Action(clause, attribute, op, operands, placeholder)


@st.composite
def updates(draw: st.DrawFn) -> tuple[list[Action], list[str], str]:
    attributes = draw(st.lists(st.sampled_from([*NUMERIC, STRING, *SETS]),
                               min_size=1, max_size=5, unique=True))
    actions = [draw(action_for(attribute)) for attribute in attributes]
    clauses = sorted({a.clause for a in actions})
    order = draw(st.permutations(clauses))
    keywords = [draw(st.sampled_from([c, c.lower(), c.capitalize()])) for c in order]
    mode = draw(st.sampled_from(["NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW"]))
    return actions, [f"{k}|{c}" for k, c in zip(keywords, order, strict=True)], mode


def render(actions: list[Action], clause_order: list[str]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    names: dict[str, str] = {}
    wire_values: dict[str, Any] = {}
    parts = []
    for entry in clause_order:
        keyword, clause = entry.split("|")
        texts = []
        for action in (a for a in actions if a.clause == clause):
            start = len(values)
            text, action_names = action.render(values)
            names.update(action_names)
            for i, wired in enumerate(action.wire_operands()):
                wire_values[f":v{start + i}"] = wired
            texts.append(text)
        parts.append(f"{keyword} " + ", ".join(texts))
    request: dict[str, Any] = {"UpdateExpression": " ".join(parts)}
    if names:
        request["ExpressionAttributeNames"] = names
    if wire_values:
        request["ExpressionAttributeValues"] = wire_values
    return request


initial_items = st.one_of(
    st.none(),
    st.fixed_dictionaries({}, optional={
        "a": small_decimals, "b": small_decimals, "s": st.text("xyz", min_size=1, max_size=3),
        "ns": number_sets, "ss": string_sets,
    }),
)


@PROPERTY_SETTINGS
@given(initial=initial_items, steps=st.lists(updates(), min_size=1, max_size=4))
def test_updates_agree_with_the_model(
    ddb: Any, hash_table: str, initial: dict[str, Value] | None,
    steps: list[tuple[list[Action], list[str], str]],
) -> None:
    key = {"id": {"S": uuid.uuid4().hex}}
    model: dict[str, Value] | None = None
    if initial is not None:
        ddb.put_item(TableName=hash_table,
                     Item={**key, **{k: to_wire(k, v) for k, v in initial.items()}})
        model = dict(initial)
    for actions, clause_order, mode in steps:
        request = render(actions, clause_order)
        try:
            new = apply(model, actions)
        except Refused as refusal:
            with pytest.raises(ClientError) as excinfo:
                ddb.update_item(TableName=hash_table, Key=key, ReturnValues=mode, **request)
            error = excinfo.value.response["Error"]
            assert (error["Code"], error["Message"]) == ("ValidationException", str(refusal)), \
                request
        else:
            response = ddb.update_item(TableName=hash_table, Key=key, ReturnValues=mode, **request)
            if model is None and all(a.op == "remove" for a in actions):
                # DynamoDB: an update that only removes creates no item and
                # returns no Attributes (the model stays None: checked below).
                assert "Attributes" not in response, request
            else:
                expected = expected_return(mode, model, new, actions, key)
                assert from_wire(response.get("Attributes", {})) == from_wire(expected), request
                model = new
        stored = ddb.get_item(TableName=hash_table, Key=key, ConsistentRead=True).get("Item")
        if model is None:
            assert stored is None, request
        else:
            wanted = {**key, **{k: to_wire(k, v) for k, v in model.items()}}
            assert from_wire(stored or {}) == from_wire(wanted), request


# -- Numbers round-trip --------------------------------------------------------------


@dataclass
class NumberCase:
    value: Decimal
    texts: list[str] = field(default_factory=list)


@st.composite
def dynamodb_numbers(draw: st.DrawFn) -> NumberCase:
    """A number DynamoDB accepts, and several ways of writing it."""
    if draw(st.integers(0, 20)) == 0:
        return NumberCase(Decimal(0), ["0", "-0", "0.000", "000", "-0.0"])
    digits = str(draw(st.integers(1, 10**38 - 1)))
    adjusted = draw(st.integers(-130, 125))  # exponent of the leading digit
    exponent = adjusted - (len(digits) - 1)
    sign = draw(st.sampled_from(["", "-"]))
    value = Decimal(f"{sign}{digits}E{exponent}")
    positional = format(value, "f")
    padded = positional.replace("-", "")
    padded = ("-" if sign else "") + "00" + padded + ("000" if "." in padded else "")
    texts = [
        f"{sign}{digits}E{exponent}",
        f"{sign}{digits[0]}.{digits[1:] or '0'}e{adjusted:+d}",
        positional,
        padded,
    ]
    return NumberCase(value, texts)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(case=dynamodb_numbers())
@example(case=NumberCase(Decimal("9.9999999999999999999999999999999999999E+125"),
                         ["0009.99999999999999999999999999999999999990000e125"]))
@example(case=NumberCase(Decimal("-9.9999999999999999999999999999999999999E+125"),
                         ["-0009.99999999999999999999999999999999999990000e125"]))
@example(case=NumberCase(Decimal("1E-130"), ["0001.000e-130", "1E-130"]))
@example(case=NumberCase(Decimal("-1E-130"), ["-0001.000e-130"]))
@example(case=NumberCase(Decimal("12345678901234567890123456789012345678"),
                         ["0000012345678901234567890123456789012345678"]))
@example(case=NumberCase(Decimal("-1.2345678901234567890123456789012345678"),
                         ["-00001.23456789012345678901234567890123456780000"]))
@example(case=NumberCase(Decimal("150"), ["1.5E2", "150.00"]))
@example(case=NumberCase(Decimal("42"), ["00042"]))
def test_numbers_round_trip_in_canonical_form(
    ddb: Any, hash_table: str, case: NumberCase
) -> None:
    want = canonical(case.value)
    key = {"id": {"S": uuid.uuid4().hex}}
    item = {**key}
    for i, text in enumerate(case.texts):
        item[f"n{i}"] = {"N": text}
    item["in_list"] = {"L": [{"N": t} for t in case.texts]}
    item["in_map"] = {"M": {"x": {"N": case.texts[0]}}}
    item["in_set"] = {"NS": [case.texts[0]]}
    ddb.put_item(TableName=hash_table, Item=item)
    got = ddb.get_item(TableName=hash_table, Key=key, ConsistentRead=True)["Item"]
    for i in range(len(case.texts)):
        assert got[f"n{i}"] == {"N": want}, case.texts[i]
    assert got["in_list"] == {"L": [{"N": want}] * len(case.texts)}
    assert got["in_map"] == {"M": {"x": {"N": want}}}
    assert got["in_set"] == {"NS": [want]}
    # Adding zero keeps it exactly as it was.
    response = ddb.update_item(
        TableName=hash_table, Key=key, UpdateExpression="ADD n0 :zero",
        ExpressionAttributeValues={":zero": {"N": "0"}}, ReturnValues="UPDATED_NEW",
    )
    assert response["Attributes"] == {"n0": {"N": want}}
