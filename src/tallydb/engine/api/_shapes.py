"""DynamoDB's generic request checks, compiled from botocore's service model.

Every request passes two layers before its operation sees it, in DynamoDB's
order:

1. JSON types (SerializationException). A member whose JSON type cannot be
   read as the model's type stops the request at once, with the message
   DynamoDB's JSON layer gives. Unknown members are ignored, as DynamoDB
   ignores them, and a JSON ``null`` member counts as absent (a null in a
   list or as a map's value is a violation below).
2. Constraints (ValidationException). Every violated ``required``, ``enum``,
   ``min``/``max`` and ``pattern`` of the model is collected and answered as
   ONE message, "N validation error(s) detected: Value ... at 'path' failed to
   satisfy constraint: ...; ...", at most ten of them, with lowerCamelCase
   paths (``keySchema.1.member.attributeName``).

The shapes come from botocore's model (``botocore`` ships with boto3, is
kept current by AWS, and is what every Python client validates against), so
no table of members is written here. What the model does not carry is kept
in the few overrides below, each with its source:

* DynamoDB prints enum value sets in its own order, not botocore's;
* DynamoDB lists some top-level violations in an order of its own;
* ``TableName`` accepts an ARN in botocore's model (1-1024 characters, no
  pattern), while DynamoDB still checks a plain name as 3-255 characters of
  ``[a-zA-Z0-9_.-]+``;
* CreateTable's model no longer marks AttributeDefinitions and KeySchema as
  required, while DynamoDB still answers "Member must not be null" for them;
* the table operations answer a missing TableName with their own sentence;
* TagResource refuses an empty Tags list, which the model leaves unbounded;
* CreateTable and UpdateTable read TableClass themselves, in words of their
  own (``_table_class``), not as the model's enum.

Sources for the texts: architect/dynalite's ``test/helpers.js`` (assertType,
recorded against DynamoDB) for the JSON layer; dynalite's tests and the
nubo-db/dynamodb-conformance captures of 2026 (ap-southeast-2, us-east-1
wording) for the constraint layer.

Each operation's input shape is compiled once, on first use, into a tree of
small checker objects whose common path is a type test and a set lookup;
AttributeValue maps are checked only for being maps of JSON objects
(``tallydb.engine.values`` checks their contents, Blobs included: no Blob member
of DynamoDB's requests lies outside an AttributeValue).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from typing import Any, Final

from botocore.loaders import Loader
from botocore.model import OperationNotFoundError, ServiceModel

from tallydb.engine.errors import SerializationException, ValidationException

__all__ = [
    "MAX_REPORTED",
    "check_request",
    "constraint_error",
    "model_members",
    "model_operations",
    "modelled",
    "operations_without_output",
    "render_value",
    "violation",
]

#: DynamoDB reports at most this many violations in one message (dynalite).
MAX_REPORTED: Final = 10

# --- overrides the model does not carry ----------------------------------------

#: Enum value sets in the order DynamoDB prints them, by botocore shape name
#: (dynalite validations/*.js; ReturnValue also captured 2026). Shapes not
#: listed print in the model's order.
ENUM_ORDER: Final[dict[str, tuple[str, ...]]] = {
    "ReturnValue": ("ALL_NEW", "UPDATED_OLD", "ALL_OLD", "NONE", "UPDATED_NEW"),
    "ScalarAttributeType": ("B", "N", "S"),
    "ProjectionType": ("ALL", "INCLUDE", "KEYS_ONLY"),
    "ConditionalOperator": ("OR", "AND"),
    "ComparisonOperator": (
        "IN", "NULL", "BETWEEN", "LT", "NOT_CONTAINS", "EQ", "GT",
        "NOT_NULL", "NE", "LE", "BEGINS_WITH", "GE", "CONTAINS",
    ),
    "Select": ("SPECIFIC_ATTRIBUTES", "COUNT", "ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES"),
}

#: Top-level members DynamoDB reports before the others, in this order
#: (captured 2026: PutItem lists returnValues before tableName, UpdateItem
#: returnConsumedCapacity before returnValues). Everything else follows in
#: the model's member order.
MEMBER_ORDER: Final[dict[str, tuple[str, ...]]] = {
    "PutItem": ("ReturnValues", "ReturnConsumedCapacity", "ReturnItemCollectionMetrics"),
    "UpdateItem": ("ReturnConsumedCapacity",),
}

#: Nested members reported in an order other than the model's (dynalite: the
#: write capacity is always reported before the read capacity).
NESTED_ORDER: Final[dict[str, tuple[str, ...]]] = {
    "ProvisionedThroughput": ("WriteCapacityUnits", "ReadCapacityUnits"),
}

#: Members DynamoDB requires that botocore's model leaves optional (dynalite).
EXTRA_REQUIRED: Final[dict[str, tuple[str, ...]]] = {
    "CreateTable": ("AttributeDefinitions", "KeySchema"),
}

#: Minimum lengths DynamoDB enforces on top-level members that botocore's
#: model leaves unbounded, by operation (ScyllaDB's Alternator tests, run
#: against DynamoDB: test_tag.py refuses ``Tags=[]``). Per operation, not per
#: shape: CreateTable's Tags share the shape and are not on record.
EXTRA_MIN: Final[dict[str, dict[str, int]]] = {
    "TagResource": {"Tags": 1},
}

#: Enum members DynamoDB leaves to the operation, by operation: their value is
#: checked there, with the operation's own words (``_table_class``).
OPERATION_ENUMS: Final[dict[str, tuple[str, ...]]] = {
    "CreateTable": ("TableClass",),
    "UpdateTable": ("TableClass",),
}

#: Operations that answer a missing TableName with a sentence of their own
#: instead of a constraint violation (dynalite, recorded against DynamoDB).
TABLE_OPERATIONS: Final = frozenset({"CreateTable", "DescribeTable", "DeleteTable", "UpdateTable"})
TABLE_NAME_REQUIRED: Final = (
    "The parameter 'TableName' is required but was not present in the request"
)
#: The same for the tag operations' ResourceArn (dynalite, recorded).
TAG_OPERATIONS: Final = frozenset({"TagResource", "UntagResource"})
TABLE_ARN_REQUIRED: Final = "Invalid TableArn"

TABLE_NAME_PATTERN: Final = "[a-zA-Z0-9_.-]+"
_TABLE_NAME_RE: Final = re.compile(TABLE_NAME_PATTERN)

# --- the JSON layer's messages (dynalite test/helpers.js assertType) -------------

_STRUCTURE_FOUND: Final = "Start of structure or map found where not expected"
_UNEXPECTED_FIELD: Final = "Unexpected field type"
_UNEXPECTED_VALUE: Final = "Unexpected value type in payload"
_NOT_A_TOKEN: Final = "Unexpected token received from parser"
#: A list or map where a collection type's element was expected (Java's own words).
_CAST: Final = (
    "class sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl cannot be cast to "
    "class java.lang.Class (sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl "
    "and java.lang.Class are in module java.base of loader 'bootstrap')"
)
_JAVA_PACKAGE: Final = "com.amazonaws.dynamodb.v20120810."

#: A null in a list or as a map's value: Jackson keeps it (only a structure's
#: member reads as absent), and the model's members never allow one. The
#: closest documented wording, DynamoDB's for a missing required member.
NOT_NULL: Final = "Member must not be null"

Violation = tuple[tuple[int, ...], str, str, str]
"""(sort key, path relative to the checked value, rendered value, constraint)."""


def _token(value: Any) -> str:
    """Jackson's name for the JSON token ``value`` was read from."""
    if value is True:
        return "TRUE_VALUE"
    if value is False:
        return "FALSE_VALUE"
    if type(value) is int:
        return "NUMBER_VALUE"
    if type(value) is float:
        return "DECIMAL_VALUE"
    return "STRING_VALUE"


