"""The seed articles' examples, verbatim, through boto3 (server and in-process).

shared/seeds/ holds the public articles tallydb started from; every example in
them must work against tallydb exactly as it works against DynamoDB. Each test
names the article it comes from. Where an article implies state it does not
show (a table, a seeded item), the test creates it first.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from botocore.exceptions import ClientError, ParamValidationError
from tallytest import Backend, assert_error

VIDEO_KEY = {"PK": {"S": "VID#9f3a"}, "SK": {"S": "STATS#TOTAL"}}

# DynamoDB's messages (see tests/test_errors.py for where each is recorded).
MISSING_OPERAND = "The provided expression refers to an attribute that does not exist in the item"
WRONG_OPERAND_TYPE = "An operand in the update expression has an incorrect data type"
CONDITION_FAILED = "The conditional request failed"


@pytest.fixture
def videos_table(make_table: Callable[..., str]) -> str:
    """``videos``: partition key PK, sort key SK (000: "Model a per-video stats item")."""
    return make_table("videos", hash=("PK", "S"), range=("SK", "S"), exact=True)


def play_count(ddb: Any, table: str = "videos") -> str | None:
    item = ddb.get_item(TableName=table, Key=VIDEO_KEY, ConsistentRead=True).get("Item")
    if item is None or "play_count" not in item:
        return None
    return str(item["play_count"]["N"])


# -- 000: "DynamoDB Atomic Counters" ------------------------------------------


def test_add_on_a_missing_attribute_starts_from_zero(ddb: Any, videos_table: str) -> None:
    # 000: "ADD works even when play_count doesn't exist yet: ... the first play creates it at 1."
    response = ddb.update_item(
        TableName="videos",
        Key={"PK": {"S": "VID#9f3a"}, "SK": {"S": "STATS#TOTAL"}},
        UpdateExpression="ADD play_count :one",
        ExpressionAttributeValues={":one": {"N": "1"}},
        ReturnValues="UPDATED_NEW",
    )
    assert response["Attributes"] == {"play_count": {"N": "1"}}
    response = ddb.update_item(
        TableName="videos",
        Key={"PK": {"S": "VID#9f3a"}, "SK": {"S": "STATS#TOTAL"}},
        UpdateExpression="ADD play_count :one",
        ExpressionAttributeValues={":one": {"N": "1"}},
        ReturnValues="UPDATED_NEW",
    )
    assert response["Attributes"] == {"play_count": {"N": "2"}}
    item = ddb.get_item(TableName="videos", Key=VIDEO_KEY, ConsistentRead=True)["Item"]
    assert item == {**VIDEO_KEY, "play_count": {"N": "2"}}


def test_add_on_the_article_row_makes_41_into_42(ddb: Any, videos_table: str) -> None:
    # 000's table: play_count is 41; "DynamoDB reads play_count, adds 1, and writes the result".
    ddb.put_item(TableName="videos", Item={**VIDEO_KEY, "play_count": {"N": "41"}})
    response = ddb.update_item(
        TableName="videos",
        Key=VIDEO_KEY,
        UpdateExpression="ADD play_count :one",
        ExpressionAttributeValues={":one": {"N": "1"}},
        ReturnValues="UPDATED_NEW",
    )
    assert response["Attributes"] == {"play_count": {"N": "42"}}


def test_ten_concurrent_plays_produce_ten(ddb: Any, videos_table: str) -> None:
    # 000: "Ten concurrent plays produce +10, every time".
    def play(_: int) -> None:
        ddb.update_item(
            TableName="videos",
            Key=VIDEO_KEY,
            UpdateExpression="ADD play_count :one",
            ExpressionAttributeValues={":one": {"N": "1"}},
        )

    with ThreadPoolExecutor(10) as pool:
        list(pool.map(play, range(10)))
    assert play_count(ddb) == "10"


def test_set_plus_on_a_missing_attribute_is_refused(ddb: Any, videos_table: str) -> None:
    # 000's comparison table: SET play_count = play_count + :one on a missing
    # attribute "Errors — needs if_not_exists". DynamoDB: ValidationException,
    # and nothing is written (the item is not created either).
    with pytest.raises(ClientError) as excinfo:
        ddb.update_item(
            TableName="videos",
            Key=VIDEO_KEY,
            UpdateExpression="SET play_count = play_count + :one",
            ExpressionAttributeValues={":one": {"N": "1"}},
            ReturnValues="UPDATED_NEW",
        )
    assert_error(excinfo, "ValidationException", MISSING_OPERAND)
    assert "Item" not in ddb.get_item(TableName="videos", Key=VIDEO_KEY, ConsistentRead=True)


def test_set_with_if_not_exists_guard(ddb: Any, videos_table: str) -> None:
    # 000: "SET play_count = if_not_exists(play_count, :zero) + :one".
    for expected in ("1", "2", "3"):
        response = ddb.update_item(
            TableName="videos",
            Key=VIDEO_KEY,
            UpdateExpression="SET play_count = if_not_exists(play_count, :zero) + :one",
            ExpressionAttributeValues={":zero": {"N": "0"}, ":one": {"N": "1"}},
            ReturnValues="UPDATED_NEW",
        )
        assert response["Attributes"] == {"play_count": {"N": expected}}


def test_conditional_update_succeeds_once_and_its_retry_fails(
    ddb: Any, videos_table: str
) -> None:
    # 000, "When you need exactness": SET play_count = :next, ConditionExpression
    # play_count = :current, :next = 42, :current = 41, on the row holding 41.
    ddb.put_item(TableName="videos", Item={**VIDEO_KEY, "play_count": {"N": "41"}})
    request = {
        "TableName": "videos",
        "Key": {"PK": {"S": "VID#9f3a"}, "SK": {"S": "STATS#TOTAL"}},
        "UpdateExpression": "SET play_count = :next",
        "ConditionExpression": "play_count = :current",
        "ExpressionAttributeValues": {":next": {"N": "42"}, ":current": {"N": "41"}},
    }
    response = ddb.update_item(**request)
    assert "Attributes" not in response  # ReturnValues defaults to NONE
    assert play_count(ddb) == "42"

    # "if the first write already moved play_count to 42, the condition
    # play_count = 41 fails the second time and nothing changes."
    with pytest.raises(ClientError) as excinfo:
        ddb.update_item(**request)
    assert_error(excinfo, "ConditionalCheckFailedException", CONDITION_FAILED)
    assert "Item" not in excinfo.value.response  # only sent back when asked for
    assert play_count(ddb) == "42"

    # The same retry asking for the item as it stood (ReturnValuesOnConditionCheckFailure).
    with pytest.raises(ddb.exceptions.ConditionalCheckFailedException) as excinfo2:
        ddb.update_item(**request, ReturnValuesOnConditionCheckFailure="ALL_OLD")
    assert excinfo2.value.response["Item"] == {**VIDEO_KEY, "play_count": {"N": "42"}}
    assert play_count(ddb) == "42"


def test_add_is_numbers_and_sets_only(ddb: Any, videos_table: str) -> None:
    # 000, Pitfalls: "ADD is numbers and sets only. It won't touch strings".
    ddb.put_item(TableName="videos", Item={**VIDEO_KEY, "play_count": {"N": "41"},
                                           "title": {"S": "intro"}})
    # A string operand is refused before the item is read.
    with pytest.raises(ClientError) as excinfo:
        ddb.update_item(
            TableName="videos",
            Key=VIDEO_KEY,
            UpdateExpression="ADD play_count :one",
            ExpressionAttributeValues={":one": {"S": "1"}},
        )
    assert_error(excinfo, "ValidationException",
        "Invalid UpdateExpression: Incorrect operand type for operator or function; "
        "operator: ADD, operand type: STRING")
    # A number added to a stored string is refused when the item is read.
    with pytest.raises(ClientError) as excinfo:
        ddb.update_item(
            TableName="videos",
            Key=VIDEO_KEY,
            UpdateExpression="ADD title :one",
            ExpressionAttributeValues={":one": {"N": "1"}},
        )
    assert_error(excinfo, "ValidationException", WRONG_OPERAND_TYPE)
    item = ddb.get_item(TableName="videos", Key=VIDEO_KEY, ConsistentRead=True)["Item"]
    assert item == {**VIDEO_KEY, "play_count": {"N": "41"}, "title": {"S": "intro"}}


def test_batch_write_item_cannot_carry_an_update(
    ddb: Any, backend: Backend, videos_table: str
) -> None:
    # 000, Pitfalls: "No batch increment. BatchWriteItem is put/delete only".
    ddb.put_item(TableName="videos", Item={**VIDEO_KEY, "play_count": {"N": "41"}})
    update = {
        "UpdateRequest": {
            "Key": VIDEO_KEY,
            "UpdateExpression": "ADD play_count :one",
            "ExpressionAttributeValues": {":one": {"N": "1"}},
        }
    }
    # boto3 refuses it before sending: WriteRequest has no UpdateRequest member.
    with pytest.raises(ParamValidationError, match="UpdateRequest"):
        ddb.batch_write_item(RequestItems={"videos": [update]})

    # Sent anyway, DynamoDB ignores the unknown member, which leaves a
    # WriteRequest with neither PutRequest nor DeleteRequest; for that DynamoDB
    # answers (as recorded in dynalite's test/batchWriteItem.js, "empty item in
    # RequestItems") this ValidationException, and writes nothing.
    raw = backend.raw("BatchWriteItem", {"RequestItems": {"videos": [update]}})
    assert raw.status == 400
    assert raw.error_code == "ValidationException"
    assert raw.message == (
        "Supplied AttributeValue has more than one datatypes set, "
        "must contain exactly one of the supported datatypes"
    )
    assert play_count(ddb) == "41"

    # What BatchWriteItem does take: PutRequest and DeleteRequest.
    other = {"PK": {"S": "VID#0001"}, "SK": {"S": "STATS#TOTAL"}}
    response = ddb.batch_write_item(RequestItems={"videos": [
        {"PutRequest": {"Item": {**other, "play_count": {"N": "7"}}}},
        {"DeleteRequest": {"Key": VIDEO_KEY}},
    ]})
    assert response["UnprocessedItems"] == {}
    assert play_count(ddb) is None
    got = ddb.get_item(TableName="videos", Key=other, ConsistentRead=True)["Item"]
    assert got["play_count"] == {"N": "7"}


# -- 001 / 004: "How to increment an atomic counter on Amazon DynamoDB?" -------


@pytest.fixture
def demo_table(make_table: Callable[..., str], monkeypatch: pytest.MonkeyPatch) -> str:
    """The article's table, found through os.environ['DEMO_TABLE'] as its code does."""
    name = make_table("demo", hash=("id", "S"))
    monkeypatch.setenv("DEMO_TABLE", name)
    return name


