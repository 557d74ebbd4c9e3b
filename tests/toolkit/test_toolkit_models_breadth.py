"""Indexes, model breadth (count, exists, scan, batch_get, delete_table, TTL,
types, update() returning the model) and extensions, on every store."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

import pytest
import tallydb.aio
from toolkit_stores import unique

import tallydb
from tallydb import Path, Update


def test_create_table_with_indexes(
    db: tallydb.Database, make_table: Callable[..., tallydb.Table]
) -> None:
    videos = make_table(
        "videos",
        hash_key=("PK", "S"),
        range_key=("SK", "S"),
        indexes=[
            tallydb.GlobalIndex("by_owner", hash_key=("owner", "S"), range_key=("created", "N")),
            tallydb.LocalIndex("by_plays", range_key=("plays", "N"), projection="KEYS_ONLY"),
            tallydb.GlobalIndex("by_title", hash_key=("title", "S"), projection=["owner"]),
        ],
    )
    described = videos.describe()
    assert {i["IndexName"] for i in described["GlobalSecondaryIndexes"]} == {
        "by_owner", "by_title"}
    assert [i["IndexName"] for i in described["LocalSecondaryIndexes"]] == ["by_plays"]
    for i, (owner, plays) in enumerate([("ada", 5), ("bob", 1), ("ada", 3)]):
        videos.put({"PK": "v", "SK": str(i), "owner": owner, "created": i, "plays": plays,
                    "title": f"t{i}"})
    assert [v["SK"] for v in videos.query({"owner": "ada"}, index="by_owner")] == ["0", "2"]
    by_plays = list(videos.query({"PK": "v"}, index="by_plays", consistent=True))
    assert [v["plays"] for v in by_plays] == [1, 3, 5]
    assert set(by_plays[0]) == {"PK", "SK", "plays"}  # KEYS_ONLY
    assert set(next(videos.query({"title": "t1"}, index="by_title"))) == {
        "PK", "SK", "title", "owner"}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"hash_key": "PK"}, r'hash_key is \(name, type\) with type "S", "N" or "B"'),
        ({"hash_key": ("PK", "X")}, "hash_key is"),
        ({"hash_key": ("PK", "S"), "range_key": "SK"}, "range_key is"),
        ({"hash_key": ("PK", "S"), "indexes": ["by_x"]}, "GlobalIndex and LocalIndex"),
    ],
)
def test_create_table_says_what_a_key_is(
    db: tallydb.Database, kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(TypeError, match=message):
        db.create_table(unique("t"), **kwargs)


def test_create_table_exist_ok_checks_the_key_schema(
    db: tallydb.Database, make_table: Callable[..., tallydb.Table]
) -> None:
    table = make_table("t", hash_key=("PK", "S"), range_key=("SK", "S"))
    same = db.create_table(table.name, hash_key=("PK", "S"), range_key=("SK", "S"),
                           exist_ok=True)
    assert same.schema == table.schema
    with pytest.raises(tallydb.SchemaMismatchError,
                       match=r"exists, but its key is PK \(S\), SK \(S\), not id \(S\)"):
        db.create_table(table.name, hash_key=("id", "S"), exist_ok=True)
    with pytest.raises(tallydb.SchemaMismatchError):
        db.create_table(table.name, hash_key=("PK", "N"), range_key=("SK", "S"), exist_ok=True)


def test_a_missing_table_is_named(db: tallydb.Database) -> None:
    with pytest.raises(tallydb.ResourceNotFoundException) as caught:
        db.table("no-such-table").get({"PK": "x"})
    assert caught.value.code() == "ResourceNotFoundException"
    assert "no-such-table" in str(caught.value)


def test_a_bare_not_found_message_gets_the_table_named() -> None:
    """Where an endpoint answers only "Requested resource not found", the
    toolkit's exception names the tables of the request."""
    from tallydb.engine.errors import ResourceNotFoundException
    from tallydb.toolkit.transport import Call, _naming_tables

    bare = ResourceNotFoundException("Requested resource not found")
    named = _naming_tables(bare, Call("GetItem", {"TableName": "videos", "Key": {}}))
    assert isinstance(named, tallydb.TableNotFoundError)
    assert (named.code(), named.message) == ("ResourceNotFoundException", bare.message)
    assert "table 'videos' does not exist" in str(named)
    batch = Call("BatchGetItem", {"RequestItems": {"a": {}, "b": {}}})
    assert "'a', 'b'" in str(_naming_tables(bare, batch))