def _lower_first(name: str) -> str:
    return name[:1].lower() + name[1:]


def _java_length(text: str) -> int:
    """A string's length as Java counts it (UTF-16 code units)."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def violation(path: str, rendered: str, constraint: str) -> str:
    """One violation as DynamoDB words it; ``rendered`` is ``render_value``'s output."""
    value = "null" if rendered == "null" else f"'{rendered}'"
    return f"Value {value} at '{path}' failed to satisfy constraint: {constraint}"


def constraint_error(violations: list[str]) -> ValidationException:
    """The one ValidationException DynamoDB answers for constraint violations."""
    shown = violations[:MAX_REPORTED]
    count = len(shown)
    plural = "s" if count > 1 else ""
    return ValidationException(
        f"{count} validation error{plural} detected: " + "; ".join(shown)
    )


# --- checkers ---------------------------------------------------------------------


class _Node:
    """Checks one value of one shape; ``check`` returns violations or None.

    ``in_value`` says whether the value sits in a list or a map (Coral's
    "value" position) rather than in a structure's member ("field"
    position): the JSON layer words its refusals differently there.
    """

    __slots__ = ("in_value", "java", "kind", "trivial")

    #: The Python type a valid value has (the JSON layer's fast test).
    kind: type

    def __init__(self, java: str, in_value: bool) -> None:
        self.java = java
        self.in_value = in_value
        self.kind = {"java.lang.String": str, "java.lang.Boolean": bool}.get(java, dict)
        #: True when a value of type ``kind`` needs no further look.
        self.trivial = java == "java.lang.Boolean"

    def check(self, value: Any) -> list[Violation] | None:
        raise NotImplementedError

    def render(self, value: Any) -> str:
        return _render_plain(value)

    def limits(self) -> list[str]:
        """Texts of this shape's own constraints, for "Map value must satisfy"."""
        return []

    def modelled(self, value: Any) -> Any:
        """``value`` (already checked) without the members no structure in
        it has in the model."""
        return value


#: How much of a list or map a violation echoes before it stops with "...".
#: DynamoDB echoes the whole value; a request of 150,000 entries would then
#: get an error body of tens of MB, built on the event loop. tallydb's bound.
MAX_RENDERED: Final = 2048


def _joined(parts: Iterator[str], opening: str, closing: str) -> str:
    """``opening + ", ".join(parts) + closing``, cut after ``MAX_RENDERED``."""
    shown: list[str] = []
    size = 0
    for part in parts:
        if size > MAX_RENDERED:
            shown.append("...")
            break
        shown.append(part)
        size += len(part) + 2
    return opening + ", ".join(shown) + closing