def increase_usage(dynamodbClient: Any, key: str, usage: str) -> Any:
    # 004's example code, verbatim.
    res = dynamodbClient.update_item(
            TableName = os.environ['DEMO_TABLE'],
            Key = {
                'id': {
                    'S': key
                }
            },
            ExpressionAttributeNames = {
                '#usage': 'usage'
            },
            ExpressionAttributeValues = {
                ':increase': {
                    'N': usage,
                },
            },
            UpdateExpression = 'SET #usage = #usage + :increase',
            # UpdateExpression = 'ADD #usage :increase',
            ReturnValues = 'UPDATED_NEW'
          )
    return res


def test_set_usage_plus_increase_returns_updated_new(ddb: Any, demo_table: str) -> None:
    # 001: "Usage record in DDB for user A is 5 units. User A sends 3 consecutive
    # requests: +7 units, +4 units and +10 units respectively."
    ddb.put_item(TableName=demo_table, Item={"id": {"S": "user-A"}, "usage": {"N": "5"}})
    totals = [increase_usage(ddb, "user-A", units)["Attributes"] for units in ("7", "4", "10")]
    assert totals == [{"usage": {"N": "12"}}, {"usage": {"N": "16"}}, {"usage": {"N": "26"}}]


def test_add_usage_is_the_same_increment(ddb: Any, demo_table: str) -> None:
    # 001: "You can use either one of the following expressions: ... 2 ADD #usage :increase".
    ddb.put_item(TableName=demo_table, Item={"id": {"S": "user-A"}, "usage": {"N": "5"}})
    res = ddb.update_item(
        TableName=os.environ["DEMO_TABLE"],
        Key={"id": {"S": "user-A"}},
        ExpressionAttributeNames={"#usage": "usage"},
        ExpressionAttributeValues={":increase": {"N": "7"}},
        UpdateExpression="ADD #usage :increase",
        ReturnValues="UPDATED_NEW",
    )
    assert res["Attributes"] == {"usage": {"N": "12"}}


