"""DynamoDB's PartiQL messages, each once."""

#: Every syntax error starts so; the rest says what the parser met.
NOT_WELL_FORMED = "Statement wasn't well formed, can't be processed: {}"
WHOLE_KEY = "Where clause does not contain a mandatory equality on all key attributes"
DUPLICATE_ITEM = "Duplicate primary key exists in table"
PARAMETER_COUNT = "Number of parameters in request and statement don't match."
UNSUPPORTED = "Unsupported operation: {}"
MIXED_SET = "Set elements must all be strings, numbers or binaries of one type"
MIXED_TRANSACTION = "Transactions must consist of either all read or all write statements"