def _render_plain(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, list):
        return _joined((_render_plain(v) for v in value), "[", "]")
    if isinstance(value, dict):
        return _joined((f"{k}={_render_plain(v)}" for k, v in value.items()), "{", "}")
    return str(value)


def _length_texts(low: int | None, high: int | None) -> list[str]:
    texts = []
    if high is not None:
        texts.append(f"Member must have length less than or equal to {high}")
    if low is not None:
        texts.append(f"Member must have length greater than or equal to {low}")
    return texts


class _Any(_Node):
    """Members not checked here: blobs, all of them inside AttributeValues
    (which ``tallydb.engine.values`` checks)."""

    __slots__ = ()

    def check(self, value: Any) -> list[Violation] | None:
        return None


class _Timestamp(_Node):
    """A timestamp: epoch seconds, a JSON number (botocore's form for
    DynamoDB). DynamoDB's words for another JSON type are not on record;
    these are its JSON layer's for the other scalar types."""

    __slots__ = ()

    def check(self, value: Any) -> list[Violation] | None:
        kind = type(value)
        if kind is int or kind is float:
            return None
        if isinstance(value, dict):
            raise SerializationException(_STRUCTURE_FOUND)
        if isinstance(value, list):
            raise SerializationException(f"Unrecognized collection type class {self.java}")
        raise SerializationException(f"{_token(value)} cannot be converted to Date")


class _String(_Node):
    __slots__ = ("enum", "enum_text", "high", "low", "pattern", "pattern_text", "plain")

    def __init__(self, shape: Any, in_value: bool) -> None:
        super().__init__("java.lang.String", in_value)
        meta = shape.metadata
        enum = getattr(shape, "enum", None) or []
        self.enum = frozenset(enum)
        order = ENUM_ORDER.get(shape.name, tuple(enum))
        self.enum_text = "Member must satisfy enum value set: [" + ", ".join(order) + "]"
        self.low: int | None = meta.get("min")
        self.high: int | None = meta.get("max")
        self.pattern_text = meta.get("pattern")
        self.pattern: re.Pattern[str] | None = None
        if self.pattern_text is not None:
            try:
                self.pattern = re.compile(self.pattern_text)
            except re.error:  # Java-only syntax (\p{Print}): not checked here
                self.pattern = None
        self.plain = not enum and self.low is None and self.high is None and self.pattern is None
        self.trivial = self.plain

    def type_error(self, value: Any) -> SerializationException:
        if isinstance(value, dict):
            return SerializationException(_STRUCTURE_FOUND)
        if isinstance(value, list):
            return SerializationException("Unrecognized collection type class java.lang.String")
        return SerializationException(f"{_token(value)} cannot be converted to String")

    def check(self, value: Any) -> list[Violation] | None:
        if type(value) is not str:
            raise self.type_error(value)
        if self.plain:
            return None
        if self.enum:
            if value in self.enum:
                return None
            return [((0,), "", value, self.enum_text)]
        if self.pattern is None:
            # Fast path: a string of n code points has n to 2n UTF-16 units.
            n = len(value)
            if (self.low is None or n >= self.low) and (self.high is None or 2 * n <= self.high):
                return None
        found: list[Violation] = []
        if self.pattern is not None and self.pattern.fullmatch(value) is None:
            found.append(((0,), "", value,
                          f"Member must satisfy regular expression pattern: {self.pattern_text}"))
        length = _java_length(value)
        if self.low is not None and length < self.low:
            found.append(((1,), "", value,
                          f"Member must have length greater than or equal to {self.low}"))
        if self.high is not None and length > self.high:
            found.append(((2,), "", value,
                          f"Member must have length less than or equal to {self.high}"))
        return found or None

    def limits(self) -> list[str]:
        texts = _length_texts(self.low, self.high)
        if self.pattern_text is not None:
            texts.append(f"Member must satisfy regular expression pattern: {self.pattern_text}")
        return texts


class _TableName(_String):
    """A TableName that may be a table's ARN (botocore shape ``TableArn``).

    DynamoDB (captured 2026): "" violates only the ARN form's minimum of 1;
    an ARN is held to its 1024 characters; a plain name must be 3-255
    characters of ``[a-zA-Z0-9_.-]+``. Names seen valid are remembered, so
    the hot path is one set lookup.
    """

    __slots__ = ("seen",)

    def __init__(self, shape: Any, in_value: bool) -> None:
        super().__init__(shape, in_value)
        self.seen: set[str] = set()

    def check(self, value: Any) -> list[Violation] | None:
        if type(value) is not str:
            raise self.type_error(value)
        if value in self.seen:
            return None
        found: list[Violation] = []
        if value == "":
            found.append(((1,), "", value, "Member must have length greater than or equal to 1"))
        elif value.startswith("arn:"):
            if _java_length(value) > 1024:
                found.append(((2,), "", value,
                              "Member must have length less than or equal to 1024"))
        else:
            if _TABLE_NAME_RE.fullmatch(value) is None:
                found.append(((0,), "", value,
                              f"Member must satisfy regular expression pattern: "
                              f"{TABLE_NAME_PATTERN}"))
            length = _java_length(value)
            if length < 3:
                found.append(((1,), "", value,
                              "Member must have length greater than or equal to 3"))
            elif length > 255:
                found.append(((2,), "", value,
                              "Member must have length less than or equal to 255"))
        if found:
            return found
        if len(self.seen) >= 4096:
            self.seen.clear()
        self.seen.add(value)
        return None


