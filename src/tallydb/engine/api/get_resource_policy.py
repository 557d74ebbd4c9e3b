"""GetResourcePolicy: a table's or stream's policy, exactly as it was put,
and its RevisionId; PolicyNotFoundException when it has none."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._policies import policy_of
from tallydb.engine.api._policy_resources import (
    NO_POLICY,
    check_resource_arn,
    on_policy,
    resource_of,
)
from tallydb.engine.errors import PolicyNotFoundException
from tallydb.engine.storage import Transaction

#: The checks before the lookup: the ARN's form (``_pipeline``).
validate = check_resource_arn

#: What a request touches (``_access``): reads the policy of the table (or
#: stream) its ResourceArn names.
ACCESS = on_policy("GetResourcePolicy", write=False)



def get_resource_policy(txn: Transaction, request: dict[str, Any], checked: None
                        ) -> dict[str, Any]:
    arn = request["ResourceArn"]
    policy = policy_of(resource_of(txn, arn), arn)
    if policy is None:
        raise PolicyNotFoundException(NO_POLICY.format(arn))
    return {"Policy": policy["Policy"], "RevisionId": policy["RevisionId"]}
