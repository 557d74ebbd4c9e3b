"""Making and removing tables from a shell: ``create-table`` and ``delete-table``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from tallydb.cli._store import database, store_options

if TYPE_CHECKING:
    from tallydb.toolkit.database import Database

__all__ = ["create_table", "delete_table", "summary"]

BILLING_MODES = ("PAY_PER_REQUEST", "PROVISIONED")
STREAM_VIEWS = ("NEW_AND_OLD_IMAGES", "NEW_IMAGE", "OLD_IMAGE", "KEYS_ONLY")


def _key(spec: str, what: str) -> tuple[str, str]:
    """``NAME`` or ``NAME:TYPE`` (S, N or B; S by default) as ``(name, type)``."""
    name, _, kind = spec.rpartition(":") if ":" in spec else (spec, "", "S")
    kind = kind.upper()
    if not name or kind not in ("S", "N", "B"):
        raise click.BadParameter(f"a key is NAME or NAME:TYPE with TYPE S, N or B, not {spec!r}",
                                 param_hint=what)
    return name, kind


def _index(spec: str, what: str) -> tuple[str, list[tuple[str, str]]]:
    """``NAME=KEY[:TYPE][,KEY[:TYPE]]`` as ``(name, [keys])``."""
    name, sep, keys = spec.partition("=")
    parts = [k for k in keys.split(",") if k]
    if not sep or not name or not 1 <= len(parts) <= 2:
        raise click.BadParameter(
            f"an index is NAME=KEY[:TYPE][,KEY[:TYPE]], like by_owner=owner:S,SK:S, not {spec!r}",
            param_hint=what)
    return name, [_key(part, what) for part in parts]


def _read_description(source: str) -> dict[str, Any]:
    text = sys.stdin.read() if source == "-" else Path(source).read_text()
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise click.BadParameter(f"{source} is not JSON ({error})", param_hint="--from") from None
    if not isinstance(value, dict):
        raise click.BadParameter(f"{source} holds no JSON object", param_hint="--from")
    return value


def summary(description: dict[str, Any], ttl: str | None, recovery: bool = False) -> str:
    """One line about a table: its key, billing, indexes, TTL, stream and
    point-in-time recovery."""
    types = {a["AttributeName"]: a["AttributeType"] for a in description["AttributeDefinitions"]}

    def keys(schema: list[dict[str, str]]) -> str:
        return ", ".join(f"{k['AttributeName']} ({types.get(k['AttributeName'], '?')})"
                         for k in schema)

    billing = (description.get("BillingModeSummary") or {}).get("BillingMode", "PROVISIONED")
    parts = [f"key {keys(description['KeySchema'])}", billing]
    for kind, label in (("GlobalSecondaryIndexes", "global index"),
                        ("LocalSecondaryIndexes", "local index")):
        for index in description.get(kind) or ():
            parts.append(f"{label} {index['IndexName']} ({keys(index['KeySchema'])})")
    if ttl:
        parts.append(f"TTL on {ttl}")
    stream = description.get("StreamSpecification") or {}
    if stream.get("StreamEnabled"):
        parts.append(f"stream {stream['StreamViewType']}")
    if recovery:
        parts.append("point-in-time recovery on")
    return f"table {description['TableName']}: " + "; ".join(parts)


@click.command("create-table")
@click.argument("table", required=False)
@click.option("--hash-key", metavar="NAME[:TYPE]",
              help="The partition key; TYPE is S (the default), N or B.")
@click.option("--range-key", metavar="NAME[:TYPE]", help="The sort key, if any.")
@click.option("--billing-mode", type=click.Choice(BILLING_MODES),
              help="PAY_PER_REQUEST (the default for a new table) or PROVISIONED "
                   "(5 read and 5 write units).")
@click.option("--gsi", "gsis", multiple=True, metavar="NAME=KEY[:TYPE][,KEY[:TYPE]]",
              help="A global secondary index (repeatable), projecting every attribute: "
                   "--gsi by_owner=owner:S,SK:S.")
@click.option("--lsi", "lsis", multiple=True, metavar="NAME=KEY[:TYPE]",
              help="A local secondary index on another sort key (repeatable): "
                   "--lsi by_plays=plays:N.")
@click.option("--ttl", "ttl", metavar="ATTRIBUTE",
              help="Expire items once ATTRIBUTE (epoch seconds) has passed.")
@click.option("--stream", type=click.Choice(STREAM_VIEWS),
              help="Turn on a DynamoDB stream showing this much of each change.")
@click.option("--point-in-time-recovery", "recovery", is_flag=True,
              help="Turn on point-in-time recovery (UpdateContinuousBackups), so that "
                   "`tallydb restore` can bring the table back to any second from then on.")
@click.option("--from", "source", metavar="FILE",
              help="Create it as this JSON file says: a CreateTable request, or a table's "
                   "description (`aws dynamodb describe-table` output, or "
                   "`tallydb describe`'s); - reads standard input. TABLE, if given, names "
                   "the new table.")
@click.option("--exist-ok", is_flag=True,
              help="If TABLE exists, make it what is asked (a missing global index, TTL, a "
                   "stream, point-in-time recovery, the billing mode given) instead of "
                   "failing; what cannot change (its keys, a local index) fails naming each "
                   "difference.")
@store_options
def create_table(
    table: str | None, hash_key: str | None, range_key: str | None, billing_mode: str | None,
    gsis: tuple[str, ...], lsis: tuple[str, ...], ttl: str | None, stream: str | None,
    recovery: bool, source: str | None, exist_ok: bool, data: Path | None, endpoint: str | None,
) -> None:
    """Create TABLE with the given keys, indexes, TTL, stream and
    point-in-time recovery, wait until it is ACTIVE, and print one line about it.

    \b
    Example:
        tallydb create-table videos --hash-key PK:S --range-key SK:S
        tallydb create-table videos --hash-key PK --range-key SK \\
            --gsi by_owner=owner:S,SK:S --ttl expires_at --stream NEW_AND_OLD_IMAGES \\
            --point-in-time-recovery
        aws dynamodb describe-table --table-name videos > videos.json
        tallydb create-table --from videos.json videos_copy
    """
    from tallydb.toolkit.indexes import GlobalIndex, LocalIndex

    if source is not None:
        given = [flag for flag, value in (("--hash-key", hash_key), ("--range-key", range_key),
                                          ("--billing-mode", billing_mode), ("--gsi", gsis),
                                          ("--lsi", lsis), ("--stream", stream)) if value]
        if given:
            raise click.UsageError(f"--from FILE says the table's shape: drop {', '.join(given)}")
        description = _read_description(source)
        ttl = ttl or description.get("TimeToLiveAttribute")  # tallydb export's description
        with database(data, endpoint, table) as db:
            try:
                created = db.create_table_from(description, name=table, ttl_attribute=ttl,
                                               exist_ok=exist_ok)
            except ValueError as error:
                raise click.BadParameter(f"{source}: {error}", param_hint="--from") from None
            if recovery:
                _turn_on_recovery(db, created.name)
            _print_summary(db, created.name)
        return
    if table is None or hash_key is None:
        raise click.UsageError("give TABLE and --hash-key NAME[:TYPE] (or --from FILE)")
    indexes: list[GlobalIndex | LocalIndex] = []
    for spec in gsis:
        name, keys = _index(spec, "--gsi")
        indexes.append(GlobalIndex(name, hash_key=keys[0],
                                   range_key=keys[1] if len(keys) > 1 else None))
    for spec in lsis:
        name, keys = _index(spec, "--lsi")
        if len(keys) != 1:
            raise click.BadParameter(f"a local index has one key, its sort key: {spec!r}",
                                     param_hint="--lsi")
        indexes.append(LocalIndex(name, range_key=keys[0]))
    if lsis and range_key is None:
        raise click.UsageError("a local index needs the table's --range-key")
    with database(data, endpoint, table) as db:
        db.create_table(
            table, hash_key=_key(hash_key, "--hash-key"),
            range_key=None if range_key is None else _key(range_key, "--range-key"),
            billing_mode=billing_mode, indexes=indexes, ttl_attribute=ttl, stream=stream,
            exist_ok=exist_ok)
        if recovery:
            _turn_on_recovery(db, table)
        _print_summary(db, table)


def _turn_on_recovery(db: Database, table: str) -> None:
    db.transport.call("UpdateContinuousBackups", {
        "TableName": table,
        "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True}})


def _print_summary(db: Database, table: str) -> None:
    description = db.table(table).describe()
    answer = db.transport.call("DescribeTimeToLive", {"TableName": table})
    ttl = answer.get("TimeToLiveDescription", {})
    on = ttl.get("TimeToLiveStatus") in ("ENABLED", "ENABLING")
    backups = db.transport.call("DescribeContinuousBackups", {"TableName": table})
    recovery = backups["ContinuousBackupsDescription"].get(
        "PointInTimeRecoveryDescription", {}).get("PointInTimeRecoveryStatus") == "ENABLED"
    click.echo(summary(description, ttl.get("AttributeName") if on else None, recovery))


@click.command("delete-table")
@click.argument("table")
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
@store_options
def delete_table(table: str, yes: bool, data: Path | None, endpoint: str | None) -> None:
    """Delete TABLE and every item in it, after asking (--yes does not ask).

    \b
    Example:
        tallydb delete-table videos2 --yes
    """
    with database(data, endpoint, table) as db:
        db.table(table).describe()  # a missing table fails before the question
        if not yes:
            click.confirm(f"Delete table {table} and every item in it?", abort=True)
        db.delete_table(table)
    click.echo(f"deleted table {table}")
