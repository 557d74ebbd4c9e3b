"""DynamoDB's order of checks, with credentials, on a request that is both
malformed and aimed at a table that does not exist: the signature first,
then what the key may touch, then the request's own validation, and only
then the lookup (``engine/api/_pipeline.py`` has the order and its
sources). Raw signed requests against a real ``tallydb serve``, since an
SDK would refuse some of these malformed requests before sending them.
"""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from serverkit import TIMEOUT, Response, Serve

from tallydb.server.auth import MISSING_TOKEN

M = "no-such-table"
CREDENTIALS = f"""\
[keys.AKIDADMIN]
secret = "admin-secret"
[keys.AKIDMISSING]
secret = "missing-secret"
tables = ["{M}"]
[keys.AKIDOTHER]
secret = "other-secret"
tables = ["other"]
"""
SECRETS = {"AKIDADMIN": "admin-secret", "AKIDMISSING": "missing-secret",
           "AKIDOTHER": "other-secret"}
INVALID = "One or more parameter values were invalid: "
TWO_TYPES = ("Supplied AttributeValue has more than one datatypes set, must contain exactly "
             "one of the supported datatypes")

#: A request malformed beyond its shape (the operation's own table-free
#: checks), naming the missing table, and its ValidationException's text
#: (the sources: tests/api_validation/test_validation_first.py).
CASES: dict[str, tuple[dict[str, Any], str]] = {
    "GetItem": ({"TableName": M, "Key": {"pk": {"S": "a", "N": "1"}}}, TWO_TYPES),
    "PutItem": ({"TableName": M, "Item": {"pk": {"S": "a"}}, "ReturnValues": "ALL_NEW"},
                "ReturnValues can only be ALL_OLD or NONE"),
    "UpdateItem": ({"TableName": M, "Key": {"pk": {"S": "a", "N": "1"}},
                    "UpdateExpression": "SET a = :a",
                    "ExpressionAttributeValues": {":a": {"S": "b"}}}, TWO_TYPES),
    "Query": ({"TableName": M, "KeyConditionExpression": "pk = :a"},
              "Invalid KeyConditionExpression: An expression attribute value used in "
              "expression is not defined; attribute value: :a"),
    "BatchWriteItem": ({"RequestItems": {M: [{"PutRequest": {"Item": {"pk": {"SS": []}}}}]}},
                       INVALID + "An string set  may not be empty"),
}
#: The same requests well formed: only the lookup can refuse them.
WELL_FORMED: dict[str, dict[str, Any]] = {
    "GetItem": {"TableName": M, "Key": {"pk": {"S": "a"}}},
    "PutItem": {"TableName": M, "Item": {"pk": {"S": "a"}}},
    "UpdateItem": {"TableName": M, "Key": {"pk": {"S": "a"}}, "UpdateExpression": "SET a = :a",
                   "ExpressionAttributeValues": {":a": {"S": "b"}}},
    "Query": {"TableName": M, "KeyConditionExpression": "pk = :a",
              "ExpressionAttributeValues": {":a": {"S": "a"}}},
    "BatchWriteItem": {"RequestItems": {M: [{"PutRequest": {"Item": {"pk": {"S": "a"}}}}]}},
}


def send(url: str, operation: str, body: dict[str, Any], key: str | None) -> Response:
    """One request, signed by ``key`` as botocore signs (None: unsigned)."""
    data = json.dumps(body).encode()
    request = AWSRequest(method="POST", url=url + "/", data=data, headers={
        "Content-Type": "application/x-amz-json-1.0",
        "X-Amz-Target": f"DynamoDB_20120810.{operation}"})
    if key is not None:
        SigV4Auth(Credentials(key, SECRETS[key]), "dynamodb", "us-east-1").add_auth(request)
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=TIMEOUT)
    try:
        conn.request("POST", "/", body=data, headers=dict(request.headers.items()))
        answer = conn.getresponse()
        return Response(answer.status, {k.lower(): v for k, v in answer.getheaders()},
                        answer.read())
    finally:
        conn.close()


def answer(response: Response) -> tuple[int, str, str]:
    body = response.json
    return response.status, body["__type"].rpartition("#")[2], body.get("message", "")


def denied(key: str, action: str, table: str) -> str:
    # DynamoDB's message for an action no identity-based policy allows
    # (tests/server/test_access.py has its source).
    return (f"User: arn:aws:iam::000000000000:user/{key} is not authorized to perform: "
            f"dynamodb:{action} on resource: arn:aws:dynamodb:us-east-1:000000000000:table/"
            f"{table} because no identity-based policy allows the dynamodb:{action} action")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serve]:
    path = tmp_path_factory.mktemp("keys") / "credentials.toml"
    path.write_text(CREDENTIALS)
    server = Serve("--in-memory", "--credentials", str(path)).start()
    try:
        yield server
    finally:
        server.kill()


@pytest.mark.parametrize("operation", sorted(CASES))
def test_an_unsigned_request_is_refused_first(server: Serve, operation: str) -> None:
    # Authentication comes before anything is read of the request (IAM user
    # guide, "Access management for AWS resources": the enforcement code
    # checks that the principal is authenticated, then authorized).
    assert server.url is not None
    assert answer(send(server.url, operation, CASES[operation][0], None)) == (
        400, "MissingAuthenticationTokenException", MISSING_TOKEN)


@pytest.mark.parametrize("operation", sorted(CASES))
def test_a_key_that_may_not_touch_the_table_is_denied_before_validation(
        server: Serve, operation: str) -> None:
    # Authorization, from what the request names, before the service acts on
    # it (the same guide: authorized, then the request's actions run).
    assert server.url is not None
    assert answer(send(server.url, operation, CASES[operation][0], "AKIDOTHER")) == (
        400, "AccessDeniedException", denied("AKIDOTHER", operation, M))


@pytest.mark.parametrize("key", ["AKIDMISSING", "AKIDADMIN"])
@pytest.mark.parametrize("operation", sorted(CASES))
def test_an_allowed_key_meets_validation_before_the_lookup(
        server: Serve, operation: str, key: str) -> None:
    assert server.url is not None
    body, message = CASES[operation]
    assert answer(send(server.url, operation, body, key)) == (
        400, "ValidationException", message)
    # well formed, the same request meets the lookup
    assert answer(send(server.url, operation, WELL_FORMED[operation], key)) == (
        400, "ResourceNotFoundException", "Requested resource not found")
