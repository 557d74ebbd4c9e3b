"""What the three resource-policy operations share: the table (or stream)
an ARN names, and the table's kept policies."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._access import Resolver, Touch
from tallydb.engine.api._policies import POLICIES
from tallydb.engine.api._resource_arns import NOT_A_TABLE_OR_STREAM, not_an_arn
from tallydb.engine.api.describe_table import find_table, table_name_of
from tallydb.engine.errors import ResourceNotFoundException, ValidationException
from tallydb.engine.storage import TableRecord, Transaction

#: The Streams API's wording for a stream that is not there.
STREAM_NOT_FOUND = "Requested resource not found: Stream: {} not found"
#: DynamoDB's answers when there is no policy (moto's wording, recorded).
NO_POLICY = "Resource-based policy not found for the provided ResourceArn: {}"
EXPECTED_NONE = ("Resource-based policy not found for the provided ResourceArn: Requested "
                 "policy update expecting none to be present for table {}, but a policy "
                 "exists with revision id {}.")
REVISION_MISMATCH = ("Resource-based policy not found for the provided ResourceArn: Requested "
                     "update for policy with revision id {}, but the policy associated to "
                     "target table {} has revision id {}.")


def on_policy(action: str, *, write: bool) -> Resolver:
    """``ACCESS`` of a policy operation: the table (or its stream) its
    ResourceArn names, read as ``resource_of`` reads it (an ARN that names
    neither touches nothing: the operation refuses it)."""
    def resolve(txn: Transaction, request: dict[str, Any]) -> tuple[Touch, ...]:
        arn = request.get("ResourceArn")
        if not isinstance(arn, str) or not arn.startswith("arn:") or ":table/" not in arn:
            return ()
        table, found, label = arn.partition("/stream/")
        return (Touch(action, table_name_of(table), write,
                      "/stream/" + label if found else ""),)
    return resolve


def check_resource_arn(request: dict[str, Any]) -> None:
    """The ResourceArn's form, checked before anything is looked up: a
    table's ARN or its stream's."""
    arn = request["ResourceArn"]
    refusal = not_an_arn(arn)
    if refusal is not None:
        raise refusal
    rest = arn.partition(":table/")[2].partition("/")[2]
    if ":table/" not in arn or (rest and not rest.startswith("stream/")):
        raise ValidationException(NOT_A_TABLE_OR_STREAM.format(arn))


def resource_of(txn: Transaction, arn: str) -> TableRecord:
    """The table whose policy (or whose stream's) ``arn`` names (its form
    already checked: ``check_resource_arn``)."""
    record = find_table(txn, arn.split("/stream/")[0])
    if "/stream/" in arn:
        known = [s["arn"] for s in record.description.get("_Streams", ())]
        if arn not in known:
            raise ResourceNotFoundException(STREAM_NOT_FOUND.format(arn))
    return record


def kept(txn: Transaction, record: TableRecord, arn: str, policy: dict[str, Any] | None
         ) -> None:
    """Keep ``policy`` for ``arn`` (None: remove it)."""
    policies = dict(record.description.get(POLICIES, {}))
    if policy is None:
        policies.pop(arn, None)
    else:
        policies[arn] = policy
    description = {**record.description, POLICIES: policies}
    if not policies:
        description.pop(POLICIES)
    txn.update_table(record.with_description(description))
