"""``create_table(..., exist_ok=True)`` makes an existing table what is asked
for (TTL, global indexes, a stream, the billing mode), or says what differs;
on every store, so a service may create its tables on every start."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import tallydb.aio
from toolkit_stores import unique

import tallydb
from tallydb.toolkit.table_spec import p_create_table
from tallydb.toolkit.transport import Call


def _ttl(db: tallydb.Database, name: str) -> dict[str, Any]:
    description: dict[str, Any] = db.client.describe_time_to_live(TableName=name)[
        "TimeToLiveDescription"
    ]
    return description


def _described(db: tallydb.Database, name: str) -> dict[str, Any]:
    table: dict[str, Any] = db.client.describe_table(TableName=name)["Table"]
    return table


def test_the_same_table_with_ttl_twice_is_fine() -> None:
    # As reported: the second call used to fail with "TimeToLive is already enabled".
    db = tallydb.connect(in_memory=True)
    for _ in (1, 2):
        db.create_table("tt1", hash_key=("PK", "S"), ttl_attribute="x", exist_ok=True)
    assert _ttl(db, "tt1") == {"TimeToLiveStatus": "ENABLED", "AttributeName": "x"}


def test_create_table_with_ttl_twice_on_every_store(db: tallydb.Database) -> None:
    name = unique("ttl")
    for _ in (1, 2):
        table = db.create_table(name, hash_key=("PK", "S"), ttl_attribute="expires_at",
                                exist_ok=True)
    table.put({"PK": "a"})
    assert _ttl(db, name)["AttributeName"] == "expires_at"
    assert _ttl(db, name)["TimeToLiveStatus"] in ("ENABLED", "ENABLING")


def test_ttl_is_turned_on_for_a_table_that_exists_without_it(
    db: tallydb.Database, make_table: Callable[..., tallydb.Table]
) -> None:
    table = make_table("nottl")
    assert _ttl(db, table.name)["TimeToLiveStatus"] == "DISABLED"
    db.create_table(table.name, hash_key=("PK", "S"), ttl_attribute="expires_at", exist_ok=True)
    assert _ttl(db, table.name)["AttributeName"] == "expires_at"
    assert _ttl(db, table.name)["TimeToLiveStatus"] in ("ENABLED", "ENABLING")


def test_ttl_on_another_attribute_is_a_mismatch_naming_both(
    db: tallydb.Database, make_table: Callable[..., tallydb.Table]
) -> None:
    table = make_table("ttl", ttl_attribute="expires_at")
    with pytest.raises(tallydb.SchemaMismatchError,
                       match=r"TTL attribute is 'expires_at', not 'gone_at'"):
        db.create_table(table.name, hash_key=("PK", "S"), ttl_attribute="gone_at", exist_ok=True)


def _create_while_another_client_turns_ttl_on(
    db: tallydb.Database, name: str, theirs: str, ours: str
) -> None:
    """Run ``create_table(name, ttl_attribute=ours, exist_ok=True)``'s plan
    against the real store, and have another client turn TTL on for
    ``theirs`` just before the plan's own UpdateTimeToLive is sent: two
    services starting at once, the other one a step ahead."""
    request = {
        "TableName": name,
        "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
        "BillingMode": "PAY_PER_REQUEST",
    }
    plan = p_create_table(request, ours, True, 60.0, billing_given=False)
    reply: Any = None
    error: BaseException | None = None
    ahead = False
    while True:
        try:
            step = plan.throw(error) if error is not None else plan.send(reply)
        except StopIteration:
            return
        if isinstance(step, Call) and step.operation == "UpdateTimeToLive" and not ahead:
            ahead = True
            db.client.update_time_to_live(
                TableName=name,
                TimeToLiveSpecification={"Enabled": True, "AttributeName": theirs})
        reply, error = db.transport.answer(step)  # type: ignore[arg-type]


def test_ttl_turned_on_by_another_client_meanwhile_is_what_was_asked(
    db: tallydb.Database, make_table: Callable[..., tallydb.Table]
) -> None:
    # Seen with concurrent awaits of idempotent adds: each made the companion
    # table, and the one a step behind failed "TimeToLive is already enabled".
    table = make_table("race")
    _create_while_another_client_turns_ttl_on(db, table.name, "expires_at", "expires_at")
    assert _ttl(db, table.name)["AttributeName"] == "expires_at"
    assert _ttl(db, table.name)["TimeToLiveStatus"] in ("ENABLED", "ENABLING")


@pytest.mark.moto_deviation("moto changes the TTL attribute while TTL is on (see MOTO.md)")
def test_ttl_turned_on_meanwhile_for_another_attribute_is_a_mismatch(
    db: tallydb.Database, make_table: Callable[..., tallydb.Table]
) -> None:
    table = make_table("race")
    with pytest.raises(tallydb.SchemaMismatchError,
                       match=r"TTL attribute is 'gone_at', not 'expires_at'"):
        _create_while_another_client_turns_ttl_on(db, table.name, "gone_at", "expires_at")


def test_a_missing_global_index_is_created_and_answers(
    db: tallydb.Database, make_table: Callable[..., tallydb.Table]
) -> None:
    table = make_table("gsi", hash_key=("PK", "S"), range_key=("SK", "S"))
    table.put({"PK": "v1", "SK": "META", "owner": "ada"})
    by_owner = tallydb.GlobalIndex("by_owner", hash_key=("owner", "S"), range_key=("SK", "S"))
    again = db.create_table(table.name, hash_key=("PK", "S"), range_key=("SK", "S"),
                            indexes=[by_owner], exist_ok=True)
    indexes = _described(db, table.name)["GlobalSecondaryIndexes"]
    assert [(i["IndexName"], i["IndexStatus"]) for i in indexes] == [("by_owner", "ACTIVE")]
    assert [i["PK"] for i in again.query({"owner": "ada"}, index="by_owner")] == ["v1"]
    # Asked again, with nothing to change: nothing is sent but reads.
    db.create_table(table.name, hash_key=("PK", "S"), range_key=("SK", "S"),
                    indexes=[by_owner], exist_ok=True)


def test_an_index_the_call_does_not_name_is_left_alone(
    db: tallydb.Database, make_table: Callable[..., tallydb.Table]
) -> None:
    by_owner = tallydb.GlobalIndex("by_owner", hash_key=("owner", "S"))
    table = make_table("keep", indexes=[by_owner])
    db.create_table(table.name, hash_key=("PK", "S"), exist_ok=True)
    indexes = _described(db, table.name)["GlobalSecondaryIndexes"]
    assert [i["IndexName"] for i in indexes] == ["by_owner"]


def test_an_index_with_other_keys_is_a_mismatch_naming_it(
    db: tallydb.Database, make_table: Callable[..., tallydb.Table]
) -> None:
    table = make_table("gsikeys", indexes=[tallydb.GlobalIndex("by_owner",
                                                                 hash_key=("owner", "S"))])
    other = tallydb.GlobalIndex("by_owner", hash_key=("owner", "N"))
    with pytest.raises(tallydb.SchemaMismatchError) as caught:
        db.create_table(table.name, hash_key=("PK", "S"), indexes=[other], exist_ok=True)
    assert "global index 'by_owner' has keys owner (S) HASH" in str(caught.value)
    assert "not keys owner (N) HASH" in str(caught.value)
    projected = tallydb.GlobalIndex("by_owner", hash_key=("owner", "S"), projection="KEYS_ONLY")
    with pytest.raises(tallydb.SchemaMismatchError, match=r"projection ALL, not .*KEYS_ONLY"):
        db.create_table(table.name, hash_key=("PK", "S"), indexes=[projected], exist_ok=True)


def test_a_local_index_cannot_be_added_later(
    db: tallydb.Database, make_table: Callable[..., tallydb.Table]
) -> None:
    table = make_table("lsi", hash_key=("PK", "S"), range_key=("SK", "S"))
    by_plays = tallydb.LocalIndex("by_plays", range_key=("plays", "N"))
    with pytest.raises(tallydb.SchemaMismatchError, match="no local index 'by_plays'"):
        db.create_table(table.name, hash_key=("PK", "S"), range_key=("SK", "S"),
                        indexes=[by_plays], exist_ok=True)


def test_every_difference_is_named_at_once(
    db: tallydb.Database, make_table: Callable[..., tallydb.Table]
) -> None:
    table = make_table("many", hash_key=("PK", "S"), range_key=("SK", "S"))
    by_plays = tallydb.LocalIndex("by_plays", range_key=("plays", "N"))
    with pytest.raises(tallydb.SchemaMismatchError) as caught:
        db.create_table(table.name, hash_key=("PK", "N"), range_key=("SK", "S"),
                        indexes=[by_plays], exist_ok=True)
    assert "its key is PK (S), SK (S), not PK (N), SK (S)" in str(caught.value)
    assert "no local index 'by_plays'" in str(caught.value)


def test_a_stream_is_turned_on_for_a_table_without_one(
    db: tallydb.Database, make_table: Callable[..., tallydb.Table]
) -> None:
    table = make_table("stream")
    db.create_table(table.name, hash_key=("PK", "S"), stream="NEW_AND_OLD_IMAGES", exist_ok=True)
    described = _described(db, table.name)
    assert described["StreamSpecification"] == {
        "StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}
    db.create_table(table.name, hash_key=("PK", "S"), stream="NEW_AND_OLD_IMAGES", exist_ok=True)
    assert _described(db, table.name)["LatestStreamArn"] == described["LatestStreamArn"]
    with pytest.raises(tallydb.SchemaMismatchError,
                       match="stream shows NEW_AND_OLD_IMAGES, not KEYS_ONLY"):
        db.create_table(table.name, hash_key=("PK", "S"), stream="KEYS_ONLY", exist_ok=True)


def test_a_new_table_gets_its_stream(db: tallydb.Database) -> None:
    name = unique("stream")
    db.create_table(name, hash_key=("PK", "S"), stream="NEW_IMAGE")
    assert _described(db, name)["StreamSpecification"]["StreamViewType"] == "NEW_IMAGE"


def test_the_billing_mode_is_switched_when_given(
    db: tallydb.Database, make_table: Callable[..., tallydb.Table]
) -> None:
    table = make_table("billing", indexes=[tallydb.GlobalIndex("by_owner",
                                                                 hash_key=("owner", "S"))])
    db.create_table(table.name, hash_key=("PK", "S"), exist_ok=True)   # not given: left alone
    assert _described(db, table.name)["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    db.create_table(table.name, hash_key=("PK", "S"), billing_mode="PROVISIONED", exist_ok=True)
    described = _described(db, table.name)
    assert described.get("BillingModeSummary", {}).get("BillingMode", "PROVISIONED") == (
        "PROVISIONED")
    assert described["ProvisionedThroughput"]["ReadCapacityUnits"] == 5
    db.create_table(table.name, hash_key=("PK", "S"), billing_mode="PROVISIONED", exist_ok=True,
                    indexes=[tallydb.GlobalIndex("by_owner", hash_key=("owner", "S")),
                             tallydb.GlobalIndex("by_kind", hash_key=("kind", "S"))])
    indexes = {i["IndexName"]: i for i in _described(db, table.name)["GlobalSecondaryIndexes"]}
    assert indexes["by_kind"]["ProvisionedThroughput"]["WriteCapacityUnits"] == 5


def test_a_bad_billing_mode_or_stream_view_is_refused_before_anything_is_sent(
    db: tallydb.Database,
) -> None:
    name = unique("bad")
    with pytest.raises(ValueError, match="billing_mode is one of PAY_PER_REQUEST, PROVISIONED"):
        db.create_table(name, hash_key=("PK", "S"), billing_mode="ON_DEMAND")
    with pytest.raises(ValueError, match="stream is one of NEW_AND_OLD_IMAGES"):
        db.create_table(name, hash_key=("PK", "S"), stream="ALL")
    assert name not in db.list_tables()


class Session(tallydb.Model, table="sessions"):
    user: str = tallydb.HashKey()
    started: int = tallydb.RangeKey()
    device: str | None = None
    expires: dt.datetime | None = tallydb.TTLAttribute()
    by_device = tallydb.GlobalIndex("by_device", hash_key="device", range_key="started")


def test_a_model_with_a_ttl_starts_twice(tmp_path: Path) -> None:
    # As reported: the README's Session model, and a service on its second start.
    for _ in ("first start", "second start"):
        with tallydb.connect(path=tmp_path) as db:
            Session.bind(db)
            Session.create_table()
            Session(user="ada", started=1, expires=dt.timedelta(hours=1)).save()
            assert Session.count("ada") == 1
            assert _ttl(db, "sessions")["AttributeName"] == "expires"


def test_a_model_gets_its_ttl_and_index_on_a_table_made_without_them(
    db: tallydb.Database,
) -> None:
    name = unique("sessions")

    class Later(Session, table=name):
        pass

    db.create_table(name, hash_key=("user", "S"), range_key=("started", "N"))
    Later.bind(db)
    Later.create_table()
    assert _ttl(db, name)["AttributeName"] == "expires"
    Later(user="ada", started=1, device="phone").save()
    assert [s.user for s in Later.query("phone", index="by_device")] == ["ada"]


def test_the_asyncio_api_converges_the_same_way() -> None:
    import asyncio

    async def twice() -> dict[str, Any]:
        db = tallydb.aio.connect(in_memory=True)
        for _ in (1, 2):
            await db.create_table("tt1", hash_key=("PK", "S"), ttl_attribute="x",
                                  stream="KEYS_ONLY", exist_ok=True)
        described: dict[str, Any] = db.client.describe_table(TableName="tt1")["Table"]
        await db.close()
        return described

    assert asyncio.run(twice())["StreamSpecification"]["StreamViewType"] == "KEYS_ONLY"
