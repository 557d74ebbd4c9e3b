"""Every message the expression language answers with, each once.

Most are the detail after a parameter prefix ("Invalid UpdateExpression: ...");
the prefix is added where the parameter is known (see ``ExpressionError``).
The texts are DynamoDB's own: from dynalite's tests (run against DynamoDB),
moto's, and DynamoDB Local's table of validation errors, whose details follow
the message as "; key: value, key: value" (e.g. the syntax error's ``near``:
the token before, the offending token and the token after, with the
whitespace between them).
"""

from __future__ import annotations

from collections.abc import Iterable

from tallydb.engine.errors import ValidationException

UPDATE = "UpdateExpression"
CONDITION = "ConditionExpression"
FILTER = "FilterExpression"
PROJECTION = "ProjectionExpression"
KEY_CONDITION = "KeyConditionExpression"

EMPTY = "The expression can not be empty;"
REDUNDANT_PARENS = "The expression has redundant parentheses;"

# Runtime errors of UpdateItem (no parameter prefix).
MISSING_OPERAND = "The provided expression refers to an attribute that does not exist in the item"
INCORRECT_DATA_TYPE = "An operand in the update expression has an incorrect data type"
INVALID_UPDATE_PATH = "The document path provided in the update expression is invalid for update"
LEGACY_TYPE_MISMATCH = "Type mismatch for attribute to update"

# Type names as "operator: ADD/DELETE" errors spell them.
LONG_TYPE_NAMES = {
    "S": "STRING",
    "N": "NUMBER",
    "B": "BINARY",
    "NULL": "NULL",
    "BOOL": "BOOLEAN",
    "L": "LIST",
    "M": "MAP",
}
ALL_TYPES_SET = "{NS,SS,L,BS,N,M,B,BOOL,NULL,S}"
VALID_TYPE_NAMES = "{B,NULL,SS,BOOL,L,BS,N,NS,S,M}"


class ExpressionError(Exception):
    """A problem in one expression; ``to_validation(parameter)`` prefixes it
    with the parameter it came from, unless it is one of the messages that
    DynamoDB sends without that prefix."""

    def __init__(self, detail: str, prefixed: bool = True) -> None:
        super().__init__(detail)
        self.detail = detail
        self.prefixed = prefixed

    def to_validation(self, parameter: str) -> ValidationException:
        if self.prefixed:
            return ValidationException(f"Invalid {parameter}: {self.detail}")
        return ValidationException(self.detail)


def too_long(size: int) -> str:
    return f"Expression size has exceeded the maximum allowed size; expression size: {size}"


def syntax_error(token: str, near: str) -> str:
    return f'Syntax error; token: "{token}", near: "{near}"'


def reserved_keyword(name: str) -> str:
    return f"Attribute name is a reserved keyword; reserved keyword: {name}"


def invalid_function(name: str) -> str:
    return f"Invalid function name; function: {name}"


def section_twice(keyword: str) -> str:
    return f'The "{keyword}" section can only be used once in an update expression;'


def undefined_name(ref: str) -> str:
    return (
        "An expression attribute name used in the document path is not defined; "
        f"attribute name: {ref}"
    )


def undefined_value(ref: str) -> str:
    return (
        "An expression attribute value used in expression is not defined; "
        f"attribute value: {ref}"
    )


def path_text(path: Iterable[str | int]) -> str:
    """A resolved path as DynamoDB prints it: ``[a, [1], b]``."""
    return "[" + ", ".join(f"[{p}]" if isinstance(p, int) else p for p in path) + "]"


def paths_overlap(one: Iterable[str | int], two: Iterable[str | int]) -> str:
    return (
        "Two document paths overlap with each other; must remove or rewrite one of these "
        f"paths; path one: {path_text(one)}, path two: {path_text(two)}"
    )


def paths_conflict(one: Iterable[str | int], two: Iterable[str | int]) -> str:
    return (
        "Two document paths conflict with each other; must remove or rewrite one of these "
        f"paths; path one: {path_text(one)}, path two: {path_text(two)}"
    )


def wrong_operand_count(function: str, count: int) -> str:
    return (
        "Incorrect number of operands for operator or function; "
        f"operator or function: {function}, number of operands: {count}"
    )


def too_many_in_operands(count: int) -> str:
    return f"The IN operator is provided with too many operands; number of operands: {count}"


def too_many_operators(count: int) -> str:
    return f"The expression contains too many operators; operator count: {count}"


def list_index_out_of_range(text: str) -> str:
    return f"List index is not within the allowable range; index: {text}"


