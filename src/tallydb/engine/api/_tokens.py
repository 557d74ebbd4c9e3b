"""TransactWriteItems' ClientRequestToken: remembered for 10 minutes.

A token is recorded, in the same SQLite transaction as the writes it guards,
when a transaction succeeds: with a digest of the request's TransactItems and
the capacity the replay reports. Within ``TOKEN_LIFETIME`` seconds the same
token with the same TransactItems is answered without applying anything; with
other TransactItems it is IdempotentParameterMismatchException. A cancelled
transaction records nothing, so retrying it re-runs it.

The records live in the store's own database (``Transaction.get_token``,
``put_token``), so they survive a restart.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from typing import Any

import orjson

from tallydb.engine.errors import IdempotentParameterMismatchException
from tallydb.engine.storage import Transaction

#: DynamoDB honours a token for 10 minutes after the first call completes.
TOKEN_LIFETIME = 600.0
MISMATCH = (
    "The request uses the same client token as a previous, but non-identical request."
)


@dataclass(frozen=True)
class Remembered:
    """A token's record: the replay's read units per table."""

    replay: dict[str, float]


def digest(transact_items: Any) -> bytes:
    """A stable digest of what makes two requests "the same"."""
    try:
        encoded = orjson.dumps(transact_items, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # nested deeper than orjson writes (254), an integer past
        # 64 bits, a lone surrogate (the last two only from an embedded caller)
        encoded = _canonical(transact_items)
    return hashlib.sha256(encoded).digest()


def _canonical(value: Any) -> bytes:
    """``value`` as JSON with sorted keys, written without recursion, for
    values nested as deep as the request parser reads (1,024), by the
    standard library's encoder for scalars."""
    out: list[str] = []
    stack: list[Any] = [value]
    while stack:
        top = stack.pop()
        if isinstance(top, _Literal):
            out.append(top)
        elif isinstance(top, dict):
            stack.append(_Literal("}"))
            for i, key in enumerate(sorted(top, reverse=True)):
                stack.append(top[key])
                stack.append(_Literal(json.dumps(key) + ":"))
                if i < len(top) - 1:
                    stack.append(_Literal(","))
            out.append("{")
        elif isinstance(top, list):
            stack.append(_Literal("]"))
            for i, item in enumerate(reversed(top)):
                stack.append(item)
                if i < len(top) - 1:
                    stack.append(_Literal(","))
            out.append("[")
        else:
            out.append(json.dumps(top))
    return "".join(out).encode()


class _Literal(str):
    """Text ``_canonical`` writes as it is."""


def recall(txn: Transaction, token: str, request_digest: bytes) -> Remembered | None:
    """The record of ``token`` if it was used within the lifetime; raises
    IdempotentParameterMismatchException if it was used for another request."""
    row = txn.get_token(token)
    if row is None:
        return None
    digest_seen, created, replay = row
    if created < time.time() - TOKEN_LIFETIME:
        return None
    if digest_seen != request_digest:
        raise IdempotentParameterMismatchException(MISMATCH)
    return Remembered(replay=orjson.loads(replay))


def remember(
    txn: Transaction, token: str, request_digest: bytes, replay: dict[str, float]
) -> None:
    """Record a successful transaction's token (and forget expired ones)."""
    now = time.time()
    txn.forget_tokens_before(now - TOKEN_LIFETIME)
    txn.put_token(token, request_digest, now, orjson.dumps(replay))
