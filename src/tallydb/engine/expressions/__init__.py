"""tallydb.engine.expressions: DynamoDB's expression language, pure (no I/O).

UpdateExpression, Condition/FilterExpression, ProjectionExpression and
KeyConditionExpression share one tokenizer and one parser (``parser``), one
syntax tree (``ast``, whose nodes render back to text), and are bound to a
request's ExpressionAttributeNames/Values through ``Placeholders``. The legacy
parameters (AttributeUpdates, Expected, AttributesToGet) translate into the
same bound objects (``legacy``).
"""

from tallydb.engine.expressions.binding import BoundProjection, Placeholders
from tallydb.engine.expressions.condition import BoundCondition
from tallydb.engine.expressions.key_condition import BoundKeyCondition, KeyPart
from tallydb.engine.expressions.legacy import (
    from_attribute_updates,
    from_attributes_to_get,
    from_expected,
)
from tallydb.engine.expressions.parser import parse_condition, parse_projection, parse_update
from tallydb.engine.expressions.reserved import RESERVED_WORDS, is_reserved
from tallydb.engine.expressions.update import BoundUpdate

__all__ = [
    "RESERVED_WORDS",
    "BoundCondition",
    "BoundKeyCondition",
    "BoundProjection",
    "BoundUpdate",
    "KeyPart",
    "Placeholders",
    "from_attribute_updates",
    "from_attributes_to_get",
    "from_expected",
    "is_reserved",
    "parse_condition",
    "parse_projection",
    "parse_update",
]
