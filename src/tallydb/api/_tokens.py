"""TransactWriteItems' ClientRequestToken: remembered for 10 minutes.

A token is recorded, in the same SQLite transaction as the writes it guards,
when a transaction succeeds: with a digest of the request's TransactItems and
the capacity the replay reports. Within ``TOKEN_LIFETIME`` seconds the same
token with the same TransactItems is answered without applying anything; with
other TransactItems it is IdempotentParameterMismatchException. A cancelled
transaction records nothing, so retrying it re-runs it.

The records live in a table of the store's own database (``client_tokens``),
so they survive a restart. The storage layer has no API for it yet; this
module reaches the connection through the transaction (see ``_connection``).
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
from dataclasses import dataclass
from typing import Any

import orjson

from tallydb.errors import IdempotentParameterMismatchException
from tallydb.storage import Transaction

#: DynamoDB honours a token for 10 minutes after the first call completes.
TOKEN_LIFETIME = 600.0
MISMATCH = (
    "The request uses the same client token as a previous, but non-identical request."
)

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS client_tokens ("
    "token TEXT PRIMARY KEY, digest BLOB NOT NULL, created REAL NOT NULL, "
    "replay BLOB NOT NULL) WITHOUT ROWID;"
    "CREATE INDEX IF NOT EXISTS client_tokens_created ON client_tokens(created);"
)


@dataclass(frozen=True)
class Remembered:
    """A token's record: the replay's read units per table."""

    replay: dict[str, float]


def digest(transact_items: Any) -> bytes:
    """A stable digest of what makes two requests "the same"."""
    return hashlib.sha256(orjson.dumps(transact_items, option=orjson.OPT_SORT_KEYS)).digest()


def _connection(txn: Transaction) -> sqlite3.Connection:
    # Run every time: a rolled-back transaction takes a just-created table with it.
    conn: sqlite3.Connection = txn._conn
    for statement in _SCHEMA.split(";"):
        if statement:
            conn.execute(statement)
    return conn


def recall(txn: Transaction, token: str, request_digest: bytes) -> Remembered | None:
    """The record of ``token`` if it was used within the lifetime; raises
    IdempotentParameterMismatchException if it was used for another request."""
    conn = _connection(txn)
    row = conn.execute(
        "SELECT digest, created, replay FROM client_tokens WHERE token = ?", (token,)
    ).fetchone()
    if row is None or row[1] < time.time() - TOKEN_LIFETIME:
        return None
    if bytes(row[0]) != request_digest:
        raise IdempotentParameterMismatchException(MISMATCH)
    return Remembered(replay=orjson.loads(row[2]))


def remember(
    txn: Transaction, token: str, request_digest: bytes, replay: dict[str, float]
) -> None:
    """Record a successful transaction's token (and forget expired ones)."""
    conn = _connection(txn)
    now = time.time()
    conn.execute("DELETE FROM client_tokens WHERE created < ?", (now - TOKEN_LIFETIME,))
    conn.execute(
        "INSERT OR REPLACE INTO client_tokens(token, digest, created, replay) VALUES (?, ?, ?, ?)",
        (token, request_digest, now, orjson.dumps(replay)),
    )