def test_usage_needs_its_placeholder(ddb: Any, demo_table: str) -> None:
    # Why the article writes #usage: USAGE is one of DynamoDB's reserved words,
    # and a reserved word used unescaped is refused.
    ddb.put_item(TableName=demo_table, Item={"id": {"S": "user-A"}, "usage": {"N": "5"}})
    with pytest.raises(ClientError) as excinfo:
        ddb.update_item(
            TableName=demo_table,
            Key={"id": {"S": "user-A"}},
            ExpressionAttributeValues={":increase": {"N": "7"}},
            UpdateExpression="SET usage = usage + :increase",
        )
    assert_error(excinfo, "ValidationException",
        "Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: usage")
    item = ddb.get_item(TableName=demo_table, Key={"id": {"S": "user-A"}}, ConsistentRead=True)
    assert item["Item"]["usage"] == {"N": "5"}


def test_set_usage_on_a_user_without_usage_is_refused(ddb: Any, demo_table: str) -> None:
    # The article seeds its record first; without it, SET #usage = #usage + ... has
    # no operand and DynamoDB refuses it (ADD would start from 0).
    with pytest.raises(ClientError) as excinfo:
        increase_usage(ddb, "user-B", "7")
    assert_error(excinfo, "ValidationException", MISSING_OPERAND)


