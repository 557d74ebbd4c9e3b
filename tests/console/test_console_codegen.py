"""The code the console shows for each operation it sends, run as copied.

The page's own generator (``static/js/codegen.js``, imported in Chromium)
writes each request as a boto3, JavaScript SDK v3 and AWS CLI program; each
program runs in a subprocess whose environment holds only the variables
its opening comment names, against a real server, and must do what the
request does. The Java programs are checked for their shape (no Java SDK
here), the increment in the enhanced client's @DynamoDbAtomicCounter form.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from tallytest import JS_SDK

pytestmark = pytest.mark.browser

ENVIRONMENT = ("TALLYDB_ENDPOINT", "AWS_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")


def key(pk: str, sk: str) -> dict[str, Any]:
    return {"PK": {"S": pk}, "SK": {"S": sk}}


def requests(table: str) -> list[tuple[str, dict[str, Any]]]:
    """One request of each operation the console sends, in order."""
    return [
        ("GetItem", {"TableName": table, "Key": key("u#1", "a"), "ConsistentRead": True}),
        ("PutItem", {"TableName": table, "Item": {
            **key("u#3", "a"), "n": {"N": "1"}, "tags": {"SS": ["x", "y"]},
            "blob": {"B": "aGVsbG8="}, "on": {"BOOL": True}, "none": {"NULL": True},
            "list": {"L": [{"N": "1"}, {"M": {"deep": {"S": "v"}}}]}},
            "ConditionExpression": "attribute_not_exists(PK)"}),
        ("UpdateItem", {"TableName": table, "Key": key("u#1", "a"),
                        "UpdateExpression": "ADD #n :d",
                        "ExpressionAttributeNames": {"#n": "n"},
                        "ExpressionAttributeValues": {":d": {"N": "1"}},
                        "ReturnValues": "UPDATED_NEW"}),
        ("DeleteItem", {"TableName": table, "Key": key("u#2", "a"), "ReturnValues": "ALL_OLD"}),
        ("Query", {"TableName": table, "KeyConditionExpression": "#pk = :pk",
                   "ExpressionAttributeNames": {"#pk": "PK"},
                   "ExpressionAttributeValues": {":pk": {"S": "u#1"}},
                   "ScanIndexForward": False, "Limit": 1}),
        ("Scan", {"TableName": table, "Limit": 2, "ExclusiveStartKey": key("u#1", "a"),
                  "FilterExpression": "#n >= :min", "ExpressionAttributeNames": {"#n": "n"},
                  "ExpressionAttributeValues": {":min": {"N": "0"}}}),
        ("TransactWriteItems", {"TransactItems": [
            {"Update": {"TableName": table, "Key": key("u#1", "b"),
                        "UpdateExpression": "ADD #n :d", "ExpressionAttributeNames": {"#n": "n"},
                        "ExpressionAttributeValues": {":d": {"N": "10"}}}},
            {"Put": {"TableName": table, "Item": {**key("u#4", "a"), "n": {"N": "4"}}}},
        ]}),
        ("ExecuteStatement", {"Statement": f'UPDATE "{table}" SET n = n + 1 '
                                           "WHERE PK = ? AND SK = ?",
                              "Parameters": [{"S": "u#1"}, {"S": "a"}]}),
    ]


#: What each program prints that shows it read what the request reads.
PRINTED = {"GetItem": ['"n"', "5"], "DeleteItem": ["u#2"], "Query": ['"b"'], "Scan": ['"Count"']}


def seed(client: Any) -> str:
    table = f"code_{uuid.uuid4().hex[:8]}"
    client.create_table(
        TableName=table,
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"},
                   {"AttributeName": "SK", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"},
                              {"AttributeName": "SK", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    for pk, sk, n in (("u#1", "a", 5), ("u#1", "b", 6), ("u#2", "a", 7)):
        client.put_item(TableName=table, Item={**key(pk, sk), "n": {"N": str(n)}})
    return table


def state(client: Any, table: str) -> dict[str, Any]:
    items = client.scan(TableName=table, ConsistentRead=True)["Items"]
    for item in items:
        if "tags" in item:
            item["tags"]["SS"].sort()
        if "blob" in item:
            item["blob"]["B"] = bytes(item["blob"]["B"])
    return {f'{i["PK"]["S"]}/{i["SK"]["S"]}': i for i in items}


EXPECTED_AFTER = {
    "u#1/a": {**key("u#1", "a"), "n": {"N": "7"}},
    "u#1/b": {**key("u#1", "b"), "n": {"N": "16"}},
    "u#3/a": {**key("u#3", "a"), "n": {"N": "1"}, "tags": {"SS": ["x", "y"]},
              "blob": {"B": b"hello"}, "on": {"BOOL": True}, "none": {"NULL": True},
              "list": {"L": [{"N": "1"}, {"M": {"deep": {"S": "v"}}}]}},
    "u#4/a": {**key("u#4", "a"), "n": {"N": "4"}},
}


def generate(page: Any, language: str, operation: str, request: dict[str, Any]) -> str:
    return str(page.evaluate("""async ([language, operation, request]) => {
        const codegen = await import("/console/static/js/codegen.js");
        return codegen.FORMATS.find(([name]) => name === language)[1](operation, request);
    }""", [language, operation, request]))


def named(code: str) -> set[str]:
    """The variables a program's opening comment names."""
    comment = re.match(r"((?:(?:#|//).*\n)+)", code)
    assert comment, code[:200]
    return set(re.findall(r"\b(TALLYDB_ENDPOINT|AWS_\w+)\b", comment.group(1)))