class _Boolean(_Node):
    __slots__ = ()

    def check(self, value: Any) -> list[Violation] | None:
        if value is True or value is False:
            return None
        if isinstance(value, dict):
            raise SerializationException(_STRUCTURE_FOUND)
        if isinstance(value, list):
            raise SerializationException("Unrecognized collection type class java.lang.Boolean")
        if type(value) is str:
            raise SerializationException(_NOT_A_TOKEN)
        raise SerializationException(f"{_token(value)} cannot be converted to Boolean")


_LONG_MIN: Final = -(2**63)
_LONG_MAX: Final = 2**63 - 1


class _Number(_Node):
    """integer, long and double members. A JSON decimal where an integer
    belongs is truncated, as DynamoDB's JSON layer truncates it (the
    structure holding it writes the truncated value back)."""

    __slots__ = ("high", "integral", "label", "long", "low")

    def __init__(self, shape: Any, in_value: bool) -> None:
        self.label = {"integer": "Integer", "long": "Long"}.get(shape.type_name, "Double")
        super().__init__(f"java.lang.{self.label}", in_value)
        self.integral = shape.type_name != "double"
        self.long = shape.type_name == "long"
        self.low: int | None = shape.metadata.get("min")
        self.high: int | None = shape.metadata.get("max")

    def check(self, value: Any) -> list[Violation] | None:
        kind = type(value)
        if kind is not int and kind is not float:
            if isinstance(value, dict):
                raise SerializationException(_STRUCTURE_FOUND)
            if isinstance(value, list):
                raise SerializationException(f"Unrecognized collection type class {self.java}")
            raise SerializationException(f"{_token(value)} cannot be converted to {self.label}")
        if self.long and not _LONG_MIN <= value <= _LONG_MAX:
            # A long member holds 64 bits. DynamoDB's text for a value past
            # them is not on record: this is the one of Jackson, the JSON
            # library of its Java front end.
            raise SerializationException(
                f"Numeric value ({int(value)}) out of range of long ({_LONG_MIN} - {_LONG_MAX})")
        if self.low is None and self.high is None:
            return None
        found: list[Violation] = []
        if self.low is not None and value < self.low:
            found.append(((0,), "", str(value),
                          f"Member must have value greater than or equal to {self.low}"))
        if self.high is not None and value > self.high:
            found.append(((1,), "", str(value),
                          f"Member must have value less than or equal to {self.high}"))
        return found or None


class _List(_Node):
    __slots__ = ("high", "low", "member")

    def __init__(self, shape: Any, in_value: bool, member: _Node) -> None:
        super().__init__(f"java.util.List<{member.java}>", in_value)
        self.member = member
        self.low: int | None = shape.metadata.get("min")
        self.high: int | None = shape.metadata.get("max")

    def check(self, value: Any) -> list[Violation] | None:
        if type(value) is not list:
            if isinstance(value, dict):
                raise SerializationException(_STRUCTURE_FOUND)
            raise SerializationException(_CAST if self.in_value else _UNEXPECTED_FIELD)
        n = len(value)
        if self.high is not None and n > self.high:
            # DynamoDB checks a list's length before it looks inside: a
            # request of 150,000 entries is refused without walking them.
            return [((0, 1), "", self.render(value),
                     f"Member must have length less than or equal to {self.high}")]
        found: list[Violation] | None = None
        member = self.member
        for i, item in enumerate(value):
            if item is None:  # a null element is kept, so it must be refused
                if found is None:
                    found = []
                found.append(((1, i), f"{i + 1}.member", "null", NOT_NULL))
                continue
            errs = member.check(item)
            if errs:
                if found is None:
                    found = []
                prefix = f"{i + 1}.member"
                for key, path, shown, text in errs:
                    found.append(((1, i, *key), f"{prefix}.{path}" if path else prefix,
                                  shown, text))
        if self.low is not None and n < self.low:
            if found is None:
                found = []
            found.append(((0, 0), "", self.render(value),
                          f"Member must have length greater than or equal to {self.low}"))
        return found

    def render(self, value: Any) -> str:
        if type(value) is not list:
            return _render_plain(value)
        return _joined((self.member.render(v) for v in value), "[", "]")

    def limits(self) -> list[str]:
        return _length_texts(self.low, self.high)

    def modelled(self, value: Any) -> Any:
        member = self.member
        return [member.modelled(item) for item in value] if type(value) is list else value


