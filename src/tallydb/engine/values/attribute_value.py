"""Validating the AttributeValues and keys clients send.

Every function returns the value in canonical form: Numbers as DynamoDB
writes them back, and set members in the order GetItem returns them
(string and binary sets bytewise, number sets by value; captured against
DynamoDB). A value that is already canonical comes back as the same object,
so the common case allocates nothing.

Errors are DynamoDB's: SerializationException for JSON of the wrong shape
(what DynamoDB's JSON layer answers), ValidationException for the rest, with
the bare message (see ``tallydb.engine.values.messages`` for which operations wrap it).
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any, Final

from tallydb.engine.errors import SerializationException, ValidationException
from tallydb.engine.values import messages
from tallydb.engine.values.number import is_canonical, normalize_number
from tallydb.engine.values.types import AttributeValue, Item, Wording

#: Deepest level a value may sit at, the attribute itself being level 1 (captured).
MAX_NESTING_LEVEL: Final = 32
MAX_HASH_KEY_BYTES: Final = 2048
MAX_RANGE_KEY_BYTES: Final = 1024

# The order DynamoDB checks a value's members in (its AttributeValue structure's
# member order, as dynalite reproduces it): the first failing member decides.
_TYPE_ORDER: Final = ("S", "B", "N", "BOOL", "NULL", "BS", "NS", "SS", "L", "M")
_TYPES: Final = frozenset(_TYPE_ORDER)

_BASE64_BAD: Final = re.compile(r"[^A-Za-z0-9+/=]|=[^=]")
_TRUE_STRINGS: Final = frozenset({"TRUE", "1", "YES"})
_FALSE_STRINGS: Final = frozenset({"FALSE", "0", "NO"})


# --- serialization-layer checks ------------------------------------------------


def _java_class(value: Any) -> str:
    return messages.JAVA_BOOLEAN if isinstance(value, bool) else messages.JAVA_NUMBER


def _wrong_json(value: Any, scalar_message: str) -> SerializationException:
    """The JSON layer's refusal of ``value`` where something else belonged."""
    if isinstance(value, dict):
        return SerializationException(messages.UNEXPECTED_MAP)
    if isinstance(value, list):
        return SerializationException(messages.UNEXPECTED_LIST)
    return SerializationException(scalar_message)


def _string(value: Any) -> str:
    if type(value) is str:
        return value
    java_class = _java_class(value)
    raise _wrong_json(value, messages.NOT_A_STRING.format(java_class=java_class))


def _boolean(value: Any) -> bool:
    """DynamoDB's JSON layer takes true/false, and also the strings
    TRUE/1/YES and FALSE/0/NO in any case (dynalite)."""
    if value is True or value is False:
        return value
    if type(value) is str:
        upper = value.upper()
        if upper in _TRUE_STRINGS:
            return True
        if upper in _FALSE_STRINGS:
            return False
        raise SerializationException(messages.BAD_BOOLEAN_STRING.format(value=upper))
    raise _wrong_json(value, messages.NOT_A_BOOLEAN.format(java_class=_java_class(value)))


def base64_length(text: Any) -> int:
    """Check a Blob's base64 text as DynamoDB's JSON layer does and return the
    decoded length, without decoding the whole of it."""
    if type(text) is not str:
        raise _wrong_json(text, messages.NOT_A_BLOB.format(java_class=_java_class(text)))
    n = len(text)
    if n % 4:
        raise SerializationException(messages.BLOB_BAD_LENGTH.format(value=text, length=n))
    if n == 0:
        return 0
    bad = _BASE64_BAD.search(text)
    if bad is not None:
        raise SerializationException(
            messages.BLOB_BAD_CHARACTER.format(value=text, char=bad.group()[0])
        )
    tail = text[-4:]
    try:
        decoded_tail = binascii.a2b_base64(tail, strict_mode=True)
    except binascii.Error:
        decoded_tail = b""
    if binascii.b2a_base64(decoded_tail, newline=False).decode("ascii") != tail:
        raise SerializationException(messages.BLOB_BAD_LAST_CHARACTER.format(value=text))
    return n // 4 * 3 - (tail[3] == "=") - (tail[2] == "=")


def _base64_bytes(text: str) -> bytes:
    return binascii.a2b_base64(text)