# -- 002: atomic counters with boto3 (siteVisits) -------------------------------


@pytest.fixture
def site_visits(make_table: Callable[..., str]) -> str:
    # "a DynamoDB table called `siteVisits` that has a simple primary key and a
    # single partition key attribute of `siteUrl`".
    return make_table("siteVisits", hash=("siteUrl", "S"), exact=True)


def test_site_visits_set_visits_plus_inc(ddb: Any, site_visits: str) -> None:
    # "an item that is just added to the table": visits 0 (a number: "this can
    # only be done if the visits attribute has a type of number").
    ddb.put_item(TableName="siteVisits",
                 Item={"siteUrl": {"S": "https://www.fernandomc.com/"}, "visits": {"N": "0"}})
    dynamodb = ddb
    for expected in ("1", "2"):
        response = dynamodb.update_item(
            TableName='siteVisits',
            Key={
                'siteUrl':{'S': "https://www.fernandomc.com/"}
            },
            UpdateExpression='SET visits = visits + :inc',
            ExpressionAttributeValues={
                ':inc': {'N': '1'}
            },
            ReturnValues="UPDATED_NEW"
        )
        assert response["Attributes"] == {"visits": {"N": expected}}


def test_site_visits_as_a_string_cannot_be_incremented(ddb: Any, site_visits: str) -> None:
    # 002: the increment "can only be done if the visits attribute has a type of
    # number"; a visits stored as the string "0" is refused, unchanged.
    item = {"siteUrl": {"S": "https://www.fernandomc.com/"}, "visits": {"S": "0"}}
    ddb.put_item(TableName="siteVisits", Item=item)
    with pytest.raises(ClientError) as excinfo:
        ddb.update_item(
            TableName="siteVisits",
            Key={"siteUrl": {"S": "https://www.fernandomc.com/"}},
            UpdateExpression="SET visits = visits + :inc",
            ExpressionAttributeValues={":inc": {"N": "1"}},
            ReturnValues="UPDATED_NEW",
        )
    assert_error(excinfo, "ValidationException", WRONG_OPERAND_TYPE)
    got = ddb.get_item(TableName="siteVisits", Key={"siteUrl": item["siteUrl"]},
                       ConsistentRead=True)
    assert got["Item"] == item


# -- 003: the AWS SDK for Java 2.x enhanced client's atomic counters -------------
# What AtomicCounterExtension sends for a Customer with defaultCounter (start 0,
# delta 1) and customCounter (@DynamoDbAtomicCounter(delta = 5, startValue = 10)):
# SET c = if_not_exists(c, :start - delta) + :delta per counter, with the
# #AMZN_MAPPED_ / :AMZN_MAPPED_ placeholders, REMOVE for the record's null
# updateCounter, and ReturnValues ALL_NEW (updateItem returns the record).

ENHANCED_UPDATE = (
    "SET #AMZN_MAPPED_defaultCounter = if_not_exists(#AMZN_MAPPED_defaultCounter, "
    ":AMZN_MAPPED_defaultCounter_Start) + :AMZN_MAPPED_defaultCounter_Delta, "
    "#AMZN_MAPPED_customCounter = if_not_exists(#AMZN_MAPPED_customCounter, "
    ":AMZN_MAPPED_customCounter_Start) + :AMZN_MAPPED_customCounter_Delta "
    "REMOVE #AMZN_MAPPED_updateCounter"
)
ENHANCED_NAMES = {
    "#AMZN_MAPPED_defaultCounter": "defaultCounter",
    "#AMZN_MAPPED_customCounter": "customCounter",
    "#AMZN_MAPPED_updateCounter": "updateCounter",
}
ENHANCED_VALUES = {
    ":AMZN_MAPPED_defaultCounter_Start": {"N": "-1"},
    ":AMZN_MAPPED_defaultCounter_Delta": {"N": "1"},
    ":AMZN_MAPPED_customCounter_Start": {"N": "5"},
    ":AMZN_MAPPED_customCounter_Delta": {"N": "5"},
}


