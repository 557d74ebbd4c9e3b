"""DynamoDB's refusals of a ResourceArn by its form, shared by the tag and
resource-policy operations.

Both are DynamoDB's current words: "ARNs must start with 'arn:'" for a
string that is not an ARN at all (ListTagsOfResource, TagResource and the
resource-policy operations given a bare table name, recorded against
DynamoDB in 2026; ScyllaDB's Alternator tests note the change from an
older AccessDeniedException), and "Invalid resource arn provided, only
table or stream is accepted" for the ARN of anything else, an index's
included (ListTagsOfResource given an index's ARN, quoted in the Alternator
tests from DynamoDB in 2026).
"""

from __future__ import annotations

from tallydb.engine.errors import ValidationException

NOT_AN_ARN = "One or more parameter values were invalid: ARNs must start with 'arn:': {}"
NOT_A_TABLE_OR_STREAM = (
    "One or more parameter values were invalid: Invalid resource arn provided, only table "
    "or stream is accepted. Provided resource arn: {}")


def not_an_arn(arn: str) -> ValidationException | None:
    """The refusal of a ResourceArn that does not begin as an ARN, or None."""
    if arn.startswith("arn:"):
        return None
    return ValidationException(NOT_AN_ARN.format(arn))


def is_index_arn(arn: str) -> bool:
    """True for the ARN of a table's index (``...:table/NAME/index/INDEX``)."""
    return "/index/" in arn.partition(":table/")[2]
