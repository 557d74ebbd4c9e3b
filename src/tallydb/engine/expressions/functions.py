"""The functions each expression kind may call (with their operand counts),
and how many operators one expression may hold."""

from __future__ import annotations

CONDITION_FUNCTIONS = {
    "attribute_exists": 1,
    "attribute_not_exists": 1,
    "attribute_type": 2,
    "begins_with": 2,
    "contains": 2,
    "size": 1,
}
UPDATE_FUNCTIONS = {"if_not_exists": 2, "list_append": 2}

#: DynamoDB's limit on the operators (comparisons, AND/OR/NOT, BETWEEN, IN,
#: + and -, function calls) in one expression.
MAX_OPERATORS = 300