def path_too_deep(levels: int) -> str:
    return f"The document path has too many nesting levels; nesting levels: {levels}"


def requires_path(function: str) -> str:
    return f"Operator or function requires a document path; operator or function: {function}"


def wrong_operand_type(function: str, type_name: str) -> str:
    return (
        "Incorrect operand type for operator or function; "
        f"operator or function: {function}, operand type: {type_name}"
    )


# DynamoDB Local (and, by several reports, the service today) ends this
# message with ", typeSet: ALLOWED_FOR_ADD_OPERAND" (or _DELETE_); dynalite's
# tests against DynamoDB, and this project's tests, have it without. Flip this
# switch (and those tests) together.
ACTION_TYPE_SET_SUFFIX = False


#: Set types as a comparison's operand-type error would name them; DynamoDB's
#: spelling is on record for LIST only (the others follow LONG_TYPE_NAMES).
_SET_TYPE_NAMES = {"SS": "STRING_SET", "NS": "NUMBER_SET", "BS": "BINARY_SET"}


def wrong_comparison_operand_type(operator: str, type_code: str) -> str:
    """An ordering comparison (<, <=, >, >=, BETWEEN) given a value it cannot order."""
    name = LONG_TYPE_NAMES.get(type_code) or _SET_TYPE_NAMES[type_code]
    return wrong_operand_type(operator, name)


def wrong_action_operand_type(keyword: str, type_code: str) -> str:
    message = (
        "Incorrect operand type for operator or function; "
        f"operator: {keyword}, operand type: {LONG_TYPE_NAMES[type_code]}"
    )
    if ACTION_TYPE_SET_SUFFIX:
        message += f", typeSet: ALLOWED_FOR_{keyword}_OPERAND"
    return message


def misused_function(name: str) -> str:
    return f"The function is not allowed to be used this way in an expression; function: {name}"


def not_distinct(operator: str, path: Iterable[str | int]) -> str:
    return (
        "The first operand must be distinct from the remaining operands for this operator "
        f"or function; operator: {operator}, first operand: {path_text(path)}"
    )


def invalid_type_name(name: str) -> str:
    return f"Invalid attribute type name found; type: {name}, valid types: {VALID_TYPE_NAMES}"


def _bound(value: dict[str, object]) -> str:
    type_code, raw = next(iter(value.items()))
    return f"AttributeValue: {{{type_code}:{raw}}}"


def between_types(low: dict[str, object], high: dict[str, object]) -> str:
    return (
        "The BETWEEN operator requires same data type for lower and upper bounds; "
        f"lower bound operand: {_bound(low)}, upper bound operand: {_bound(high)}"
    )


def between_order(low: dict[str, object], high: dict[str, object]) -> str:
    return (
        "The BETWEEN operator requires upper bound to be greater than or equal to lower bound; "
        f"lower bound operand: {_bound(low)}, upper bound operand: {_bound(high)}"
    )


def unused_names(keys: Iterable[str]) -> str:
    return (
        "Value provided in ExpressionAttributeNames unused in expressions: "
        f"keys: {{{', '.join(keys)}}}"
    )


def unused_values(keys: Iterable[str]) -> str:
    return (
        "Value provided in ExpressionAttributeValues unused in expressions: "
        f"keys: {{{', '.join(keys)}}}"
    )


def key_attribute_updated(name: str) -> str:
    return (
        "One or more parameter values were invalid: "
        f"Cannot update attribute {name}. This attribute is part of the key"
    )


# KeyConditionExpression shape errors (sent without the parameter prefix).
def key_invalid_operator(operator: str) -> str:
    return f"Invalid operator used in KeyConditionExpression: {operator}"


KEY_NESTED_OPERATIONS = "KeyConditionExpressions cannot contain nested operations"
KEY_NESTED_ATTRIBUTES = "KeyConditionExpressions cannot have conditions on nested attributes"
KEY_MULTIPLE_NAMES = (
    "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition"
)
KEY_NO_ATTRIBUTE = "Invalid condition in KeyConditionExpression: No key attribute specified"
KEY_ONE_CONDITION = "KeyConditionExpressions must only contain one condition per key"


def key_first_operand(operator: str) -> str:
    return (
        f"Invalid condition in KeyConditionExpression: {operator} operator must have the key "
        "attribute as its first operand"
    )


# Legacy parameters (AttributeUpdates, Expected, AttributesToGet).
INVALID = "One or more parameter values were invalid: "
