"""Typed models: attributes from annotations, keys, Java-style atomic
counters, optimistic locking, save/get/update/delete/query."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest

import tallydb
from tallydb import Path, Update


def test_declaration() -> None:
    class Video(tallydb.Model, table="videos"):
        pk: str = tallydb.HashKey(name="PK")
        sk: str = tallydb.RangeKey(name="SK")
        title: str | None = None
        plays: int = tallydb.AtomicCounter()
        tags: set[str] = tallydb.Attribute(name="t", default=set())
        version: int = tallydb.VersionAttribute()

    assert Video.schema().names == ("PK", "SK")
    assert (Video.schema().hash_type, Video.schema().range_type) == ("S", "S")
    assert Video.table_name() == "videos"
    assert Video.tags.name == "t"
    assert Video.attr("tags") is Video.tags  # the typed way to reach it
    assert (Video.attr("plays") > 3) == (Path("plays") > 3)
    with pytest.raises(AttributeError):
        Video.attr("nope")
    assert Video.pk.elements == ("PK",)
    v = Video(pk="a", sk="b", title="Cats")
    assert v.plays is None and v.tags == set() and v.version is None
    assert Video(pk="a", sk="b").tags is not v.tags  # mutable defaults are copied
    assert v.to_item() == {"PK": "a", "SK": "b", "title": "Cats"}  # no empty set
    with pytest.raises(TypeError):
        Video(nope=1)
    assert repr(v).startswith("Video(pk='a'")


def test_model_needs_binding() -> None:
    class Lonely(tallydb.Model, table="lonely"):
        id: str = tallydb.HashKey()

    with pytest.raises(RuntimeError, match="bind"):
        Lonely.get("x")


def test_atomic_counter_expression_is_javas(db: tallydb.Database) -> None:
    class Customer(tallydb.Model, table="customers"):
        id: str = tallydb.HashKey()
        update_counter: int = tallydb.AtomicCounter()
        custom_counter: int = tallydb.AtomicCounter(delta=5, start=10)

    Customer.bind(db)
    Customer.create_table()
    sent: list[dict[str, Any]] = []
    call = db.transport.call

    def spy(operation: str, request: dict[str, Any]) -> dict[str, Any]:
        sent.append(request)
        return call(operation, request)

    db.transport.call = spy  # type: ignore[method-assign]
    Customer(id="SOME_ID").update()
    (request,) = sent
    assert request["UpdateExpression"] == (
        "SET #update_counter = if_not_exists(#update_counter, :v0) + :v1, "
        "#custom_counter = if_not_exists(#custom_counter, :v2) + :v3"
    )
    assert request["ExpressionAttributeValues"] == {
        ":v0": {"N": "-1"},  # start - delta
        ":v1": {"N": "1"},
        ":v2": {"N": "5"},
        ":v3": {"N": "5"},
    }
    assert request["ReturnValues"] == "ALL_NEW"


def test_counters_on_put_and_update(db: tallydb.Database) -> None:
    class Customer(tallydb.Model, table="customers"):
        id: str = tallydb.HashKey()
        name: str | None = None
        update_counter: int = tallydb.AtomicCounter()
        custom_counter: int = tallydb.AtomicCounter(delta=5, start=10)
        down: int = tallydb.AtomicCounter(delta=-1, start=100)

    Customer.bind(db)
    Customer.create_table()
    c = Customer(id="A", name="Ada")
    c.save()  # a put writes the start values
    assert (c.update_counter, c.custom_counter, c.down) == (0, 10, 100)
    assert Customer.get("A", consistent=True) == c
    c.update()
    assert (c.update_counter, c.custom_counter, c.down) == (1, 15, 99)
    c.name = "Ada L."
    c.update()
    got = Customer.get(id="A", consistent=True)
    assert (got.name, got.update_counter, got.custom_counter, got.down) == ("Ada L.", 2, 20, 98)
    c.save()  # as in the Java client: a put resets the counters
    assert Customer.get("A", consistent=True).update_counter == 0


def test_setting_a_counter_by_hand_is_refused(db: tallydb.Database) -> None:
    class Customer(tallydb.Model, table="customers"):
        id: str = tallydb.HashKey()
        update_counter: int = tallydb.AtomicCounter()

    Customer.bind(db)
    Customer.create_table()
    c = Customer(id="A", update_counter=5)
    with pytest.raises(tallydb.ValidationException) as caught:
        c.update()
    assert caught.value.message == (
        "Invalid UpdateExpression: Two document paths overlap with each other; must remove "
        "or rewrite one of these paths; path one: [update_counter], path two: [update_counter]"
    )
    with pytest.raises(tallydb.ItemNotFoundError):
        Customer.get("A", consistent=True)  # nothing was sent
    with pytest.raises(tallydb.ValidationException):
        Customer(id="B").update(Update().set(Customer.update_counter, 1))


def test_update_sends_what_changed(db: tallydb.Database) -> None:
    class Profile(tallydb.Model, table="profiles"):
        id: str = tallydb.HashKey()
        name: str | None = None
        bio: str | None = None
        visits: int = 0

    Profile.bind(db)
    Profile.create_table()
    Profile(id="p", name="Ada", bio="math", visits=3).save()
    loaded = Profile.get("p", consistent=True)
    loaded.bio = None  # assigned None: REMOVE
    loaded.update(Update().add(Profile.visits, 1))
    assert loaded == Profile.from_item({"id": "p", "name": "Ada", "visits": 4})
    # another writer changes name; our stale instance does not send it back
    Profile.table().update({"id": "p"}, Update().set("name", "Lovelace"))
    loaded.visits = 10
    loaded.update()
    assert Profile.get("p", consistent=True).name == "Lovelace"
    with pytest.raises(ValueError, match="nothing to update"):
        loaded.update()


def test_update_with_condition(db: tallydb.Database) -> None:
    class Account(tallydb.Model, table="accounts"):
        id: str = tallydb.HashKey()
        balance: int = 0

    Account.bind(db)
    Account.create_table()
    a = Account(id="a", balance=10)
    a.save()
    a.update(Update().add(Account.balance, -7), condition=Account.balance >= 7)
    assert a.balance == 3
    with pytest.raises(tallydb.ConditionalCheckFailedException):
        a.update(Update().add(Account.balance, -7), condition=Account.balance >= 7)
    assert Account.get("a", consistent=True).balance == 3


def test_version_attribute(db: tallydb.Database) -> None:
    class Doc(tallydb.Model, table="docs"):
        pk: str = tallydb.HashKey()
        sk: int = tallydb.RangeKey()
        body: str = ""
        version: int = tallydb.VersionAttribute()

    Doc.bind(db)
    Doc.create_table()
    assert Doc.schema().range_type == "N"
    a = Doc(pk="x", sk=1, body="first")
    a.save()
    assert a.version == 1
    with pytest.raises(tallydb.VersionConflictError):
        Doc(pk="x", sk=1, body="again").save()  # a new instance: only if no item
    b = Doc.get("x", 1, consistent=True)
    b.body = "b"
    b.update()
    assert b.version == 2
    a.body = "a"
    with pytest.raises(tallydb.VersionConflictError) as caught:
        a.update()  # a read version 1; the item is at 2
    assert isinstance(caught.value, tallydb.ConditionalCheckFailedException)
    assert caught.value.code() == "ConditionalCheckFailedException"
    with pytest.raises(tallydb.VersionConflictError):
        a.delete()
    a.refresh()
    assert (a.body, a.version) == ("b", 2)
    a.body = "a"
    a.update()
    assert a.version == 3
    a.delete()
    assert list(Doc.scan()) == []


def test_query_scan_and_types(db: tallydb.Database) -> None:
    class Event(tallydb.Model, table="events"):
        stream: str = tallydb.HashKey()
        seq: int = tallydb.RangeKey()
        at: dt.datetime | None = None
        amount: Decimal = Decimal(0)
        ratio: float = 0.0
        data: bytes = b""
        flags: set[int] = tallydb.Attribute(default=None)
        payload: dict[str, Any] | None = None
        ok: bool = True

    Event.bind(db)
    Event.create_table()
    empty = Event(stream="t", seq=1, flags=set())
    empty.save()  # an empty set is no attribute
    empty.flags = {1}
    empty.update()
    empty.flags = set()
    empty.update()
    assert Event.get("t", 1, consistent=True).flags is None
    empty.delete()
    when = dt.datetime(2026, 11, 21, 12, 30)
    for seq in range(5):
        Event(
            stream="s",
            seq=seq,
            at=when,
            amount=Decimal("1.25") * seq,
            ratio=seq / 4,
            data=bytes([seq]),
            flags={seq, 10},
            payload={"n": [seq]},
        ).save()
    Event(stream="t", seq=0).save()
    events = list(Event.query("s", consistent=True))
    assert [e.seq for e in events] == [0, 1, 2, 3, 4]
    e = events[3]
    assert e.at == when
    assert e.amount == Decimal("3.75") and type(e.amount) is Decimal
    assert e.ratio == 0.75 and type(e.ratio) is float
    assert e.data == b"\x03" and e.flags == {3, 10} and e.payload == {"n": [3]}
    assert [e.seq for e in Event.query("s", Event.seq >= 3, consistent=True)] == [3, 4]
    assert [e.seq for e in Event.query("s", reverse=True, limit=2)] == [4, 3]
    assert [e.seq for e in Event.query("s", filter=Event.amount > 2)] == [2, 3, 4]
    assert len(list(Event.scan())) == 6
    assert [e.stream for e in Event.scan(Path("stream") == "t")] == ["t"]
    with pytest.raises(tallydb.ItemNotFoundError):
        Event.get("s", 99)
    assert Event.get(stream="s", seq=2).payload == {"n": [2]}


def test_bind_with_another_table_name(db: tallydb.Database) -> None:
    class Thing(tallydb.Model, table="things"):
        id: str = tallydb.HashKey()

    Thing.bind(db, table="things-elsewhere")
    Thing.create_table()
    Thing(id="x").save()
    assert "things-elsewhere" in db.list_tables()
    with pytest.raises(TypeError):
        Thing.bind(object())  # type: ignore[arg-type]
