"""The resource-policy evaluator's coverage, case by case: what it decides
for principals, actions, resources, Not* elements and conditions."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tallydb.engine.api._policies import decide

ME = "arn:aws:iam::000000000000:user/me"
TABLE = "arn:aws:dynamodb:us-east-1:000000000000:table/t"


def _policy(*statements: dict[str, Any]) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": list(statements)})


def _statement(effect: str = "Deny", **members: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"Effect": effect, "Principal": {"AWS": ME},
                            "Action": "dynamodb:UpdateItem", "Resource": TABLE}
    base.update(members)
    return base


@pytest.mark.parametrize(("statement", "action", "expected"), [
    (_statement(), "dynamodb:UpdateItem", "Deny"),
    (_statement(), "dynamodb:GetItem", None),
    (_statement(Action="dynamodb:*"), "dynamodb:GetItem", "Deny"),
    (_statement(Action="dynamodb:update*"), "dynamodb:UpdateItem", "Deny"),
    (_statement(Action=["dynamodb:GetItem", "dynamodb:UpdateItem"]), "dynamodb:UpdateItem",
     "Deny"),
    (_statement(NotAction="dynamodb:GetItem", Action=None), "dynamodb:UpdateItem", "Deny"),
    (_statement(Principal="*"), "dynamodb:UpdateItem", "Deny"),
    (_statement(Principal={"AWS": "arn:aws:iam::000000000000:root"}), "dynamodb:UpdateItem",
     "Deny"),
    (_statement(Principal={"AWS": "arn:aws:iam::000000000000:user/other"}),
     "dynamodb:UpdateItem", None),
    (_statement(Resource=TABLE + "/index/*"), "dynamodb:UpdateItem", None),
    (_statement(Resource="arn:aws:dynamodb:*:*:table/*"), "dynamodb:UpdateItem", "Deny"),
    (_statement(Condition={"StringEquals": {"aws:SourceVpc": "vpc-1"}}), "dynamodb:UpdateItem",
     "Deny"),
    (_statement("Allow"), "dynamodb:UpdateItem", "Allow"),
    (_statement("Allow", Condition={"Bool": {"aws:SecureTransport": "true"}}),
     "dynamodb:UpdateItem", None),
])
def test_one_statement(statement: dict[str, Any], action: str, expected: str | None) -> None:
    statement = {k: v for k, v in statement.items() if v is not None}
    assert decide(_policy(statement), ME, action, TABLE) == expected


def test_an_explicit_deny_wins_over_an_allow() -> None:
    policy = _policy(_statement("Allow", Action="dynamodb:*"), _statement("Deny"))
    assert decide(policy, ME, "dynamodb:UpdateItem", TABLE) == "Deny"
    assert decide(policy, ME, "dynamodb:GetItem", TABLE) == "Allow"
