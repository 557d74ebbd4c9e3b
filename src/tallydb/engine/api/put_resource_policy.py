"""PutResourcePolicy: attach a resource-based policy to a table or stream
(``_policies``), or replace it: with ExpectedRevisionId, only the policy of
that revision (``NO_POLICY``: only when there is none), else
PolicyNotFoundException. The same policy again keeps its RevisionId."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._policies import check, new_revision, policy_of
from tallydb.engine.api._policy_resources import (
    EXPECTED_NONE,
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
ACCESS = on_policy("PutResourcePolicy", write=True)


def validate(request: dict[str, Any]) -> None:
    """The checks before the lookup (``_pipeline``): the ARN's form, the
    policy document."""
    check_resource_arn(request)
    check(request["Policy"])


def put_resource_policy(txn: Transaction, request: dict[str, Any], checked: None
                        ) -> dict[str, Any]:
    arn = request["ResourceArn"]
    record = resource_of(txn, arn)
    current = policy_of(record, arn)
    expected = request.get("ExpectedRevisionId")
    if expected is not None:
        if expected == "NO_POLICY":
            if current is not None:
                raise PolicyNotFoundException(EXPECTED_NONE.format(
                    record.name, current["RevisionId"]))
        elif current is None or current["RevisionId"] != expected:
            raise PolicyNotFoundException(REVISION_MISMATCH.format(
                expected, record.name, None if current is None else current["RevisionId"]))
    if current is not None and current["Policy"] == request["Policy"]:
        return {"RevisionId": current["RevisionId"]}
    revision = new_revision()
    kept(txn, record, arn, {"Policy": request["Policy"], "RevisionId": revision})
    return {"RevisionId": revision}