def only_named(code: str, url: str, extra: dict[str, str] | None = None) -> dict[str, str]:
    assert named(code) == set(ENVIRONMENT), code[:600]
    values = {"TALLYDB_ENDPOINT": url, "AWS_REGION": "us-east-1",
              "AWS_ACCESS_KEY_ID": "anyone", "AWS_SECRET_ACCESS_KEY": "anything"}
    return {**values, **(extra or {})}


def run(command: list[str], env: dict[str, str], cwd: Path | None = None) -> str:
    done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, f"{command}\n{done.stderr[-3000:]}"
    return done.stdout


def run_all(console: Any, language: str, runner: Any, binary: bool = True) -> None:
    client = console.server.client()
    table = seed(client)
    page = console.open("#/builder")
    expect(page.locator(".live.on")).to_be_visible()
    for operation, request in requests(table):
        code = generate(page, language, operation, request)
        printed = runner(code, only_named(code, console.server.url))
        for text in PRINTED.get(operation, ()):
            assert text in printed.replace("'", '"'), (operation, printed)
    after = state(client, table)
    expected = json.loads(json.dumps(EXPECTED_AFTER, default=bytes.decode))
    if not binary:  # AWS CLI v1 stores a binary value's text as it is
        after["u#3/a"].pop("blob")
        expected["u#3/a"].pop("blob")
    assert json.loads(json.dumps(after, default=bytes.decode)) == expected


def test_the_boto3_programs_do_what_the_requests_do(console: Any) -> None:
    run_all(console, "boto3", lambda code, env: run([sys.executable, "-c", code], env))


def test_the_javascript_programs_do_what_the_requests_do(
        console: Any, node: str, tmp_path: Path) -> None:
    (tmp_path / "node_modules").symlink_to(JS_SDK, target_is_directory=True)

    def runner(code: str, env: dict[str, str]) -> str:
        program = tmp_path / f"snippet_{uuid.uuid4().hex[:6]}.mjs"
        program.write_text(code)
        return run([node, str(program)], env, cwd=tmp_path)

    run_all(console, "JavaScript", runner)


def test_the_aws_cli_commands_do_what_the_requests_do(console: Any, aws_cli: str) -> None:
    # The programs call `aws` by name: the one found (or installed) comes first on PATH.
    path = os.pathsep.join([str(Path(aws_cli).parent), os.environ["PATH"]])
    aws = aws_cli
    version = subprocess.run([aws, "--version"], capture_output=True, text=True, check=False)
    run_all(console, "AWS CLI",
            lambda code, env: run(["bash", "-c", code], {**env, "PATH": path,
                                                         "HOME": os.environ.get("HOME", "/")}),
            binary=(version.stdout + version.stderr).startswith("aws-cli/2"))


def test_the_java_programs_name_every_member_and_the_increment_is_an_atomic_counter(
        console: Any) -> None:
    page = console.open("#/builder")
    expect(page.locator(".live.on")).to_be_visible()
    for operation, request in requests("videos"):
        code = generate(page, "Java", operation, request)
        assert named(code) == set(ENVIRONMENT)
        assert code.count("{") == code.count("}") and code.count("(") == code.count(")")
        if operation == "UpdateItem":
            # the first update writes startValue, each one adds delta: as ADD does
            assert "@DynamoDbAtomicCounter(delta = 1, startValue = 1)" in code
            assert ("import software.amazon.awssdk.enhanced.dynamodb.extensions.annotations."
                    "DynamoDbAtomicCounter;") in code
            assert '@DynamoDbAttribute("n")' in code
            assert "table.updateItem(r -> r.item(key).ignoreNulls(true))" in code
            continue
        builder = f"client.{operation[0].lower()}{operation[1:]}({operation}Request.builder()"
        assert builder in code, code
        for member in request:
            assert f".{member[0].lower()}{member[1:]}(" in code, (operation, member)
    code = generate(page, "Java", "PutItem", requests("videos")[1][1])
    assert 'AttributeValue.fromSs(List.of("x", "y"))' in code
    assert 'SdkBytes.fromByteArray(Base64.getDecoder().decode("aGVsbG8="))' in code
    assert code.count('"u#3"') == 1 and json.dumps("PK") in code