# --- sets ----------------------------------------------------------------------


def _render_duplicates(
    members: list[str], key: Callable[[str], Any], separator: str, wording: Wording
) -> str:
    """The members as DynamoDB prints them in a duplicates message.

    Current layer: quoted, in byte order up to the first repeat, then the
    repeat, then the rest as sent (captured). Older layer: as sent (captured).
    """
    if wording == "older":
        return "[" + ", ".join(members) + "]"
    seen: set[Any] = set()
    index = 0
    for index, member in enumerate(members):  # noqa: B007
        k = key(member)
        if k in seen:
            break
        seen.add(k)
    ordered = [*sorted(members[:index], key=key), *members[index:]]
    return "[" + separator.join(f'"{m}"' for m in ordered) + "]"


def _string_set(members: list[Any], wording: Wording) -> list[str]:
    for m in members:
        if m is None:
            raise ValidationException(messages.NULL_IN_STRING_SET)
        _string(m)
    if len(set(members)) != len(members):
        rendered = _render_duplicates(members, _utf8_key, ", ", wording)
        raise ValidationException(messages.DUPLICATE_STRINGS.format(members=rendered))
    return sorted(members)  # code point order is UTF-8 byte order


def _utf8_key(text: str) -> str:
    return text  # str order is UTF-8 byte order for valid text


def _binary_set(members: list[Any], wording: Wording) -> list[str]:
    for m in members:
        if m is None:
            raise ValidationException(messages.NULL_IN_BINARY_SET)
        base64_length(m)
    # Canonical base64 (checked above) maps one-to-one to bytes.
    if len(set(members)) != len(members):
        separator = "," if wording == "current" else ", "
        rendered = _render_duplicates(members, _base64_bytes, separator, wording)
        raise ValidationException(messages.DUPLICATE_BINARIES.format(members=rendered))
    return sorted(members, key=_base64_bytes)


def _number_set(members: list[Any], wording: Wording) -> list[str]:
    normalized = []
    for m in members:
        if m is None:
            raise ValidationException(messages.NOT_A_NUMBER)
        normalized.append(normalize_number(_string(m), wording=wording))
    if len(set(normalized)) != len(normalized):
        if wording == "older":
            raise ValidationException(messages.DUPLICATE_NUMBERS_OLDER)
        raise ValidationException(messages.DUPLICATE_NUMBERS)
    return sorted(normalized, key=Decimal)


#: The order a set's members are stored in, by its type: Strings and
#: Binaries by their bytes, Numbers by value (what PutItem and SET store).
_SET_ORDER: Final[dict[str, Callable[[str], Any] | None]] = {
    "SS": None, "BS": _base64_bytes, "NS": Decimal}


def set_in_order(kind: str, members: list[str]) -> list[str]:
    """Canonical members of a set of type ``kind`` in the stored order."""
    return sorted(members, key=_SET_ORDER[kind])


def _list_of(value: Any) -> list[Any]:
    if type(value) is list:
        return value
    raise _wrong_json(value, messages.EXPECTED_LIST)


# --- values --------------------------------------------------------------------


def _member(kind: str, payload: Any, wording: Wording, level: int, depth: bool) -> Any:
    """Check one datatype member of an AttributeValue; return it canonical."""
    if kind == "S":
        return _string(payload)
    if kind == "N":
        return normalize_number(_string(payload), wording=wording)
    if kind == "B":
        base64_length(payload)
        return payload
    if kind == "BOOL":
        return _boolean(payload)
    if kind == "NULL":
        if not _boolean(payload):
            raise ValidationException(messages.NULL_NOT_TRUE)
        return True
    if kind == "M":
        if type(payload) is not dict:
            raise _wrong_json(payload, messages.EXPECTED_MAP)
        return _map(payload, wording, level + 1, depth)
    if kind == "L":
        items = _list_of(payload)
        out = [_value(v, wording, level + 1, depth) for v in items]
        return items if all(a is b for a, b in zip(out, items, strict=True)) else out
    members = _list_of(payload)
    if not members:
        if kind == "SS":
            raise ValidationException(messages.EMPTY_STRING_SET)
        if kind == "NS":
            raise ValidationException(messages.EMPTY_NUMBER_SET)
        raise ValidationException(messages.EMPTY_BINARY_SET)
    if kind == "SS":
        return _string_set(members, wording)
    if kind == "NS":
        return _number_set(members, wording)
    return _binary_set(members, wording)