@pytest.fixture
def customers_table(make_table: Callable[..., str]) -> str:
    return make_table("customers_table", hash=("id", "S"), exact=True)


def test_enhanced_client_counters_start_and_step(ddb: Any, customers_table: str) -> None:
    # 003, Step 3: after the first updateItem defaultCounter is 0 and
    # customCounter 10; after the second, 1 and 15.
    def update_customer() -> dict[str, Any]:
        return dict(ddb.update_item(
            TableName="customers_table",
            Key={"id": {"S": "SOME_ID"}},
            UpdateExpression=ENHANCED_UPDATE,
            ExpressionAttributeNames=ENHANCED_NAMES,
            ExpressionAttributeValues=ENHANCED_VALUES,
            ReturnValues="ALL_NEW",
        )["Attributes"])

    assert update_customer() == {
        "id": {"S": "SOME_ID"}, "defaultCounter": {"N": "0"}, "customCounter": {"N": "10"}}
    assert update_customer() == {
        "id": {"S": "SOME_ID"}, "defaultCounter": {"N": "1"}, "customCounter": {"N": "15"}}


def test_enhanced_client_counter_set_by_hand_overlaps(ddb: Any, customers_table: str) -> None:
    # 003: "Manually setting a value on the record will cause DynamoDB to throw ...
    # 'Invalid UpdateExpression: Two document paths overlap [...]'".
    with pytest.raises(ClientError) as excinfo:
        ddb.update_item(
            TableName="customers_table",
            Key={"id": {"S": "SOME_ID"}},
            UpdateExpression=(
                "SET #AMZN_MAPPED_customCounter = :AMZN_MAPPED_customCounter, "
                "#AMZN_MAPPED_customCounter = if_not_exists(#AMZN_MAPPED_customCounter, "
                ":AMZN_MAPPED_customCounter_Start) + :AMZN_MAPPED_customCounter_Delta"
            ),
            ExpressionAttributeNames={"#AMZN_MAPPED_customCounter": "customCounter"},
            ExpressionAttributeValues={
                ":AMZN_MAPPED_customCounter": {"N": "100"},
                ":AMZN_MAPPED_customCounter_Start": {"N": "5"},
                ":AMZN_MAPPED_customCounter_Delta": {"N": "5"},
            },
        )
    assert_error(excinfo, "ValidationException",
        "Invalid UpdateExpression: Two document paths overlap with each other; must remove or "
        "rewrite one of these paths; path one: [customCounter], path two: [customCounter]")
    assert "Item" not in ddb.get_item(TableName="customers_table", Key={"id": {"S": "SOME_ID"}})


def test_enhanced_client_custom_set_and_remove_actions(ddb: Any, customers_table: str) -> None:
    # 003, "Creating a custom UpdateExpression extension": a SetAction
    # (#attr1_ref = :new_value, "A new value") and a RemoveAction (#attr1_ref).
    key = {"id": {"S": "SOME_ID"}}
    response = ddb.update_item(
        TableName="customers_table",
        Key=key,
        UpdateExpression="SET #attr1_ref = :new_value",
        ExpressionAttributeNames={"#attr1_ref": "attr1"},
        ExpressionAttributeValues={":new_value": {"S": "A new value"}},
        ReturnValues="ALL_NEW",
    )
    assert response["Attributes"] == {**key, "attr1": {"S": "A new value"}}
    response = ddb.update_item(
        TableName="customers_table",
        Key=key,
        UpdateExpression="REMOVE #attr1_ref",
        ExpressionAttributeNames={"#attr1_ref": "attr1"},
        ReturnValues="ALL_OLD",
    )
    assert response["Attributes"] == {**key, "attr1": {"S": "A new value"}}
    assert ddb.get_item(TableName="customers_table", Key=key, ConsistentRead=True)["Item"] == key


# -- The same counter through boto3's resource API --------------------------------


def test_resource_api_table_update_item(backend: Backend, videos_table: str) -> None:
    # boto3's resource("dynamodb").Table(...) API works the same way as the client;
    # the resource API speaks Python numbers (Decimal) instead of wire dicts.
    table = backend.resource().Table("videos")
    response = table.update_item(
        Key={"PK": "VID#9f3a", "SK": "STATS#TOTAL"},
        UpdateExpression="ADD play_count :one",
        ExpressionAttributeValues={":one": 1},
        ReturnValues="UPDATED_NEW",
    )
    assert response["Attributes"] == {"play_count": 1}
    assert table.get_item(Key={"PK": "VID#9f3a", "SK": "STATS#TOTAL"},
                          ConsistentRead=True)["Item"]["play_count"] == 1
