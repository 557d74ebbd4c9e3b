"""``serve --table-delays CREATE,DELETE,UPDATE``: DynamoDB's table lifecycle,
CREATING, UPDATING and DELETING for a set time (off by default).

DynamoDB's answers: the item operations answer ResourceNotFoundException for
a table CREATING or DELETING (architect/dynalite, whose item operations look
a table up with its status checked); DeleteTable and UpdateTable of a table
CREATING or UPDATING are ResourceInUseException (DeleteTable's API reference),
worded as dynalite words them; DeleteTable of a table DELETING answers again
without error (the same reference). botocore's waiters wait for each state
to pass. Each case runs against ``tallydb serve`` and in process.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError
from tallytest import ACCESS_KEY, CLIENT_CONFIG, SECRET_KEY, error_of, session_client

from tallydb.engine.api import Engine, TableDelays
from tallydb.engine.storage import Store
from tallydb.toolkit import inprocess

#: A state that lasts as long as any test: what it answers meanwhile is checked.
LONG = "600000"
#: A state short enough to wait out (waiters poll until it has passed).
SHORT = "150"
KEY = {"pk": {"S": "a"}}
IN_USE = "Attempt to change a resource which is still in use: Table is being {}: {}"
WAITER = {"Delay": 0.2, "MaxAttempts": 300}  # up to a minute, on a busy machine


@pytest.fixture(params=["server", "inprocess"])
def delayed(request: pytest.FixtureRequest, tallydb_server_factory: Callable[..., Any]
            ) -> Iterator[Callable[[str], Any]]:
    """``delayed("CREATE,DELETE,UPDATE")``: a client of a fresh server (or
    engine) with those delays."""
    engines: list[Engine] = []

    def make(delays: str) -> Any:
        if request.param == "server":
            server = tallydb_server_factory(in_memory=True, extra_args=("--table-delays", delays))
            return session_client(
                "dynamodb", endpoint_url=server.url, region_name="us-east-1",
                aws_access_key_id=ACCESS_KEY, aws_secret_access_key=SECRET_KEY,
                config=CLIENT_CONFIG)
        engine = Engine(Store(None), table_delays=TableDelays.parse(delays))
        engines.append(engine)
        return inprocess.client(engine, config=CLIENT_CONFIG)

    yield make
    for engine in engines:
        engine.close()


def create(ddb: Any, name: str = "plays", index: bool = False) -> dict[str, Any]:
    request: dict[str, Any] = {
        "TableName": name, "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]}
    if index:
        request["AttributeDefinitions"].append({"AttributeName": "g", "AttributeType": "S"})
        request["GlobalSecondaryIndexes"] = [{
            "IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"}}]
    description: dict[str, Any] = ddb.create_table(**request)["TableDescription"]
    return description


def refused(call: Callable[[], Any]) -> tuple[str, str, int]:
    with pytest.raises(ClientError) as excinfo:
        call()
    return error_of(excinfo)


def test_a_table_creating_answers_no_item_operation(delayed: Callable[[str], Any]) -> None:
    ddb = delayed(f"{LONG},0,0")
    assert create(ddb, index=True)["TableStatus"] == "CREATING"
    table = ddb.describe_table(TableName="plays")["Table"]
    assert table["TableStatus"] == "CREATING"
    assert table["GlobalSecondaryIndexes"][0]["IndexStatus"] == "CREATING"
    assert ddb.list_tables()["TableNames"] == ["plays"]
    not_found = ("ResourceNotFoundException", "Requested resource not found", 400)
    assert refused(lambda: ddb.put_item(TableName="plays", Item=KEY)) == not_found
    assert refused(lambda: ddb.get_item(TableName="plays", Key=KEY)) == not_found
    assert refused(lambda: ddb.query(
        TableName="plays", KeyConditionExpression="pk = :a",
        ExpressionAttributeValues={":a": {"S": "a"}})) == not_found
    in_use = ("ResourceInUseException", IN_USE.format("created", "plays"), 400)
    assert refused(lambda: ddb.delete_table(TableName="plays")) == in_use
    assert refused(lambda: ddb.update_table(
        TableName="plays", BillingMode="PROVISIONED",
        ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1})) == in_use
    # validation still comes first: a malformed request is refused as such
    assert refused(lambda: ddb.get_item(TableName="plays", Key={"pk": {"N": "x"}}))[0] == (
        "ValidationException")


def test_waiters_wait_for_creating_and_deleting_to_pass(delayed: Callable[[str], Any]) -> None:
    ddb = delayed(f"{SHORT},{SHORT},{SHORT}")
    create(ddb)
    ddb.get_waiter("table_exists").wait(TableName="plays", WaiterConfig=WAITER)
    assert ddb.describe_table(TableName="plays")["Table"]["TableStatus"] == "ACTIVE"
    ddb.put_item(TableName="plays", Item=KEY)
    assert ddb.delete_table(TableName="plays")["TableDescription"]["TableStatus"] == "DELETING"
    ddb.get_waiter("table_not_exists").wait(TableName="plays", WaiterConfig=WAITER)
    assert ddb.list_tables()["TableNames"] == []
    create(ddb)  # the name is free again
    ddb.get_waiter("table_exists").wait(TableName="plays", WaiterConfig=WAITER)
    assert "Item" not in ddb.get_item(TableName="plays", Key=KEY)


def test_a_table_deleting(delayed: Callable[[str], Any]) -> None:
    ddb = delayed(f"0,{LONG},0")
    create(ddb)
    ddb.put_item(TableName="plays", Item=KEY)
    ddb.delete_table(TableName="plays")
    assert ddb.describe_table(TableName="plays")["Table"]["TableStatus"] == "DELETING"
    assert ddb.list_tables()["TableNames"] == ["plays"]
    assert refused(lambda: ddb.get_item(TableName="plays", Key=KEY)) == (
        "ResourceNotFoundException", "Requested resource not found", 400)
    # DeleteTable of a table DELETING: no error (DeleteTable's API reference)
    assert ddb.delete_table(TableName="plays")["TableDescription"]["TableStatus"] == "DELETING"
    assert refused(lambda: create(ddb))[0] == "ResourceInUseException"
    assert refused(lambda: ddb.update_table(
        TableName="plays", BillingMode="PROVISIONED",
        ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1})) == (
        "ResourceInUseException", IN_USE.format("deleted", "plays"), 400)


def test_a_table_updating_is_read_and_written(delayed: Callable[[str], Any]) -> None:
    ddb = delayed(f"0,0,{LONG}")
    create(ddb)
    answer = ddb.update_table(
        TableName="plays", BillingMode="PROVISIONED",
        ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1})
    assert answer["TableDescription"]["TableStatus"] == "UPDATING"
    assert ddb.describe_table(TableName="plays")["Table"]["TableStatus"] == "UPDATING"
    ddb.put_item(TableName="plays", Item=KEY)
    assert ddb.get_item(TableName="plays", Key=KEY)["Item"] == KEY
    in_use = ("ResourceInUseException", IN_USE.format("updated", "plays"), 400)
    assert refused(lambda: ddb.delete_table(TableName="plays")) == in_use
    assert refused(lambda: ddb.update_table(
        TableName="plays", ProvisionedThroughput={"ReadCapacityUnits": 2,
                                                  "WriteCapacityUnits": 2})) == in_use


def test_without_delays_tables_change_state_at_once(ddb: Any, make_table: Callable[..., str]
                                                    ) -> None:
    name = make_table("plain", hash=("pk", "S"))
    assert ddb.describe_table(TableName=name)["Table"]["TableStatus"] == "ACTIVE"
    ddb.put_item(TableName=name, Item={"pk": {"S": "a"}})


@pytest.mark.parametrize("value", ["1,2", "a,b,c", "-1,0,0", "1,2,3,4"])
def test_a_malformed_delay_is_refused(value: str) -> None:
    with pytest.raises(ValueError):
        TableDelays.parse(value)
