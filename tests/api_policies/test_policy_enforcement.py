"""A table's resource policy applied to the keys of ``--credentials`` that
name their principal: a Deny of UpdateItem refuses one key's ADD through
the JSON API, PartiQL and a transaction, while another key still counts
(boto3 against a real ``tallydb serve``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from botocore.config import Config
from botocore.exceptions import ClientError
from tallytest import TallyServer, session_client, unique_name

ACCOUNT = "000000000000"
ALICE = f"arn:aws:iam::{ACCOUNT}:user/alice"
BOB = f"arn:aws:iam::{ACCOUNT}:user/bob"
CREDENTIALS = f"""\
[keys.AKIDALICE]
secret = "alice-secret"
principal = "{ALICE}"
[keys.AKIDBOB]
secret = "bob-secret"
principal = "{BOB}"
"""


def _client(server: TallyServer, key: str, secret: str) -> Any:
    assert server.url is not None
    return session_client(
        "dynamodb", endpoint_url=server.url, region_name="us-east-1",
        aws_access_key_id=key, aws_secret_access_key=secret,
        config=Config(retries={"total_max_attempts": 1}))


def _denied(table_arn: str) -> str:
    # IAM's message for an explicit Deny in a resource-based policy, as
    # DynamoDB answers it (AccessDeniedException, HTTP 400).
    return (f"User: {ALICE} is not authorized to perform: dynamodb:UpdateItem on resource: "
            f"{table_arn} with an explicit deny in a resource-based policy")


def _refused(info: pytest.ExceptionInfo[ClientError], table_arn: str) -> None:
    response = info.value.response
    assert response["Error"]["Code"] == "AccessDeniedException"
    assert response["Error"]["Message"] == _denied(table_arn)
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 400


@pytest.mark.timeout(300)
def test_a_deny_refuses_one_principals_add_everywhere_and_another_still_counts(
    tallydb_server_factory: Callable[..., TallyServer], tmp_path: Path,
) -> None:
    keys = tmp_path / "keys.toml"
    keys.write_text(CREDENTIALS)
    server = tallydb_server_factory(extra_args=("--credentials", str(keys)))
    alice = _client(server, "AKIDALICE", "alice-secret")
    bob = _client(server, "AKIDBOB", "bob-secret")
    table = unique_name("policed")
    table_arn = f"arn:aws:dynamodb:us-east-1:{ACCOUNT}:table/{table}"
    # ExecuteStatement's UPDATE is authorized as dynamodb:PartiQLUpdate, as
    # on DynamoDB, so the Deny names both.
    policy = json.dumps({"Version": "2012-10-17", "Statement": [{
        "Effect": "Deny", "Principal": {"AWS": ALICE},
        "Action": ["dynamodb:UpdateItem", "dynamodb:PartiQLUpdate"], "Resource": table_arn}]})
    bob.create_table(TableName=table, BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}],
                     ResourcePolicy=policy)
    key = {"PK": {"S": "hits"}}
    add = {"TableName": table, "Key": key, "UpdateExpression": "ADD n :one",
           "ExpressionAttributeValues": {":one": {"N": "1"}}}
    statement = f"UPDATE \"{table}\" SET n = n + 1 WHERE PK = 'hits'"

    bob.update_item(**add)
    with pytest.raises(ClientError) as info:
        alice.update_item(**add)
    _refused(info, table_arn)
    with pytest.raises(ClientError) as info:
        alice.execute_statement(Statement=statement)
    assert info.value.response["Error"]["Code"] == "AccessDeniedException"
    with pytest.raises(ClientError) as info:
        alice.transact_write_items(TransactItems=[{"Update": add}])
    _refused(info, table_arn)

    bob.execute_statement(Statement=statement)
    bob.transact_write_items(TransactItems=[{"Update": add}])
    item = bob.get_item(TableName=table, Key=key, ConsistentRead=True)["Item"]
    assert item["n"] == {"N": "3"}  # bob's three, none of alice's