def _map(payload: dict[str, Any], wording: Wording, level: int, depth: bool) -> dict[str, Any]:
    """The map's values checked in order: the map itself when every value
    is canonical as it was sent (nothing copied), else a copy holding the
    canonical values (made by checking them all again from the first: the
    ones before the first that changed come back as they are)."""
    quick = level <= MAX_NESTING_LEVEL or not depth  # (the only check skipped below)
    for v in payload.values():
        # the commonest values inline: a String, a canonical Number
        if quick and type(v) is dict and len(v) == 1:
            text = v.get("S")
            if type(text) is str:
                continue
            text = v.get("N")
            if type(text) is str and text and is_canonical(text):
                continue
        if _value(v, wording, level, depth) is not v:
            return {name: _value(v, wording, level, depth) for name, v in payload.items()}
    return payload


def _value(av: Any, wording: Wording, level: int, depth: bool) -> AttributeValue:
    if level > MAX_NESTING_LEVEL and depth:
        raise ValidationException(messages.NESTING_TOO_DEEP)
    # Fast paths for the everyday scalars, already in canonical form.
    if type(av) is dict and len(av) == 1:
        (kind,) = av
        payload = av[kind]
        if kind == "S":
            if type(payload) is str:
                return av
        elif kind == "N":
            if type(payload) is str:
                text = normalize_number(payload, wording=wording)
                return av if text is payload else {"N": text}
        elif kind == "BOOL" and (payload is True or payload is False):
            return av
        elif kind == "SS" and type(payload) is list and payload and all(
                type(m) is str for m in payload) and len(set(payload)) == len(payload):
            ordered = sorted(payload)  # code point order is UTF-8 byte order
            return av if ordered == payload else {"SS": ordered}
    return _value_slow(av, wording, level, depth)


def _value_slow(av: Any, wording: Wording, level: int, depth: bool) -> AttributeValue:
    if type(av) is not dict:
        if av is None:
            raise ValidationException(messages.EMPTY_ATTRIBUTE_VALUE)
        raise _wrong_json(av, messages.EXPECTED_STRUCTURE)
    if len(av) == 1:
        (kind,) = av
        payload = av[kind]
        if kind not in _TYPES or payload is None:
            raise ValidationException(messages.EMPTY_ATTRIBUTE_VALUE)
        checked = _member(kind, payload, wording, level, depth)
        return av if checked is payload else {kind: checked}
    # JSON nulls and names that are not datatypes are dropped, as DynamoDB's
    # JSON layer drops them; then each member is checked in DynamoDB's order
    # and only then is "more than one" refused (dynalite).
    present = [k for k in _TYPE_ORDER if av.get(k) is not None]
    if not present:
        raise ValidationException(messages.EMPTY_ATTRIBUTE_VALUE)
    checked_members = {k: _member(k, av[k], wording, level, depth) for k in present}
    if len(present) > 1:
        raise ValidationException(messages.MULTIPLE_DATATYPES)
    return checked_members


def validate_value(
    av: Any, *, wording: Wording = "current", check_depth: bool = True
) -> AttributeValue:
    """Check one AttributeValue as a client sent it; return it canonical.

    ``check_depth=False`` skips the 32-level nesting limit, which
    TransactWriteItems does not apply to ExpressionAttributeValues (captured).
    """
    return _value(av, wording, 1, check_depth)


def validate_item(item: Any, *, wording: Wording = "current", check_depth: bool = True) -> Item:
    """Check every AttributeValue of an item; return the item canonical."""
    if type(item) is not dict:
        raise _wrong_json(item, messages.EXPECTED_MAP)
    if "" in item:
        raise ValidationException(messages.EMPTY_ATTRIBUTE_NAME)
    return _map(item, wording, 1, check_depth)


# --- keys ----------------------------------------------------------------------


def key_bytes(value: AttributeValue) -> int:
    """How many bytes a key value counts against the key size limits: a
    String's UTF-8, a Binary's decoded bytes; a Number never comes near."""
    payload = value.get("S")
    if type(payload) is str:
        return len(payload) if payload.isascii() else len(payload.encode("utf-8"))
    payload = value.get("B")
    if type(payload) is str:
        return base64_length(payload)
    return 0


