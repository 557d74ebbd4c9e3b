"""Where the server's access keys come from: a TOML file, or
``ACCESS_KEY:SECRET`` pairs in an environment variable (never the command
line, where ``ps`` shows them to every local user).

```toml
[keys.AKIDADMIN]
secret = "admin-secret"        # access defaults to "read-write", tables to all
[keys.AKIDREADER]
secret = "reader-secret"
access = "read-only"
tables = ["videos"]
principal = "arn:aws:iam::000000000000:user/reader"  # default: user/AKIDREADER
```
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Key:
    """One access key from the credentials file: its secret, and what it
    may do (the engine decides each request by it: ``engine/api/_access``)."""

    secret: str
    read_only: bool = False
    tables: frozenset[str] | None = None  # None: every table
    #: The ARN its requests are made as (resource policies name it); None:
    #: the key's user, ``arn:aws:iam::000000000000:user/KEY``.
    principal: str | None = None


ENVIRONMENT = "TALLYDB_CREDENTIALS"
ACCESS_LEVELS = ("read-write", "read-only")
_FIELDS = frozenset({"secret", "access", "tables", "principal"})


def load(path: Path) -> dict[str, Key]:
    """The keys of a credentials file; ValueError says what is wrong with it."""
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ValueError(f"cannot read {path}: {error.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ValueError(f"{path} is not TOML: {error}") from None
    keys = document.get("keys")
    if not isinstance(keys, dict) or not keys:
        raise ValueError(f"{path} has no [keys.ACCESS_KEY] table")
    unknown = sorted(set(document) - {"keys"})
    if unknown:
        raise ValueError(f"{path}: unknown top-level entries {unknown}")
    return {name: _key(path, name, entry) for name, entry in keys.items()}


def _key(path: Path, name: str, entry: Any) -> Key:
    where = f"{path}: [keys.{name}]"
    if not isinstance(entry, dict):
        raise ValueError(f"{where} must be a table")
    unknown = sorted(set(entry) - _FIELDS)
    if unknown:
        raise ValueError(f"{where}: unknown fields {unknown} (known: {sorted(_FIELDS)})")
    secret = entry.get("secret")
    if not isinstance(secret, str) or not secret:
        raise ValueError(f"{where} needs a secret")
    access = entry.get("access", "read-write")
    if access not in ACCESS_LEVELS:
        raise ValueError(f"{where}: access must be one of {list(ACCESS_LEVELS)}, not {access!r}")
    tables = entry.get("tables")
    if tables is not None and (
        not isinstance(tables, list) or not all(isinstance(t, str) and t for t in tables)
    ):
        raise ValueError(f"{where}: tables must be a list of table names")
    principal = entry.get("principal")
    if principal is not None and (not isinstance(principal, str)
                                  or not principal.startswith("arn:aws:iam::")):
        raise ValueError(f"{where}: principal must be an IAM ARN (arn:aws:iam::...)")
    return Key(secret, access == "read-only", None if tables is None else frozenset(tables),
               principal)


def from_pairs(text: str) -> dict[str, Key]:
    """``"AKID:SECRET AKID2:SECRET2"`` (spaces or commas between pairs):
    read-write keys for every table."""
    keys: dict[str, Key] = {}
    for pair in text.replace(",", " ").split():
        access_key, sep, secret = pair.partition(":")
        if not sep or not access_key or not secret:
            raise ValueError(f"{ENVIRONMENT} must hold ACCESS_KEY:SECRET pairs")
        keys[access_key] = Key(secret)
    return keys
