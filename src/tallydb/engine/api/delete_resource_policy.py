"""DeleteResourcePolicy: remove a table's or stream's policy (of
ExpectedRevisionId's revision, when given); PolicyNotFoundException when
there is none, or another revision. The answer names a new RevisionId, as
DynamoDB's does."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._policies import new_revision, policy_of
from tallydb.engine.api._policy_resources import (
    NO_POLICY,
    REVISION_MISMATCH,
    check_resource_arn,
    kept,
    on_policy,
    resource_of,
)
from tallydb.engine.errors import PolicyNotFoundException
from tallydb.engine.storage import Transaction

#: What a request touches (``_access``): writes the policy of the table (or
#: stream) its ResourceArn names.
ACCESS = on_policy("DeleteResourcePolicy", write=True)

#: The checks before the lookup: the ARN's form (``_pipeline``).
validate = check_resource_arn


def delete_resource_policy(txn: Transaction, request: dict[str, Any], checked: None
                           ) -> dict[str, Any]:
    arn = request["ResourceArn"]
    record = resource_of(txn, arn)
    current = policy_of(record, arn)
    if current is None:
        raise PolicyNotFoundException(NO_POLICY.format(arn))
    expected = request.get("ExpectedRevisionId")
    if expected is not None and expected != current["RevisionId"]:
        raise PolicyNotFoundException(REVISION_MISMATCH.format(
            expected, record.name, current["RevisionId"]))
    kept(txn, record, arn, None)
    return {"RevisionId": new_revision()}