def _check_key_value(name: str, kind: str, payload: str, is_hash: bool) -> None:
    if kind == "S":
        if not payload:
            raise ValidationException(messages.EMPTY_STRING_KEY.format(name))
        size = len(payload) if payload.isascii() else len(payload.encode("utf-8"))
    elif kind == "B":
        size = base64_length(payload)
        if size == 0:
            raise ValidationException(messages.EMPTY_BINARY_KEY.format(name))
    else:
        return  # numbers are never too long for a key
    if is_hash:
        if size > MAX_HASH_KEY_BYTES:
            raise ValidationException(messages.HASH_KEY_TOO_LONG)
    elif size > MAX_RANGE_KEY_BYTES:
        raise ValidationException(messages.RANGE_KEY_TOO_LONG)


def validate_key(
    key: Any, schema: Sequence[tuple[str, str]], *, wording: Wording = "current"
) -> Item:
    """Check a ``Key`` parameter against the table's key schema, given as
    ``[(name, "S"|"N"|"B"), ...]`` in HASH, RANGE order; return it canonical.

    A missing, extra or mistyped attribute is "The provided key element does
    not match the schema"; an empty string or binary names the attribute.
    """
    if plain_key(key, schema):
        return key  # type: ignore[no-any-return]  # as the checks below would
    return check_key_schema(validate_item(key, wording=wording), schema)


def validate_key_values(key: Any, *, wording: Wording = "current") -> Item:
    """A ``Key`` parameter's AttributeValues checked, canonical: what
    DynamoDB checks of a key before it knows the table's schema (then
    :func:`check_key_schema`). An everyday key (each value a non-empty S or
    a canonical N) is returned as it is."""
    if type(key) is dict and "" not in key:
        for av in key.values():
            if type(av) is not dict or len(av) != 1:
                break
            payload = av.get("S")
            if type(payload) is str:
                if not payload:
                    break
                continue
            payload = av.get("N")
            if type(payload) is not str or not is_canonical(payload):
                break
        else:
            return key
    return validate_item(key, wording=wording)


def check_key_schema(checked: Item, schema: Sequence[tuple[str, str]]) -> Item:
    """A key whose values passed :func:`validate_key_values`, checked
    against the table's key schema (the rest of :func:`validate_key`)."""
    if plain_key(checked, schema):
        return checked
    if len(checked) != len(schema):
        raise ValidationException(messages.KEY_SCHEMA_MISMATCH)
    for index, (name, kind) in enumerate(schema):
        av = checked.get(name)
        if av is None or kind not in av:
            raise ValidationException(messages.KEY_SCHEMA_MISMATCH)
        _check_key_value(name, kind, av[kind], index == 0)
    return checked


def plain_key(key: Any, schema: Sequence[tuple[str, str]]) -> bool:
    """True when ``key`` is exactly the schema's attributes, each a canonical
    S or N of its declared type, non-empty and short enough for any key
    (S: at most 256 code points, 1,024 UTF-8 bytes): the everyday key, which
    every check of :func:`validate_key` accepts as it is."""
    if type(key) is not dict or len(key) != len(schema):
        return False
    for name, kind in schema:
        av = key.get(name)
        if type(av) is not dict or len(av) != 1:
            return False
        payload = av.get(kind)
        if type(payload) is not str:
            return False
        if kind == "S":
            if not payload or len(payload) > 256:
                return False
        elif kind != "N" or not is_canonical(payload):
            return False
    return True


def validate_item_key(item: Item, schema: Sequence[tuple[str, str]]) -> None:
    """Check that an already validated item (PutItem's ``Item``) carries the
    table's key: "Missing the key a in the item", "Type mismatch for key a
    expected: S actual: N", an empty or over-long key value."""
    for index, (name, kind) in enumerate(schema):
        av = item.get(name)
        if av is None:
            raise ValidationException(messages.MISSING_KEY_IN_ITEM.format(name))
        if kind not in av:
            actual = next(iter(av))
            raise ValidationException(messages.KEY_TYPE_MISMATCH.format(name, kind, actual))
        _check_key_value(name, kind, av[kind], index == 0)
