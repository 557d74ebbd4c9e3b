"""DynamoDB's PartiQL messages, each once.

Recorded against DynamoDB (the Parity Suite's PartiQL captures, eu-west-2,
2026): the RETURNING refusals, reads on an index in a transaction, and the
syntax error of a statement that starts with no verb. The other syntax
errors' details, and EXISTS outside a transaction, are not on record: ours
say what the parser met.
"""

#: Every syntax error starts so; the rest says what the parser met (a
#: statement the lexer cannot read, as an unterminated quote: nothing).
NOT_WELL_FORMED = "Statement wasn't well formed, can't be processed: {}"
#: The detail when a statement starts with no SELECT, INSERT, UPDATE or DELETE.
NO_STATEMENT = "Expected data manipulation"
DELETE_RETURNING = (
    "Invalid returning clause: RETURNING {}. Only RETURNING ALL OLD * is allowed in DELETE "
    "statements.")
RETURNING_IN_TRANSACTION = (
    "Validation failed in TransactStatements[{}]: RETURNING clause is not supported in "
    "ExecuteTransaction.")
INDEX_READ_IN_TRANSACTION = (
    "Validation failed in TransactStatements[{}]: Reads on indices are not supported within "
    "transactions.")
EXISTS_OUTSIDE_TRANSACTION = "EXISTS can only be used in transactions"
WHOLE_KEY = "Where clause does not contain a mandatory equality on all key attributes"
DUPLICATE_ITEM = "Duplicate primary key exists in table"
PARAMETER_COUNT = "Number of parameters in request and statement don't match."
EMPTY_SET = "Empty bags are not supported"
DUPLICATES_IN_SET = "Input collection contains duplicates"
MIXED_SET = "DynamoDB only supports either numbers or strings in bags"
MIXED_TRANSACTION = (
    "ExecuteTransaction API does not support both read and write operations in the same request."
)
