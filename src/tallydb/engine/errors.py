"""DynamoDB's errors, each once, with the wire shape it answers with.

This module is the leaf of the package: every layer may raise these, and it
imports nothing of ours. The server turns one into
``{"__type": ..., "message": ...}`` with the error's HTTP status; the
in-process transport raises it as it is.
"""

from __future__ import annotations

from typing import Any, ClassVar

_DYNAMODB = "com.amazonaws.dynamodb.v20120810#"
_CORAL_SERVICE = "com.amazon.coral.service#"
_CORAL_VALIDATE = "com.amazon.coral.validate#"
_CORAL_AVAILABILITY = "com.amazon.coral.availability#"


class DynamoDBError(Exception):
    """An error DynamoDB answers with: a code, a message, an HTTP status."""

    namespace: ClassVar[str] = _DYNAMODB
    status: ClassVar[int] = 400
    message_key: ClassVar[str] = "message"

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message or "")
        self.message = message

    @classmethod
    def code(cls) -> str:
        """The error's name as SDKs see it (``ValidationException``)."""
        return cls.__name__

    def to_wire(self) -> dict[str, Any]:
        body: dict[str, Any] = {"__type": self.namespace + self.code()}
        if self.message is not None:
            body[self.message_key] = self.message
        return body


class ValidationException(DynamoDBError):
    namespace = _CORAL_VALIDATE


class SerializationException(DynamoDBError):
    namespace = _CORAL_SERVICE
    message_key = "Message"


class UnknownOperationException(DynamoDBError):
    namespace = _CORAL_SERVICE


class MissingAuthenticationTokenException(DynamoDBError):
    namespace = _CORAL_SERVICE


class IncompleteSignatureException(DynamoDBError):
    namespace = _CORAL_SERVICE


class InvalidSignatureException(DynamoDBError):
    namespace = _CORAL_SERVICE


class UnrecognizedClientException(DynamoDBError):
    namespace = _CORAL_SERVICE


class AccessDeniedException(DynamoDBError):
    namespace = _CORAL_SERVICE


class ConditionalCheckFailedException(DynamoDBError):
    """A ConditionExpression did not hold; ``item`` is the item as it stood,
    sent back only when ReturnValuesOnConditionCheckFailure is ALL_OLD."""

    def __init__(
        self,
        message: str = "The conditional request failed",
        item: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.item = item

    def to_wire(self) -> dict[str, Any]:
        body = super().to_wire()
        if self.item is not None:
            body["Item"] = self.item
        return body


class ResourceNotFoundException(DynamoDBError):
    pass


class ResourceInUseException(DynamoDBError):
    pass


class TableNotFoundException(DynamoDBError):
    """CreateBackup of a table that does not exist."""


class TableAlreadyExistsException(DynamoDBError):
    """RestoreTableFromBackup onto a table name in use."""


class BackupNotFoundException(DynamoDBError):
    pass


class InvalidRestoreTimeException(DynamoDBError):
    """A point-in-time restore to a time outside the recovery window."""


class ReplicatedWriteConflictException(DynamoDBError):
    """A write to an item of a strongly consistent global table that another
    region is writing (HTTP 409, which SDKs retry)."""

    status = 409


class GlobalTableAlreadyExistsException(DynamoDBError):
    pass


class GlobalTableNotFoundException(DynamoDBError):
    pass


class ReplicaAlreadyExistsException(DynamoDBError):
    pass


class ReplicaNotFoundException(DynamoDBError):
    pass


class IndexNotFoundException(DynamoDBError):
    pass


class ExpiredIteratorException(DynamoDBError):
    """A DynamoDB Streams shard iterator older than 15 minutes."""


class TrimmedDataAccessException(DynamoDBError):
    """A DynamoDB Streams position whose records are past the 24-hour retention."""


class DuplicateItemException(DynamoDBError):
    """A PartiQL INSERT of a key that exists."""


class LimitExceededException(DynamoDBError):
    pass


class ItemCollectionSizeLimitExceededException(DynamoDBError):
    pass


class _Throttled(DynamoDBError):
    """A throttled request; ``reasons`` are DynamoDB's ThrottlingReasons
    (``{"reason": "TableWriteKeyRangeThroughputExceeded", "resource": ARN}``)."""

    reasons_key: ClassVar[str] = "ThrottlingReasons"

    def __init__(self, message: str | None = None,
                 reasons: list[dict[str, str]] | None = None) -> None:
        super().__init__(message)
        self.reasons = reasons

    def to_wire(self) -> dict[str, Any]:
        body = super().to_wire()
        if self.reasons:
            body[self.reasons_key] = self.reasons
        return body


class ProvisionedThroughputExceededException(_Throttled):
    pass


class ThrottlingException(_Throttled):
    """Data-plane throttling of an on-demand table (a hot partition): DynamoDB
    answers it from its availability namespace,
    ``com.amazon.coral.availability#ThrottlingException`` (awslabs/dynein#195
    quotes the wire), and botocore's model spells the reasons member
    ``throttlingReasons``."""

    namespace = _CORAL_AVAILABILITY
    reasons_key = "throttlingReasons"


class RequestLimitExceeded(_Throttled):
    pass


class TransactionConflictException(DynamoDBError):
    pass


class TransactionInProgressException(DynamoDBError):
    pass


class IdempotentParameterMismatchException(DynamoDBError):
    message_key = "Message"


class TransactionCanceledException(DynamoDBError):
    """All-or-nothing refusal of a transaction; one reason per action, in
    request order (``{"Code": "None"}`` for the actions that were fine)."""

    message_key = "Message"

    def __init__(self, reasons: list[dict[str, Any]]) -> None:
        codes = ", ".join(r.get("Code", "None") for r in reasons)
        super().__init__(f"Transaction cancelled, please refer cancellation reasons for specific "
                         f"reasons [{codes}]")
        self.reasons = reasons

    def to_wire(self) -> dict[str, Any]:
        body = super().to_wire()
        body["CancellationReasons"] = self.reasons
        return body


class InternalServerError(DynamoDBError):
    """Our own fault, never a client's: the only 500 the server sends."""

    status = 500


class PointInTimeRecoveryUnavailableException(DynamoDBError):
    pass


class InvalidExportTimeException(DynamoDBError):
    pass


class ExportConflictException(DynamoDBError):
    pass


class ExportNotFoundException(DynamoDBError):
    pass


class ImportConflictException(DynamoDBError):
    pass


class ImportNotFoundException(DynamoDBError):
    pass


class PolicyNotFoundException(DynamoDBError):
    pass
