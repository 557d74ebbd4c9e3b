"""CreateTable in-process: the description it answers and DynamoDB's refusals.

Messages: nubo-db/dynamodb-conformance (tier3 createTable, asserted against
DynamoDB, 2026) and its catalogue of DynamoDB's messages (2026); dynalite's
tests (recorded against DynamoDB) for the index rules.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from table_requests import hash_table, message_of, range_table

Call = Callable[[str, dict[str, Any]], Any]
INVALID = "One or more parameter values were invalid: "


def refused(call: Call, request: dict[str, Any]) -> str:
    return message_of(call("CreateTable", request), "ValidationException")


# --- what it answers -------------------------------------------------------------------


def test_provisioned_table_description(call: Call) -> None:
    response = call("CreateTable", range_table("videos"))
    desc = response["TableDescription"]
    assert desc["TableName"] == "videos"
    assert desc["TableStatus"] == "CREATING"  # as DynamoDB answers; ACTIVE right after
    assert desc["KeySchema"] == range_table()["KeySchema"]
    assert desc["AttributeDefinitions"] == range_table()["AttributeDefinitions"]
    assert desc["ProvisionedThroughput"] == {
        "NumberOfDecreasesToday": 0, "ReadCapacityUnits": 5, "WriteCapacityUnits": 5,
    }
    assert desc["TableArn"] == "arn:aws:dynamodb:us-east-1:000000000000:table/videos"
    assert desc["ItemCount"] == 0 and desc["TableSizeBytes"] == 0
    assert desc["DeletionProtectionEnabled"] is False
    assert isinstance(desc["CreationDateTime"], float)
    assert len(desc["TableId"]) == 36
    # DynamoDB describes no BillingModeSummary for a table created PROVISIONED
    assert "BillingModeSummary" not in desc
    described = call("DescribeTable", {"TableName": "videos"})["Table"]
    assert described["TableStatus"] == "ACTIVE"
    assert described["TableId"] == desc["TableId"]


def test_on_demand_table_description(call: Call) -> None:
    desc = call("CreateTable", hash_table("events"))["TableDescription"]
    assert desc["ProvisionedThroughput"] == {
        "NumberOfDecreasesToday": 0, "ReadCapacityUnits": 0, "WriteCapacityUnits": 0,
    }
    assert desc["BillingModeSummary"] == {"BillingMode": "PAY_PER_REQUEST"}
    summary = call("DescribeTable", {"TableName": "events"})["Table"]["BillingModeSummary"]
    assert summary["BillingMode"] == "PAY_PER_REQUEST"
    assert summary["LastUpdateToPayPerRequestDateTime"] == desc["CreationDateTime"]


def test_configuration_round_trips(call: Call) -> None:
    call("CreateTable", hash_table(
        "configured",
        DeletionProtectionEnabled=True,
        TableClass="STANDARD_INFREQUENT_ACCESS",
        SSESpecification={"Enabled": True},
        OnDemandThroughput={"MaxReadRequestUnits": 10, "MaxWriteRequestUnits": 5},
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
        Tags=[{"Key": "team", "Value": "counters"}],
    ))
    table = call("DescribeTable", {"TableName": "configured"})["Table"]
    assert table["DeletionProtectionEnabled"] is True
    assert table["TableClassSummary"] == {"TableClass": "STANDARD_INFREQUENT_ACCESS"}
    assert table["SSEDescription"]["Status"] == "ENABLED"
    assert table["SSEDescription"]["SSEType"] == "KMS"
    assert table["SSEDescription"]["KMSMasterKeyArn"].startswith("arn:aws:kms:")
    assert table["OnDemandThroughput"] == {"MaxReadRequestUnits": 10, "MaxWriteRequestUnits": 5}
    assert table["StreamSpecification"] == {
        "StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES",
    }
    assert table["LatestStreamArn"].endswith("/stream/" + table["LatestStreamLabel"])
    assert not any(key.startswith("_") for key in table)  # tags stay inside


def test_indexes_are_described_as_declared(call: Call) -> None:
    request = range_table(
        "indexed",
        AttributeDefinitions=[
            {"AttributeName": "PK", "AttributeType": "S"},
            {"AttributeName": "SK", "AttributeType": "S"},
            {"AttributeName": "LSK", "AttributeType": "N"},
            {"AttributeName": "GPK", "AttributeType": "S"},
        ],
        LocalSecondaryIndexes=[{
            "IndexName": "by_lsk",
            "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"},
                          {"AttributeName": "LSK", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["a"]},
        }],
        GlobalSecondaryIndexes=[{
            "IndexName": "by_gpk",
            "KeySchema": [{"AttributeName": "GPK", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"},
            "ProvisionedThroughput": {"ReadCapacityUnits": 2, "WriteCapacityUnits": 3},
        }],
    )
    created = call("CreateTable", request)["TableDescription"]
    assert created["GlobalSecondaryIndexes"][0]["IndexStatus"] == "CREATING"
    table = call("DescribeTable", {"TableName": "indexed"})["Table"]
    (lsi,) = table["LocalSecondaryIndexes"]
    assert lsi == {
        "IndexName": "by_lsk",
        "KeySchema": request["LocalSecondaryIndexes"][0]["KeySchema"],
        "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["a"]},
        "IndexSizeBytes": 0,
        "ItemCount": 0,
        "IndexArn": "arn:aws:dynamodb:us-east-1:000000000000:table/indexed/index/by_lsk",
    }
    (gsi,) = table["GlobalSecondaryIndexes"]
    assert gsi["IndexStatus"] == "ACTIVE"
    assert gsi["ProvisionedThroughput"] == {
        "NumberOfDecreasesToday": 0, "ReadCapacityUnits": 2, "WriteCapacityUnits": 3,
    }
    assert gsi["IndexArn"].endswith("/index/by_gpk")


def test_an_existing_table(call: Call) -> None:
    call("CreateTable", hash_table("videos"))
    result = call("CreateTable", range_table("videos"))
    assert message_of(result, "ResourceInUseException") == "Table already exists: videos"


# --- billing mode (conformance catalogue 2026; LocalStack "parity with AWS") -------------


def test_on_demand_with_throughput(call: Call) -> None:
    request = hash_table(ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1})
    assert refused(call, request) == (
        INVALID + "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when "
        "BillingMode is PAY_PER_REQUEST"
    )


@pytest.mark.parametrize("mode", [None, "PROVISIONED"])
def test_provisioned_without_throughput(call: Call, mode: str | None) -> None:
    request = hash_table(BillingMode=mode)
    assert refused(call, request) == (
        INVALID + "ReadCapacityUnits and WriteCapacityUnits must both be specified when "
        "BillingMode is PROVISIONED"
    )


def test_billing_is_checked_before_the_key_schema(call: Call) -> None:
    # captured 2026: three key elements and no throughput answer the billing rule
    request = range_table(KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}] * 3)
    del request["ProvisionedThroughput"]
    assert "must both be specified when BillingMode is PROVISIONED" in refused(call, request)


def test_capacity_out_of_bounds(call: Call) -> None:
    big = 1000000000001
    request = range_table(ProvisionedThroughput={"ReadCapacityUnits": big,
                                                 "WriteCapacityUnits": big})
    assert refused(call, request) == f"Given value {big} for ReadCapacityUnits is out of bounds"
    request = range_table(ProvisionedThroughput={"ReadCapacityUnits": 1000000000000,
                                                 "WriteCapacityUnits": big})
    assert refused(call, request) == f"Given value {big} for WriteCapacityUnits is out of bounds"


def test_on_demand_limits_on_a_provisioned_table(call: Call) -> None:
    request = range_table(OnDemandThroughput={"MaxReadRequestUnits": 10})
    assert refused(call, request) == (
        INVALID + "MaxReadRequestUnits for OnDemandThroughput cannot be specified when the "
        "table BillingMode is PROVISIONED"
    )


# --- the table's key ---------------------------------------------------------------------


def test_more_than_two_key_elements(call: Call) -> None:
    request = range_table(
        AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"}
                              for n in ("pk", "sk", "extra")],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "sk", "KeyType": "RANGE"},
                   {"AttributeName": "extra", "KeyType": "RANGE"}],
    )
    assert refused(call, request) == (
        "1 validation error detected: Value '[KeySchemaElement(attributeName=pk, "
        "keyType=HASH), KeySchemaElement(attributeName=sk, keyType=RANGE), "
        "KeySchemaElement(attributeName=extra, keyType=RANGE)]' at 'keySchema' failed to "
        "satisfy constraint: Member must have length less than or equal to 2"
    )


def test_key_attribute_without_a_definition(call: Call) -> None:
    request = range_table(
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "pk", "KeyType": "RANGE"}],
    )
    assert refused(call, request) == (
        "Invalid KeySchema: Some index key attribute have no definition"
    )
    request = range_table(
        AttributeDefinitions=[{"AttributeName": "b", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "a", "KeyType": "HASH"}],
    )
    assert refused(call, request) == (
        INVALID + "Some index key attributes are not defined in AttributeDefinitions. "
        "Keys: [a], AttributeDefinitions: [b]"
    )


def test_key_element_order_and_names(call: Call) -> None:
    definitions = [{"AttributeName": "a", "AttributeType": "S"},
                   {"AttributeName": "b", "AttributeType": "S"}]

    def keys(*pairs: tuple[str, str]) -> dict[str, Any]:
        return range_table(AttributeDefinitions=definitions, KeySchema=[
            {"AttributeName": name, "KeyType": kind} for name, kind in pairs
        ])

    assert refused(call, keys(("a", "HASH"), ("a", "HASH"))) == (
        "Both the Hash Key and the Range Key element in the KeySchema have the same name"
    )
    assert refused(call, keys(("a", "RANGE"), ("b", "HASH"))) == (
        "Invalid KeySchema: The first KeySchemaElement is not a HASH key type"
    )
    assert refused(call, keys(("a", "HASH"), ("b", "HASH"))) == (
        "Invalid KeySchema: The second KeySchemaElement is not a RANGE key type"
    )


def test_definitions_must_match_the_key_exactly(call: Call) -> None:
    request = range_table(KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}])
    assert refused(call, request) == (
        INVALID + "Number of attributes in KeySchema does not exactly match number of "
        "attributes defined in AttributeDefinitions"
    )
    request = hash_table(AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"},
                                               {"AttributeName": "id", "AttributeType": "N"}])
    assert refused(call, request) == "Attribute Name is duplicated: id"


# --- secondary indexes ---------------------------------------------------------------------


def lsi(name: str = "lsi", hash_key: str = "PK", range_key: str | None = "LSK",
        projection: dict[str, Any] | None = None) -> dict[str, Any]:
    schema = [{"AttributeName": hash_key, "KeyType": "HASH"}]
    if range_key is not None:
        schema.append({"AttributeName": range_key, "KeyType": "RANGE"})
    return {"IndexName": name, "KeySchema": schema,
            "Projection": projection or {"ProjectionType": "ALL"}}


def gsi(name: str = "gsi", *keys: tuple[str, str], **extra: Any) -> dict[str, Any]:
    return {"IndexName": name,
            "KeySchema": [{"AttributeName": n, "KeyType": k} for n, k in keys or [("G", "HASH")]],
            "Projection": {"ProjectionType": "ALL"}, **extra}


DEFINITIONS = [{"AttributeName": n, "AttributeType": "S"} for n in ("PK", "SK", "LSK", "G")]


def indexed(**extra: Any) -> dict[str, Any]:
    """An on-demand PK/SK table with indexes, defining exactly the keys they use."""
    request = range_table(BillingMode="PAY_PER_REQUEST", ProvisionedThroughput=None, **extra)
    used: list[str] = []
    for schema in [request["KeySchema"]] + [
        index["KeySchema"] for member in ("LocalSecondaryIndexes", "GlobalSecondaryIndexes")
        for index in request.get(member) or ()
    ]:
        used += [k["AttributeName"] for k in schema]
    used = list(dict.fromkeys(used))
    request["AttributeDefinitions"] = [{"AttributeName": n, "AttributeType": "S"} for n in used]
    return request


def test_empty_index_lists(call: Call) -> None:
    assert refused(call, indexed(LocalSecondaryIndexes=[])) == (
        INVALID + "List of LocalSecondaryIndexes is empty"
    )
    assert refused(call, indexed(GlobalSecondaryIndexes=[])) == (
        INVALID + "List of GlobalSecondaryIndexes is empty"
    )


def test_unused_definitions_with_indexes(call: Call) -> None:
    request = indexed(LocalSecondaryIndexes=[lsi()])
    request["AttributeDefinitions"] = DEFINITIONS
    assert refused(call, request) == (
        INVALID + "Some AttributeDefinitions are not used. AttributeDefinitions: "
        "[PK, SK, LSK, G], keys used: [PK, SK, LSK]"
    )


def test_local_index_rules(call: Call) -> None:
    both = {"GlobalSecondaryIndexes": [gsi()]}
    request = indexed(LocalSecondaryIndexes=[lsi()], **both)
    request["KeySchema"] = request["KeySchema"][:1]
    request["AttributeDefinitions"] = [d for d in DEFINITIONS if d["AttributeName"] != "SK"]
    assert refused(call, request) == (
        INVALID + "Table KeySchema does not have a range key, which is required when "
        "specifying a LocalSecondaryIndex"
    )
    request = indexed(LocalSecondaryIndexes=[lsi(range_key="G")], **both)
    request["KeySchema"] = request["KeySchema"][:1]
    request["AttributeDefinitions"] = [d for d in DEFINITIONS if d["AttributeName"] in "PKG"]
    assert refused(call, request) == (
        INVALID + "Table KeySchema does not have a range key, which is required when "
        "specifying a LocalSecondaryIndex"
    )
    assert refused(call, indexed(LocalSecondaryIndexes=[lsi(range_key=None)], **both)) == (
        INVALID + "Index KeySchema does not have a range key for index: lsi"
    )
    assert refused(call, indexed(LocalSecondaryIndexes=[lsi(hash_key="SK")], **both)) == (
        INVALID + "Index KeySchema does not have the same leading hash key as table KeySchema "
        "for index: lsi. index hash key: SK, table hash key: PK"
    )
    six = [lsi(f"lsi{i}") for i in range(6)]
    assert refused(call, indexed(LocalSecondaryIndexes=six, **both)) == (
        INVALID + "Number of LocalSecondaryIndexes exceeds per-table limit of 5"
    )


def test_projection_rules(call: Call) -> None:
    def with_projection(projection: dict[str, Any]) -> dict[str, Any]:
        return indexed(LocalSecondaryIndexes=[lsi(projection=projection)],
                       GlobalSecondaryIndexes=[gsi()])

    assert refused(call, with_projection({"NonKeyAttributes": ["a"]})) == (
        INVALID + "Unknown ProjectionType: null"
    )
    assert refused(call, with_projection({"ProjectionType": "KEYS_ONLY",
                                          "NonKeyAttributes": ["a"]})) == (
        INVALID + "ProjectionType is KEYS_ONLY, but NonKeyAttributes is specified"
    )
    assert refused(call, with_projection({"ProjectionType": "INCLUDE"})) == (
        INVALID + "ProjectionType is INCLUDE, but NonKeyAttributes is not specified"
    )
    assert refused(call, with_projection({"ProjectionType": "INCLUDE",
                                          "NonKeyAttributes": ["a", "a"]})) == (
        INVALID + "Duplicate element in NonKeyAttributes: a"
    )


def test_global_index_rules(call: Call) -> None:
    lsis = {"LocalSecondaryIndexes": [lsi()]}
    first_range = gsi("gsi", ("G", "RANGE"))
    assert refused(call, indexed(GlobalSecondaryIndexes=[first_range], **lsis)) == (
        "Invalid KeySchema: The first KeySchemaElement is not a HASH key type"
    )
    assert refused(call, indexed(GlobalSecondaryIndexes=[gsi("gsi", ("G", "HASH"),
                                                             ("G", "RANGE"))], **lsis)) == (
        "Both the Hash Key and the Range Key element in the KeySchema have the same name"
    )
    order = gsi("gsi", ("G", "HASH"), ("SK", "RANGE"), ("PK", "HASH"))
    assert refused(call, indexed(GlobalSecondaryIndexes=[order], **lsis)) == (
        INVALID + "All HASH key attributes must precede RANGE key attributes in the KeySchema"
    )
    pt = {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}
    assert refused(call, indexed(GlobalSecondaryIndexes=[gsi(ProvisionedThroughput=pt)],
                                 **lsis)) == (
        INVALID + "ProvisionedThroughput should not be specified for index: gsi when "
        "BillingMode is PAY_PER_REQUEST"
    )
    provisioned = indexed(GlobalSecondaryIndexes=[gsi()], **lsis)
    provisioned.update(BillingMode="PROVISIONED", ProvisionedThroughput=pt)
    assert refused(call, provisioned) == (
        INVALID + "ProvisionedThroughput is not specified for index: gsi"
    )
    assert refused(call, indexed(GlobalSecondaryIndexes=[gsi("lsi")], **lsis)) == (
        INVALID + "Duplicate index name: lsi"
    )
    many = [gsi(f"gsi{i}") for i in range(21)]
    assert refused(call, indexed(GlobalSecondaryIndexes=many, **lsis)) == (
        INVALID + "GlobalSecondaryIndex count exceeds the per-table limit of 20"
    )


def test_global_index_with_a_multi_attribute_key(call: Call) -> None:
    request = indexed(LocalSecondaryIndexes=[lsi()],
                      GlobalSecondaryIndexes=[gsi("gsi", ("G", "HASH"), ("SK", "HASH"))])
    assert "TableDescription" in call("CreateTable", request)


def test_stream_and_encryption_rules(call: Call) -> None:
    assert refused(call, hash_table(StreamSpecification={"StreamEnabled": True})) == (
        INVALID + "Table is being created with a stream enabled, UpdateViewType is required"
    )
    assert refused(call, hash_table(StreamSpecification={
        "StreamEnabled": False, "StreamViewType": "NEW_IMAGE"})) == (
        INVALID + "Table is being created with a stream disabled, UpdateViewType should not "
        "be specified"
    )
    assert refused(call, hash_table(SSESpecification={"Enabled": False, "SSEType": "KMS"})) == (
        INVALID + "SSEType can not be specified if Enabled is false"
    )


def test_nothing_is_created_by_a_refused_request(call: Call) -> None:
    refused(call, hash_table("kept_out", BillingMode="PROVISIONED"))
    assert call("ListTables", {}) == {"TableNames": []}
