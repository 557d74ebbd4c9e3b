"""RegionalCounter: one shard per region, summed on read; the same on
tallydb (embedded and served), moto and DynamoDB Local, blocking and
awaited. Its promise on a global table (no increment lost under
multi-Region eventual consistency) is tests/api_tables/test_global_tables.py's."""

from __future__ import annotations

import asyncio

import tallydb

PARTITION = {"PK": "VID#9f3a"}


def test_each_region_adds_to_its_own_shard(db: tallydb.Database,
                                           videos: tallydb.Table) -> None:
    here = tallydb.RegionalCounter(videos, PARTITION, "PLAYS#", "play_count")
    assert here.region == db.transport.region
    there = tallydb.RegionalCounter(videos, PARTITION, "PLAYS#", "play_count",
                                    region="eu-west-1")
    assert here.add() == 1
    assert here.add(4) == 5
    assert there.add(10) == 10
    assert here.value() == 15 and there.value() == 15
    assert here.by_region() == {db.transport.region: 5, "eu-west-1": 10}
    item = videos.get({"PK": "VID#9f3a", "SK": "PLAYS#eu-west-1"})
    assert item is not None and item["play_count"] == 10
    assert repr(here).endswith(f"PLAYS#{db.transport.region} play_count>")


def test_a_counter_never_added_to_is_zero(videos: tallydb.Table) -> None:
    counter = tallydb.RegionalCounter(videos, PARTITION, "NEVER#")
    assert counter.value() == 0 and counter.by_region() == {}


def test_the_asyncio_counter_runs_the_same_plans(db: tallydb.Database,
                                                 videos: tallydb.Table) -> None:
    async def main() -> tuple[int, int]:
        adb = tallydb.aio.connect(client=db.client)
        counter = tallydb.aio.RegionalCounter(adb.table(videos.name), PARTITION, "PLAYS#",
                                              region="ap-south-1")
        added = await counter.add(3)
        total = await counter.value()
        await adb.close()
        return int(added), int(total)

    assert asyncio.run(main()) == (3, 3)