# -- models --------------------------------------------------------------------


class Video(tallydb.Model):
    pk: str = tallydb.HashKey()
    sk: str = tallydb.RangeKey()
    owner: str | None = None
    created: int | None = None
    plays: int = tallydb.AtomicCounter()
    tags: set[str] = tallydb.Attribute(default=set())
    expires: dt.datetime | None = tallydb.TTLAttribute()
    by_owner = tallydb.GlobalIndex("by_owner", hash_key="owner", range_key="created")


@pytest.fixture
def video_model(db: tallydb.Database) -> Iterator[type[Video]]:
    class V(Video, table=unique("videos")):
        pass

    V.bind(db)
    V.create_table()
    yield V


def test_model_index_query_count_exists_scan(video_model: type[Video]) -> None:
    for i, owner in enumerate(["ada", "bob", "ada"]):
        video_model(pk="v", sk=str(i), owner=owner, created=i).save()
    assert [v.sk for v in video_model.query("ada", index="by_owner")] == ["0", "2"]
    assert [v.sk for v in video_model.query("ada", index=Video.by_owner, reverse=True)] == [
        "2", "0"]
    assert video_model.count("v", consistent=True) == 3
    assert video_model.count("v", Path("sk") > "0", consistent=True) == 2
    assert video_model.count(consistent=True) == 3
    assert video_model.count("ada", index="by_owner") == 2
    assert video_model.exists("v", "1", consistent=True)
    assert not video_model.exists(pk="v", sk="9", consistent=True)
    assert sorted(v.sk for v in video_model.scan(consistent=True)) == ["0", "1", "2"]
    assert [v.sk for v in video_model.scan(Path("owner") == "bob", consistent=True)] == ["1"]
    with pytest.raises(ValueError, match="declares no index 'by_x'"):
        list(video_model.query("ada", index="by_x"))


def test_model_batch_get_and_delete_table(
    db: tallydb.Database, video_model: type[Video]
) -> None:
    for i in range(3):
        video_model(pk="v", sk=str(i)).save()
    got = video_model.batch_get([("v", "2"), {"pk": "v", "sk": "0"}, ("v", "9")],
                                consistent=True)
    assert [v.sk for v in got] == ["2", "0"]
    video_model.delete_table()
    assert video_model.table_name() not in db.list_tables()


def test_model_ttl_attribute_stores_epoch_seconds(video_model: type[Video]) -> None:
    when = dt.datetime(2030, 1, 2, 3, 4, 5, tzinfo=dt.UTC)
    video_model(pk="v", sk="1", expires=when).save()
    stored = video_model.table().get({"pk": "v", "sk": "1"}, consistent=True)
    assert stored is not None and stored["expires"] == int(when.timestamp())
    assert video_model.get("v", "1", consistent=True).expires == when
    described = video_model.table().transport.client.describe_time_to_live(
        TableName=video_model.table_name())
    assert described["TimeToLiveDescription"]["AttributeName"] == "expires"
    before = time.time()
    soon = video_model(pk="v", sk="2", expires=dt.timedelta(hours=1))
    soon.save()
    after = time.time()
    # An hour from when it was made, to the second: bracketed by the clock
    # read around it, however long the machine took.
    assert int(before) + 3600 - 1 <= soon.expires.timestamp() <= after + 3600 + 1
    with pytest.raises(TypeError, match="is a TTL"):
        video_model(pk="v", sk="3", expires="tomorrow")


def test_model_types_are_enforced(video_model: type[Video]) -> None:
    with pytest.raises(TypeError, match=r"Video.created is int \| None, not str: 'not an int'"):
        video_model(pk="v", sk="1", created="not an int")
    video = video_model(pk="v", sk="1")
    with pytest.raises(TypeError, match="created is int \\| None, not bool"):
        video.created = True
    with pytest.raises(TypeError, match="tags is set"):
        video.tags = {"a", 1}  # type: ignore[assignment]
    video.tags = {"a"}
    video.tags.add(2)  # type: ignore[arg-type]  # changed in place: caught by save
    with pytest.raises(TypeError, match="tags"):
        video.save()
    video.owner = None  # None is allowed: no attribute
    assert video_model.count(consistent=True) == 0


