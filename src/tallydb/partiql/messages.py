"""DynamoDB's PartiQL messages, each once."""

#: Every syntax error starts so; the rest says what the parser met.
NOT_WELL_FORMED = "Statement wasn't well formed, can't be processed: {}"
WHOLE_KEY = "Where clause does not contain a mandatory equality on all key attributes"
DUPLICATE_ITEM = "Duplicate primary key exists in table"
PARAMETER_COUNT = "Number of parameters in request and statement don't match."
UNSUPPORTED = "Unsupported operation: {}"
EMPTY_SET = "Empty bags are not supported"
DUPLICATES_IN_SET = "Input collection contains duplicates"
MIXED_SET = "DynamoDB only supports either numbers or strings in bags"
MIXED_TRANSACTION = (
    "ExecuteTransaction API does not support both read and write operations in the same request."
)
