"""A table's resource policy is enforced in the engine's pipeline, on what
each request touches as the engine resolved it: a Deny for one key's user
refuses that key's counter increments whichever way they are written
(UpdateItem, PartiQL, inside either kind of transaction) with
AccessDeniedException for an explicit deny, and changes nothing, while
another key still counts. Through boto3 against ``tallydb serve
--credentials``, and in-process."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError
from serverkit import Serve

from tallydb.engine.api import Access, Engine
from tallydb.engine.errors import AccessDeniedException
from tallydb.engine.storage import Store

CREDENTIALS = """\
[keys.AKIDOWNER]
secret = "owner-secret"
[keys.AKIDBLOCKED]
secret = "blocked-secret"
[keys.AKIDCOUNTER]
secret = "counter-secret"
"""
SECRETS = {"AKIDOWNER": "owner-secret", "AKIDBLOCKED": "blocked-secret",
           "AKIDCOUNTER": "counter-secret"}
TABLE = "counts"
ARN = f"arn:aws:dynamodb:us-east-1:000000000000:table/{TABLE}"
KEY = {"id": {"S": "hits"}}
#: DynamoDB authorizes a PartiQL UPDATE as dynamodb:PartiQLUpdate, not as
#: UpdateItem: a policy that means "no increments" names both.
DENY = json.dumps({"Version": "2012-10-17", "Statement": [{
    "Effect": "Deny", "Principal": {"AWS": "arn:aws:iam::000000000000:user/AKIDBLOCKED"},
    "Action": ["dynamodb:UpdateItem", "dynamodb:PartiQLUpdate"], "Resource": ARN}]})
DENIED = ("User: arn:aws:iam::000000000000:user/AKIDBLOCKED is not authorized to perform: "
          "dynamodb:{} on resource: " + ARN + " with an explicit deny in a resource-based "
          "policy")
TABLE_REQUEST: dict[str, Any] = {
    "TableName": TABLE, "BillingMode": "PAY_PER_REQUEST",
    "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
    "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}
ADD = {"TableName": TABLE, "Key": KEY, "UpdateExpression": "ADD n :one",
       "ExpressionAttributeValues": {":one": {"N": "1"}}}
PARTIQL = f"UPDATE \"{TABLE}\" SET n = n + 1 WHERE id = 'hits'"

#: Each way of writing the increment: its operation, its request, and the
#: IAM action a refusal names.
WAYS: dict[str, tuple[str, dict[str, Any], str]] = {
    "UpdateItem": ("UpdateItem", ADD, "UpdateItem"),
    "ExecuteStatement": ("ExecuteStatement", {"Statement": PARTIQL}, "PartiQLUpdate"),
    "TransactWriteItems": ("TransactWriteItems", {"TransactItems": [{"Update": ADD}]},
                           "UpdateItem"),
    "ExecuteTransaction": ("ExecuteTransaction",
                           {"TransactStatements": [{"Statement": PARTIQL}]}, "PartiQLUpdate"),
    "BatchExecuteStatement": ("BatchExecuteStatement",
                              {"Statements": [{"Statement": PARTIQL}]}, "PartiQLUpdate"),
}

Call = Callable[[str, str, dict[str, Any]], dict[str, Any]]


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name).lstrip("_")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Call]:
    path = tmp_path_factory.mktemp("keys") / "credentials.toml"
    path.write_text(CREDENTIALS)
    server = Serve("--in-memory", "--credentials", str(path)).start()
    clients = {key: server.client(key, secret) for key, secret in SECRETS.items()}

    def call(key: str, operation: str, request: dict[str, Any]) -> dict[str, Any]:
        try:
            answer: dict[str, Any] = getattr(clients[key], _snake(operation))(**request)
        except ClientError as error:
            if error.response["Error"]["Code"] == "AccessDeniedException":
                raise AccessDeniedException(error.response["Error"]["Message"]) from None
            raise
        return answer

    yield call
    server.kill()


@pytest.fixture(scope="module")
def in_process() -> Iterator[Call]:
    engine = Engine(Store())

    def call(key: str, operation: str, request: dict[str, Any]) -> dict[str, Any]:
        return engine.call(operation, request, "us-east-1", Access(key, "us-east-1"))

    yield call
    engine.close()


@pytest.fixture(params=["served", "in_process"])
def call(request: pytest.FixtureRequest) -> Call:
    return request.getfixturevalue(request.param)  # type: ignore[no-any-return]


def _hits(call: Call) -> int:
    item = call("AKIDOWNER", "GetItem", {"TableName": TABLE, "Key": KEY,
                                         "ConsistentRead": True}).get("Item")
    return 0 if item is None else int(item["n"]["N"])


@pytest.fixture()
def table(call: Call) -> Iterator[Call]:
    call("AKIDOWNER", "CreateTable", TABLE_REQUEST)
    call("AKIDOWNER", "PutItem", {"TableName": TABLE, "Item": {**KEY, "n": {"N": "0"}}})
    call("AKIDOWNER", "PutResourcePolicy", {"ResourceArn": ARN, "Policy": DENY})
    yield call
    call("AKIDOWNER", "DeleteTable", {"TableName": TABLE})


@pytest.mark.parametrize("way", sorted(WAYS))
def test_a_policy_denying_one_keys_user_refuses_its_increments_and_no_others(
        table: Call, way: str) -> None:
    call = table
    operation, request, action = WAYS[way]
    call("AKIDCOUNTER", operation, request)
    call("AKIDCOUNTER", operation, request)
    assert _hits(call) == 2
    with pytest.raises(AccessDeniedException) as refused:
        call("AKIDBLOCKED", operation, request)
    assert str(refused.value.message) == DENIED.format(action)
    assert _hits(call) == 2  # nothing changed
    call("AKIDOWNER", operation, request)
    assert _hits(call) == 3
    # what the policy does not deny, the key still does
    assert call("AKIDBLOCKED", "GetItem", {"TableName": TABLE, "Key": KEY})["Item"]["n"] == {
        "N": "3"}


def test_the_refusal_follows_the_policy(table: Call) -> None:
    call = table
    with pytest.raises(AccessDeniedException):
        call("AKIDBLOCKED", "UpdateItem", ADD)
    call("AKIDOWNER", "DeleteResourcePolicy", {"ResourceArn": ARN})
    call("AKIDBLOCKED", "UpdateItem", ADD)
    assert _hits(call) == 1
