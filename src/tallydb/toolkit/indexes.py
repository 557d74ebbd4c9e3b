"""Secondary indexes, declared for ``db.create_table(..., indexes=[...])`` or
on a :class:`~tallydb.toolkit.model.Model`::

    db.create_table(
        "videos", hash_key=("PK", "S"), range_key=("SK", "S"),
        indexes=[tallydb.GlobalIndex("by_owner", hash_key=("owner", "S"),
                                     range_key=("created", "N")),
                 tallydb.LocalIndex("by_plays", range_key=("plays", "N"),
                                    projection="KEYS_ONLY")],
    )
    videos.query({"owner": "ada"}, index="by_owner")

    class Video(tallydb.Model, table="videos"):
        pk: str = tallydb.HashKey()
        owner: str = ""
        created: int = 0
        by_owner = tallydb.GlobalIndex("by_owner", hash_key="owner", range_key="created")

    Video.query("ada", index="by_owner")

On a model a key is named by the attribute (its DynamoDB type comes from the
annotation); for ``create_table`` it is ``(name, type)`` as the table's own
keys are. ``projection`` is ``"ALL"`` (the default), ``"KEYS_ONLY"`` or a list
of attribute names (``INCLUDE``). Indexes are billed with the table
(``PAY_PER_REQUEST``); a provisioned table gives each GSI the table's
throughput.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["GlobalIndex", "Index", "LocalIndex", "key_spec"]

KeyRef = tuple[str, str] | str
KEY_TYPES = ("S", "N", "B")


def key_spec(role: str, value: Any) -> tuple[str, str]:
    """``(name, type)`` checked, or a TypeError that says what a key is."""
    if (
        isinstance(value, tuple | list)
        and len(value) == 2
        and isinstance(value[0], str)
        and value[1] in KEY_TYPES
    ):
        return (value[0], value[1])
    raise TypeError(
        f'{role} is (name, type) with type "S", "N" or "B", e.g. {role}=("PK", "S"); '
        f"got {value!r}"
    )


@dataclass(frozen=True)
class Index:
    """What both kinds of index have: a name, keys, a projection."""

    name: str
    hash_key: KeyRef | None = None
    range_key: KeyRef | None = None
    projection: str | Sequence[str] = "ALL"

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise TypeError(f"an index name is a non-empty str, not {self.name!r}")
        if isinstance(self.projection, str) and self.projection not in ("ALL", "KEYS_ONLY"):
            raise ValueError(
                f'projection is "ALL", "KEYS_ONLY" or a list of attribute names, '
                f"not {self.projection!r}"
            )

    def projection_request(self) -> dict[str, Any]:
        if isinstance(self.projection, str):
            return {"ProjectionType": self.projection}
        return {"ProjectionType": "INCLUDE", "NonKeyAttributes": list(self.projection)}

    def resolved(
        self, table_hash: tuple[str, str], types: dict[str, str] | None = None
    ) -> tuple[tuple[str, str], tuple[str, str] | None]:
        """The index's (hash, range) keys as ``(name, type)``; a key named by
        a bare ``str`` gets its type from ``types`` (a model's attributes)."""

        def one(role: str, ref: KeyRef | None) -> tuple[str, str] | None:
            if ref is None:
                return None
            if isinstance(ref, str) and types is not None:
                if ref not in types:
                    raise TypeError(f"index {self.name!r}: {role} {ref!r} is not an attribute")
                return (ref, types[ref])
            return key_spec(f"{role} of index {self.name!r}", ref)

        hash_key = one("hash_key", self.hash_key)
        if hash_key is None:
            hash_key = table_hash
        return hash_key, one("range_key", self.range_key)

    def key_request(
        self, hash_key: tuple[str, str], range_key: tuple[str, str] | None
    ) -> dict[str, Any]:
        schema = [{"AttributeName": hash_key[0], "KeyType": "HASH"}]
        if range_key is not None:
            schema.append({"AttributeName": range_key[0], "KeyType": "RANGE"})
        return {
            "IndexName": self.name,
            "KeySchema": schema,
            "Projection": self.projection_request(),
        }


@dataclass(frozen=True)
class GlobalIndex(Index):
    """A global secondary index: any hash key (and optional range key)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.hash_key is None:
            raise TypeError(f"GlobalIndex {self.name!r} needs a hash_key")


@dataclass(frozen=True)
class LocalIndex(Index):
    """A local secondary index: the table's hash key, another range key."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.range_key is None:
            raise TypeError(f"LocalIndex {self.name!r} needs a range_key")
        if self.hash_key is not None:
            raise TypeError(
                f"LocalIndex {self.name!r}: a local index shares the table's hash key; "
                "give only range_key"
            )