def test_a_forward_reference_leaves_the_other_attributes_typed() -> None:
    """An annotation naming a class not defined yet (``Later``) is untyped;
    the model's other attributes keep their types and its ClassVar stays one."""

    class Clip(tallydb.Model):
        pk: str = tallydb.HashKey()
        plays: int = 0
        kind: ClassVar[str] = "clip"
        parent: Later | None = None  # type: ignore[name-defined]  # noqa: F821

    assert set(Clip._attributes) == {"pk", "plays", "parent"}
    with pytest.raises(TypeError, match=r"Clip.plays is int, not str"):
        Clip(pk="c", plays="many")
    assert Clip(pk="c", parent=object()).parent is not None  # untyped: anything goes


def test_model_update_returns_the_model(video_model: type[Video]) -> None:
    video = video_model(pk="v", sk="1")
    assert video.update() is video
    assert video.update().plays == 1


class Stamp(tallydb.Extension):
    """Sets ``updated`` on every update and save, and refuses deleting locked items."""

    def before_write(self, model: Any, operation: str) -> tallydb.WriteModification | None:
        if operation == "update":
            return tallydb.WriteModification(update=Update().set("updated", 7))
        if operation == "save":
            return tallydb.WriteModification(item={"updated": 1})
        return tallydb.WriteModification(condition=Path("locked").not_exists())


def test_extensions_join_every_write(db: tallydb.Database) -> None:
    class Doc(tallydb.Model, table=unique("docs"), extensions=[Stamp()]):
        id: str = tallydb.HashKey()
        title: str = ""
        updated: int = 0
        edits: int = tallydb.AtomicCounter()

    Doc.bind(db)
    Doc.create_table()
    doc = Doc(id="d", title="x")
    doc.save()
    assert Doc.get("d", consistent=True).updated == 1
    doc.title = "y"
    assert doc.update().updated == 7 and doc.edits == 1
    doc.updated = 3  # the model's own SET of `updated` overlaps the extension's
    with pytest.raises(tallydb.ValidationException, match="Two document paths overlap"):
        doc.update()
    Doc.table().update({"id": "d"}, Update().set("locked", True))
    with pytest.raises(tallydb.ConditionalCheckFailedException):
        Doc(id="d").delete()
    Doc.delete_table()


def test_extension_must_be_an_extension() -> None:
    with pytest.raises(TypeError, match=r"not a tallydb\.Extension"):

        class Bad(tallydb.Model, table="bad", extensions=[object()]):  # type: ignore[list-item]
            id: str = tallydb.HashKey()


def test_async_model_breadth(store: str, request: pytest.FixtureRequest) -> None:
    from test_toolkit_aio import run

    class Clip(tallydb.aio.Model, table=unique("clips"), extensions=[Stamp()]):
        pk: str = tallydb.HashKey()
        sk: str = tallydb.RangeKey()
        owner: str | None = None
        updated: int = 0
        plays: int = tallydb.AtomicCounter()
        expires: dt.datetime | None = tallydb.TTLAttribute()
        by_owner = tallydb.GlobalIndex("by_owner", hash_key="owner", range_key="sk")

    async def body(db: Any) -> None:
        Clip.bind(db)
        await Clip.create_table()
        for i, owner in enumerate(["ada", "bob", "ada"]):
            await Clip(pk="c", sk=str(i), owner=owner, expires=dt.timedelta(days=1)).save()
        assert [c.sk async for c in Clip.query("ada", index="by_owner")] == ["0", "2"]
        assert await Clip.count("c", consistent=True) == 3
        assert await Clip.exists("c", "1", consistent=True)
        assert [c.sk for c in await Clip.batch_get([("c", "2"), ("c", "0")])] == ["2", "0"]
        clip = await Clip.get("c", "0", consistent=True)
        assert (await clip.update()).updated == 7 and clip.plays == 1
        assert sorted([c.sk async for c in Clip.scan(consistent=True)]) == ["0", "1", "2"]
        await Clip.delete_table()

    run(store, request, body)
