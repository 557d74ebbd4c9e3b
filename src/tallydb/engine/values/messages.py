"""DynamoDB's own words for bad values, each once.

Where the text came from is noted beside it. "captured" means a conformance
suite that asserts real DynamoDB's answers (paritysuite/dynamodb-conformance,
captures 2026); "dynalite" means architect/dynalite's tests, which were written
against real DynamoDB; "logs" means real responses quoted in bug reports.

DynamoDB checks attribute values in one of two layers, and the operation
decides which (captured, tests/tier3/error-messages/valueLayers):

- current: PutItem, UpdateItem, DeleteItem, GetItem, BatchGetItem, Query.
  PutItem, UpdateItem and DeleteItem wrap a bad number or a duplicate set
  member in :data:`ENVELOPE`; GetItem, BatchGetItem and Query answer bare.
- older: BatchWriteItem, TransactWriteItems, TransactGetItems, Scan, bare;
  an ExpressionAttributeValues entry there is wrapped as
  ``"ExpressionAttributeValues contains invalid value: {msg} for key {key}"``.

The functions in this package raise the bare message; adding the envelope or
the ExpressionAttributeValues wrapper is the operation's business.
"""

from __future__ import annotations

#: Prefix PutItem/UpdateItem/DeleteItem put before a value error (captured).
ENVELOPE = "1 validation error detected: "

#: Wrapper older-layer operations put around a bad ExpressionAttributeValues
#: entry (captured; dynalite).
EAV_WRAPPER = "ExpressionAttributeValues contains invalid value: {message} for key {key}"

_INVALID = "One or more parameter values were invalid: "

# --- Numbers (captured; dynalite) -------------------------------------------

#: Followed by ``": " + text`` (current layer, even for ""), or bare in the
#: older layer for "" (captured).
NOT_A_NUMBER = "The parameter cannot be converted to a numeric value"
TOO_MANY_DIGITS = "Attempting to store more than 38 significant digits in a Number"
OVERFLOW = (
    "Number overflow. Attempting to store a number with magnitude larger than supported range"
)
UNDERFLOW = (
    "Number underflow. Attempting to store a number with magnitude smaller than supported range"
)

# --- AttributeValue shape (dynalite; captured for the sets and NULL) ----------

EMPTY_ATTRIBUTE_VALUE = (
    "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"
)
MULTIPLE_DATATYPES = (
    "Supplied AttributeValue has more than one datatypes set, "
    "must contain exactly one of the supported datatypes"
)
# DynamoDB's grammar and double spaces, verbatim (captured; .NET SDK log 2024).
EMPTY_STRING_SET = _INVALID + "An string set  may not be empty"
EMPTY_NUMBER_SET = _INVALID + "An number set  may not be empty"
EMPTY_BINARY_SET = _INVALID + "Binary sets should not be empty"
NULL_NOT_TRUE = _INVALID + "Null attribute value types must have the value of true"
#: A JSON null inside a set. DynamoDB's answer is not captured; these are its
#: pre-2020 words for an unusable member (dynalite), the closest on record.
NULL_IN_STRING_SET = _INVALID + "An string set may not have a empty string as a member"
NULL_IN_BINARY_SET = _INVALID + "Binary sets may not contain null or empty values"
#: Nesting deeper than 32 levels, the attribute itself being level 1 (captured).
NESTING_TOO_DEEP = (
    "Nesting Levels have exceeded supported limits: "
    "Attributes in the item have nested levels beyond supported limit"
)

# Duplicate set members. Current layer: members quoted, in byte order up to
# the first repeat, then the repeat, then the rest as sent; BS joined by ","
# and SS by ", " (captured). Older layer: members as sent, unquoted (captured).
DUPLICATE_STRINGS = _INVALID + "Input collection {members} contains duplicates."
DUPLICATE_BINARIES = _INVALID + "Input collection {members}of type BS contains duplicates."
DUPLICATE_NUMBERS = _INVALID + "Input collection contains duplicates."
DUPLICATE_NUMBERS_OLDER = "Input collection contains duplicates"

# --- Keys ---------------------------------------------------------------------

#: GetItem/DeleteItem/UpdateItem Key with a missing, extra or mistyped
#: attribute (dynalite; moto aws_verified tests; logs).
#: An attribute named "" (in an Item, AttributeUpdates, Expected, a filter,
#: AttributesToGet). DynamoDB's wording here is not on record; it is the
#: one it uses for an empty name in ExpressionAttributeNames, below.
EMPTY_ATTRIBUTE_NAME = _INVALID + "Empty attribute name"
EMPTY_NAME_PLACEHOLDER = (
    "ExpressionAttributeNames contains invalid value: Empty attribute name for key {key}")

KEY_SCHEMA_MISMATCH = "The provided key element does not match the schema"
#: ``.format(name)`` (captured; logs).
EMPTY_STRING_KEY = (
    "One or more parameter values are not valid. The AttributeValue for a key attribute "
    "cannot contain an empty string value. Key: {}"
)
EMPTY_BINARY_KEY = (
    "One or more parameter values are not valid. The AttributeValue for a key attribute "
    "cannot contain an empty binary value. Key: {}"
)
#: The missing space in "of2048" is DynamoDB's (dynalite).
HASH_KEY_TOO_LONG = _INVALID + "Size of hashkey has exceeded the maximum size limit of2048 bytes"
RANGE_KEY_TOO_LONG = (
    _INVALID + "Aggregated size of all range keys has exceeded the size limit of 1024 bytes"
)
#: PutItem Item without a key attribute, ``.format(name)`` (dynalite).
MISSING_KEY_IN_ITEM = _INVALID + "Missing the key {} in the item"
#: PutItem Item with a mistyped key, ``.format(name, expected, actual)``
#: (dynalite; moto tests).
KEY_TYPE_MISMATCH = _INVALID + "Type mismatch for key {} expected: {} actual: {}"

# --- Item size (dynalite; captured; AWS API reference) -------------------------

ITEM_TOO_LARGE = "Item size has exceeded the maximum allowed size"
UPDATED_ITEM_TOO_LARGE = "Item size to update has exceeded the maximum allowed size"

# --- Serialization (SerializationException; dynalite) ------------------------

BLOB_BAD_LENGTH = (
    "'{value}' can not be converted to a Blob: "
    "Base64 encoded length is expected a multiple of 4 bytes but found: {length}"
)
BLOB_BAD_CHARACTER = "'{value}' can not be converted to a Blob: Invalid Base64 character: '{char}'"
#: "dectected" is DynamoDB's spelling.
BLOB_BAD_LAST_CHARACTER = (
    "'{value}' can not be converted to a Blob: Invalid last non-pad Base64 character dectected"
)
NOT_A_STRING = "class {java_class} can not be converted to an String"
NOT_A_BOOLEAN = "class {java_class} can not be converted to an Boolean"
BAD_BOOLEAN_STRING = "'{value}' can not be converted to an Boolean"
NOT_A_BLOB = "class {java_class} can not be converted to a Blob"
UNEXPECTED_MAP = "Start of structure or map found where not expected."
UNEXPECTED_LIST = "Start of list found where not expected"
EXPECTED_LIST = "Expected list or null"
EXPECTED_MAP = "Expected map or null"
EXPECTED_STRUCTURE = "Expected null"
JAVA_NUMBER = "com.amazon.coral.value.json.numbers.TruncatingBigNumber"
JAVA_BOOLEAN = "java.lang.Boolean"