class _Map(_Node):
    __slots__ = ("high", "key", "low", "short_key", "simple", "value")

    def __init__(self, shape: Any, in_value: bool, key: _Node, value: _Node) -> None:
        super().__init__(f"java.util.Map<java.lang.String, {value.java}>", in_value)
        self.key = key
        self.value = value
        self.low: int | None = shape.metadata.get("min")
        self.high: int | None = shape.metadata.get("max")
        #: Keys need no check when they may be as long as any attribute name
        #: (65535) or are unconstrained; values when they are AttributeValues
        #: or unconstrained strings, which only need the right JSON type.
        simple_key = isinstance(key, _String) and key.low in (None, 0, 1) and (
            key.high is None or key.high >= 65535) and key.pattern is None and not key.enum
        #: Keys this short (in code points) are within the keys' maximum
        #: (in UTF-16 units) whatever they hold.
        self.short_key = (key.high // 2) if isinstance(key, _String) and key.high else None
        self.simple = simple_key and (
            type(value) is _AttributeValue or (type(value) is _String and value.plain)
        )

    def check(self, value: Any) -> list[Violation] | None:
        if type(value) is not dict:
            if isinstance(value, list):
                raise SerializationException(f"Unrecognized collection type {self.java}")
            raise SerializationException(_CAST if self.in_value else _UNEXPECTED_FIELD)
        if self.high is not None and len(value) > self.high:  # before the entries, as lists
            return [((0, 1), "", self.render(value),
                     f"Member must have length less than or equal to {self.high}")]
        key_node, value_node = self.key, self.value
        if self.simple:
            # Maps of AttributeValues (Key, Item, ExpressionAttributeValues...)
            # or of plain strings, within their limits: nothing to report but
            # a JSON type.
            kind = value_node.kind
            for item in value.values():
                if type(item) is not kind:
                    if item is None:
                        break  # refused below
                    value_node.check(item)  # raises the JSON layer's message
            else:
                short = self.short_key
                if (self.low is None or len(value) >= self.low) and (
                        short is None or all(type(k) is str and len(k) <= short for k in value)):
                    return None
        found: list[Violation] | None = None
        bad_key = bad_value = null_value = False
        for i, (k, item) in enumerate(value.items()):
            if key_node.check(k):
                bad_key = True
            if item is None:  # a null value is kept, so it must be refused
                null_value = True
                continue
            errs = value_node.check(item)
            if errs:
                for key, path, shown, text in errs:
                    if not path:  # the value's own limits: reported for the whole map
                        bad_value = True
                        continue
                    if found is None:
                        found = []
                    found.append(((2, i, *key), f"{k}.member.{path}", shown, text))
        too_few = self.low is not None and len(value) < self.low
        if bad_key or bad_value or null_value or too_few:
            if found is None:
                found = []
            shown = self.render(value)
            if too_few:
                found.append(((0, 0), "", shown,
                              f"Member must have length greater than or equal to {self.low}"))
            if bad_key:
                found.append(((1, 0), "", shown, "Map keys must satisfy constraint: ["
                              + ", ".join(key_node.limits()) + "]"))
            if bad_value or null_value:
                limits = [NOT_NULL] * null_value + value_node.limits() * bad_value
                found.append(((1, 1), "", shown, "Map value must satisfy constraint: ["
                              + ", ".join(limits) + "]"))
        return found

    def render(self, value: Any) -> str:
        if type(value) is not dict:
            return _render_plain(value)
        return _joined((f"{k}={self.value.render(v)}" for k, v in value.items()), "{", "}")

    def limits(self) -> list[str]:
        return _length_texts(self.low, self.high)

    def modelled(self, value: Any) -> Any:
        inner = self.value
        if type(value) is not dict:
            return value
        return {key: inner.modelled(item) for key, item in value.items()}


class _Structure(_Node):
    __slots__ = ("members", "name", "order", "required")

    def __init__(self, name: str, in_value: bool) -> None:
        super().__init__(_JAVA_PACKAGE + name, in_value)
        self.name = name
        #: wire name -> (report position, lowerCamel name, checker)
        self.members: dict[str, tuple[int, str, _Node]] = {}
        self.required: tuple[str, ...] = ()
        self.order: tuple[str, ...] = ()

    def type_error(self, value: Any) -> SerializationException:
        if isinstance(value, list):
            return SerializationException(f"Unrecognized collection type class {self.java}")
        return SerializationException(_UNEXPECTED_VALUE if self.in_value else _UNEXPECTED_FIELD)

    def check(self, value: Any) -> list[Violation] | None:
        if type(value) is not dict:
            raise self.type_error(value)
        found: list[Violation] | None = None
        members = self.members
        for name, item in value.items():
            spec = members.get(name)
            if spec is None or item is None:
                continue
            node = spec[2]
            if node.trivial and type(item) is node.kind:
                continue
            if type(item) is float and type(node) is _Number and node.integral:
                value[name] = item = int(item)
            errs = node.check(item)
            if errs:
                if found is None:
                    found = []
                position, camel = spec[0], spec[1]
                for key, path, shown, text in errs:
                    found.append(((position, *key), f"{camel}.{path}" if path else camel,
                                  shown, text))
        for name in self.required:
            if value.get(name) is None:
                if found is None:
                    found = []
                position, camel = members[name][0], members[name][1]
                found.append(((position, -1), camel, "null", NOT_NULL))
        return found

    def render(self, value: Any) -> str:
        if not isinstance(value, dict):
            return _render_plain(value)
        fields = ", ".join(
            f"{camel}={'null' if value.get(name) is None else node.render(value[name])}"
            for name, (_, camel, node) in self.members.items()
        )
        return f"{self.name}({fields})"

    def modelled(self, value: Any) -> Any:
        members = self.members
        if type(value) is not dict:
            return value
        return {name: members[name][2].modelled(item) for name, item in value.items()
                if name in members}


class _AttributeValue(_Structure):
    """An AttributeValue: only its being a JSON object is checked here;
    ``tallydb.engine.values`` checks what is inside."""

    __slots__ = ()

    def check(self, value: Any) -> list[Violation] | None:
        if type(value) is not dict:
            raise self.type_error(value)
        return None

    def modelled(self, value: Any) -> Any:
        return value


# --- compiling the model ----------------------------------------------------------


class _Compiler:
    def __init__(self, model: Any) -> None:
        self.model = model
        self.memo: dict[tuple[str, bool], _Node] = {}

    def node(self, shape: Any, in_value: bool, member_name: str = "") -> _Node:
        if shape.name in ("TableArn", "TableName") and member_name == "TableName":
            return _TableName(shape, in_value)
        memo_key = (shape.name, in_value)
        cached = self.memo.get(memo_key)
        if cached is not None:
            return cached
        kind = shape.type_name
        node: _Node
        if kind == "structure":
            struct = (_AttributeValue if shape.name == "AttributeValue" else _Structure)(
                shape.name, in_value
            )
            self.memo[memo_key] = struct  # before the members: shapes may recurse
            self.fill(struct, shape)
            return struct
        if kind == "string":
            node = _String(shape, in_value)
        elif kind == "boolean":
            node = _Boolean("java.lang.Boolean", in_value)
        elif kind in ("integer", "long", "double", "float"):
            node = _Number(shape, in_value)
        elif kind == "list":
            node = _List(shape, in_value, self.node(shape.member, True))
        elif kind == "map":
            node = _Map(shape, in_value, self.node(shape.key, True), self.node(shape.value, True))
        elif kind == "timestamp":
            node = _Timestamp("java.util.Date", in_value)
        else:
            node = _Any("java.lang.Object", in_value)
        self.memo[memo_key] = node
        return node

    def fill(self, struct: _Structure, shape: Any, first: tuple[str, ...] = ()) -> None:
        names = list(shape.members)
        order = first or NESTED_ORDER.get(shape.name, ())
        ranked = [n for n in order if n in shape.members] + [n for n in names if n not in order]
        struct.members = {
            name: (ranked.index(name), _lower_first(name),
                   self.node(shape.members[name], False, name))
            for name in names
        }
        struct.required = tuple(shape.required_members)


_model: Any = None
_checkers: Final[dict[str, Callable[[dict[str, Any]], None]]] = {}
_quick: Final[dict[str, _Quick]] = {}
_nodes: Final[dict[str, _Structure]] = {}


def _load_model(service: str) -> ServiceModel:
    """botocore's model of ``service``, read from botocore's data files (and
    ~/.aws/models) without a session: importing botocore's session loads
    its whole client (waiters, docs, retries), a tenth of a server's
    start-up. A session hands the same data to the same class (it lets
    handlers change it first; botocore registers none for these services)."""
    return ServiceModel(Loader().load_service_model(service, "service-2"), service_name=service)


def _service_model() -> Any:
    global _model
    if _model is None:
        _model = _load_model("dynamodb")
    return _model


_streams_model: Any = None


def _model_of(operation: str) -> Any:
    """DynamoDB's model, or DynamoDB Streams' for the four Streams operations."""
    global _streams_model
    model = _service_model()
    if operation not in model.operation_names:
        if _streams_model is None:
            _streams_model = _load_model("dynamodbstreams")
        if operation in _streams_model.operation_names:
            return _streams_model
    return model


def _compile(operation: str) -> Callable[[dict[str, Any]], None]:
    model = _model_of(operation)
    try:
        shape = model.operation_model(operation).input_shape
    except OperationNotFoundError:  # not an operation botocore knows: nothing to check
        shape = None
    if shape is None:
        return lambda request: None
    compiler = _Compiler(model)
    top = _Structure(shape.name, False)
    compiler.fill(top, shape, MEMBER_ORDER.get(operation, ()))
    for name, low in EXTRA_MIN.get(operation, {}).items():
        rank, camel, node = top.members[name]
        if not isinstance(node, _List):
            raise TypeError(f"{operation}.{name}: a minimum length is only added to a list")
        # A new node: the compiler's nodes are shared between shapes.
        bounded = _List(shape.members[name], node.in_value, node.member)
        bounded.low = low
        top.members[name] = (rank, camel, bounded)
    for name in OPERATION_ENUMS.get(operation, ()):
        rank, camel, node = top.members[name]
        assert isinstance(node, _String)
        # A new node (the compiler's are shared between shapes): a string of
        # any value here.
        unchecked = _String(shape.members[name], node.in_value)
        unchecked.enum = frozenset()
        unchecked.plain = unchecked.trivial = (
            node.low is None and node.high is None and node.pattern is None)
        top.members[name] = (rank, camel, unchecked)
    required = [*top.required, *EXTRA_REQUIRED.get(operation, ())]
    table_operation = operation in TABLE_OPERATIONS
    tag_operation = operation in TAG_OPERATIONS
    if table_operation:
        required = [name for name in required if name != "TableName"]
    if tag_operation:
        required = [name for name in required if name != "ResourceArn"]
    top.required = tuple(required)
    _nodes[operation] = top
    quick = _quick[operation] = _Quick(
        top, (*required, *("TableName",) * table_operation, *("ResourceArn",) * tag_operation))

    def check(request: dict[str, Any]) -> None:
        if type(request) is not dict:
            raise top.type_error(request)
        found = top.check(request)
        if table_operation and request.get("TableName") is None:
            raise ValidationException(TABLE_NAME_REQUIRED)
        if tag_operation and request.get("ResourceArn") is None:
            raise ValidationException(TABLE_ARN_REQUIRED)
        if found:
            found.sort(key=lambda v: v[0])
            raise constraint_error([violation(path, shown, text)
                                    for _, path, shown, text in found])
        quick.remember(request)

    return check


# Ways a top-level member can be passed without its checker (``_Quick``).
_TYPE_ONLY: Final = 0
_SEEN: Final = 1
_VALUE_MAP: Final = 2
_SEEN_MAP: Final = 3
_REQUEST_MAP: Final = 4
_QUICK_MEMORY: Final = 4096
#: An attribute name this long (in code points) is within DynamoDB's 65,535
#: (UTF-16 units) whatever it holds; a longer one takes the full check.
_SHORT_NAME: Final = 65535 // 2


class _RequestMap:
    """Passes a map of lists of requests each of which wraps one map of
    AttributeValues (BatchWriteItem's RequestItems: table -> [{"PutRequest":
    {"Item": {...}}} or {"DeleteRequest": {"Key": {...}}}]) when the full
    check could find nothing in it: the map's and every list's length within
    the model's limits, keys short enough whatever they hold, every wrapper a
    JSON object holding its one required AttributeValue map, and every
    AttributeValue a JSON object under a short name. Anything else, a JSON
    null included, is for the full check."""

    __slots__ = ("high", "key_high", "key_low", "list_high", "list_low", "low", "wrappers")

    def __init__(self, node: _Map, wrappers: dict[str, str]) -> None:
        key, requests = node.key, node.value
        assert isinstance(key, _String) and isinstance(requests, _List)
        self.low, self.high = node.low or 0, node.high
        self.key_low = key.low or 0
        #: a key this short (code points) is within the key's limit (UTF-16 units)
        self.key_high = None if key.high is None else key.high // 2
        self.list_low, self.list_high = requests.low or 0, requests.high
        #: wrapper member -> the name of the AttributeValue map it must hold
        self.wrappers = wrappers

    @staticmethod
    def of(node: _Node) -> _RequestMap | None:
        """The quick pass of ``node``, when it is such a map; else None."""
        if type(node) is not _Map or type(node.key) is not _String:
            return None
        key, requests = node.key, node.value
        if key.pattern_text is not None or key.enum or type(requests) is not _List:
            return None
        request = requests.member
        if type(request) is not _Structure or request.required or not request.members:
            return None
        wrappers: dict[str, str] = {}
        for name, (_, _, wrapper) in request.members.items():
            if type(wrapper) is not _Structure or len(wrapper.members) != 1:
                return None
            ((inner, (_, _, values)),) = wrapper.members.items()
            if (wrapper.required != (inner,) or type(values) is not _Map or not values.simple
                    or type(values.value) is not _AttributeValue or values.low or values.high):
                return None
            wrappers[name] = inner
        return _RequestMap(node, wrappers)

    def passes(self, value: dict[str, Any]) -> bool:
        n = len(value)
        if n < self.low or (self.high is not None and n > self.high):
            return False
        key_low, key_high = self.key_low, self.key_high
        list_low, list_high = self.list_low, self.list_high
        wrappers = self.wrappers
        for key, requests in value.items():
            if type(key) is not str or len(key) < key_low or (
                    key_high is not None and len(key) > key_high):
                return False
            if type(requests) is not list:
                return False
            n = len(requests)
            if n < list_low or (list_high is not None and n > list_high):
                return False
            for request in requests:
                if type(request) is not dict:
                    return False
                for name, wrapper in request.items():
                    inner = wrappers.get(name)
                    if inner is None:
                        continue  # unknown members are ignored, as DynamoDB ignores them
                    if type(wrapper) is not dict:
                        return False
                    values = wrapper.get(inner)
                    if type(values) is not dict:
                        return False
                    for attribute, av in values.items():
                        if type(av) is not dict or len(attribute) > _SHORT_NAME:
                            return False
        return True


class _Quick:
    """The hot path of an operation's top-level check: a request made like
    one that passed before passes again with a type test and a set lookup
    per member, and no checker runs.

    Members whose checker looks only at the JSON type (plain strings,
    booleans) are type-tested; AttributeValue maps without limits have
    their values type-tested (``tallydb.engine.values`` checks their contents);
    constrained strings and integers (TableName, enums, Limit) and maps of
    strings (ExpressionAttributeNames) pass when the same value passed
    before. Anything else, a member this does not know how to pass, or a
    missing required member sends the request through the full check,
    which alone words refusals; a request it passes is remembered.
    """

    __slots__ = ("members", "request_maps", "required", "seen", "ways")

    def __init__(self, top: _Structure, required: tuple[str, ...]) -> None:
        self.members = top.members
        self.required = len(required)
        self.seen: set[Any] = set()
        #: member -> (how it passes, its JSON type, 1 if it is required)
        self.ways: dict[str, tuple[int, type[Any], int]] = {}
        self.request_maps: dict[str, _RequestMap] = {}
        for name, (_, _, node) in top.members.items():
            need = int(name in required)
            request_map = _RequestMap.of(node)
            if request_map is not None:
                self.request_maps[name] = request_map
                self.ways[name] = (_REQUEST_MAP, dict, need)
            elif node.trivial:
                self.ways[name] = (_TYPE_ONLY, node.kind, need)
            elif type(node) is _String or type(node) is _TableName:
                self.ways[name] = (_SEEN, str, need)
            elif type(node) is _Number and node.integral:
                self.ways[name] = (_SEEN, int, need)
            elif type(node) is _Map and node.low is None and node.high is None:
                if node.simple and type(node.value) is _AttributeValue:
                    self.ways[name] = (_VALUE_MAP, dict, need)
                elif type(node.key) is _String and type(node.value) is _String:
                    self.ways[name] = (_SEEN_MAP, dict, need)

    def passes(self, request: dict[str, Any]) -> bool:
        ways, seen = self.ways, self.seen
        required = 0  # required members present (a required member no way
        # passes keeps this short of the count: the full check decides)
        for name, item in request.items():
            way = ways.get(name)
            if way is None:
                if item is not None and name in self.members:
                    return False
                continue  # unknown members are ignored, as DynamoDB ignores them
            how, kind, need = way
            if type(item) is not kind:
                if item is None:
                    continue  # a JSON null counts as absent
                return False
            required += need
            if how == _TYPE_ONLY:
                continue
            if how == _SEEN:
                if (name, item) not in seen:
                    return False
            elif how == _VALUE_MAP:
                for key, value in item.items():
                    if type(value) is not dict or type(key) is not str or len(key) > _SHORT_NAME:
                        return False
            elif how == _REQUEST_MAP:
                if not self.request_maps[name].passes(item):
                    return False
            else:
                try:
                    if (name, tuple(item.items())) not in seen:
                        return False
                except TypeError:  # a value that is not a string
                    return False
        return required == self.required

    def remember(self, request: dict[str, Any]) -> None:
        """Note the members of a request the full check passed."""
        seen = self.seen
        if len(seen) >= _QUICK_MEMORY:
            seen.clear()
        for name, item in request.items():
            way = self.ways.get(name)
            if way is None or type(item) is not way[1]:
                continue
            if way[0] == _SEEN:
                seen.add((name, item))
            elif way[0] == _SEEN_MAP and all(type(v) is str for v in item.values()):
                seen.add((name, tuple(item.items())))


def check_request(operation: str, request: dict[str, Any]) -> None:
    """Raise DynamoDB's SerializationException or ValidationException for a
    request whose members have the wrong JSON type or break a constraint of
    the operation's input shape. Returns None for a request that passes."""
    quick = _quick.get(operation)
    if quick is not None and type(request) is dict and quick.passes(request):
        return
    checker = _checkers.get(operation)
    if checker is None:
        checker = _checkers[operation] = _compile(operation)
    checker(request)


def model_operations() -> frozenset[str]:
    """Every operation of DynamoDB's API in botocore's model."""
    global _operations
    if _operations is None:
        _operations = frozenset(_service_model().operation_names)
    return _operations


_operations: frozenset[str] | None = None


@functools.cache
def operations_without_output() -> frozenset[str]:
    """The operations whose answer has no body in DynamoDB's model (their
    success is an empty HTTP 200: TagResource, UntagResource)."""
    model = _service_model()
    return frozenset(name for name in model.operation_names
                     if model.operation_model(name).output_shape is None)


def _input(operation: str) -> _Structure | None:
    """``operation``'s input shape, compiled on first use (None: it has none)."""
    if operation not in _checkers:
        _checkers[operation] = _compile(operation)
    return _nodes.get(operation)


def model_members(operation: str) -> tuple[str, ...]:
    """The top-level members of ``operation``'s input in botocore's model."""
    node = _input(operation)
    return tuple(node.members) if node is not None else ()


def modelled(operation: str, request: dict[str, Any]) -> dict[str, Any]:
    """``request`` (its shape already checked) with only the members
    DynamoDB's model has for ``operation``, at every depth: what an
    operation that keeps its request (an export, an import, a bulk put)
    stores and echoes. DynamoDB ignores the others."""
    top = _input(operation)
    assert top is not None, operation
    kept: dict[str, Any] = top.modelled(request)
    return kept


def render_value(operation: str, path: tuple[str, ...], value: Any) -> str:
    """``value`` rendered as DynamoDB echoes it in a violation (Java's
    ``toString``: ``[KeySchemaElement(attributeName=a, keyType=HASH)]``), for
    the member at ``path`` of ``operation``'s input (wire names)."""
    top = _input(operation)
    assert top is not None, operation
    node: _Node = top
    for name in path:
        if not isinstance(node, _Structure):
            break
        node = node.members[name][2]
    return node.render(value)
