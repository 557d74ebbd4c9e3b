"""tallydb.engine.values: DynamoDB's data model, pure (no I/O).

AttributeValues stay in their wire form (``{"N": "12.5"}``); Numbers are
canonical text, Binaries base64 text. See the modules for the rules each
function follows and where DynamoDB's behaviour was verified.
"""

from tallydb.engine.values.attribute_value import (
    MAX_HASH_KEY_BYTES,
    MAX_NESTING_LEVEL,
    MAX_RANGE_KEY_BYTES,
    base64_length,
    check_key_schema,
    set_in_order,
    validate_item,
    validate_item_key,
    validate_key,
    validate_key_values,
    validate_value,
)
from tallydb.engine.values.compare import compare_values, values_equal
from tallydb.engine.values.key import (
    decode_key_value,
    decode_key_value_at,
    encode_key_prefix,
    encode_key_value,
)
from tallydb.engine.values.number import (
    add_numbers,
    compare_numbers,
    normalize_number,
    split_number,
    subtract_numbers,
    to_decimal,
)
from tallydb.engine.values.size import (
    MAX_ITEM_SIZE,
    attribute_size,
    check_item_fits,
    check_item_size,
    item_size,
    number_size,
)
from tallydb.engine.values.types import AttributeValue, Item, KeyType, Wording

__all__ = [
    "MAX_HASH_KEY_BYTES",
    "MAX_ITEM_SIZE",
    "MAX_NESTING_LEVEL",
    "MAX_RANGE_KEY_BYTES",
    "AttributeValue",
    "Item",
    "KeyType",
    "Wording",
    "add_numbers",
    "attribute_size",
    "base64_length",
    "check_item_fits",
    "check_item_size",
    "check_key_schema",
    "compare_numbers",
    "compare_values",
    "decode_key_value",
    "decode_key_value_at",
    "encode_key_prefix",
    "encode_key_value",
    "item_size",
    "normalize_number",
    "number_size",
    "set_in_order",
    "split_number",
    "subtract_numbers",
    "to_decimal",
    "validate_item",
    "validate_item_key",
    "validate_key",
    "validate_key_values",
    "validate_value",
    "values_equal",
]
