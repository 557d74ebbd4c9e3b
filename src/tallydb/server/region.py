"""The region a request was signed for, read from its Authorization header.

SigV4's credential scope names it: ``Authorization: AWS4-HMAC-SHA256
Credential=AKID/DATE/REGION/dynamodb/aws4_request, ...``. It is read whether
or not the server checks signatures (an access key holds no "/", so the
region is the third "/"-separated part), and an unsigned request, or one
whose scope names no region, runs in ``DEFAULT_REGION``.
"""

from __future__ import annotations

import re

from tallydb.engine.api import DEFAULT_REGION

__all__ = ["region_of"]

_REGION = re.compile(rb"[a-z0-9-]{1,64}")
#: Scope regions seen, decoded once (clients use a handful).
_SEEN: dict[bytes, str] = {}


def region_of(authorization: bytes | None) -> str:
    if authorization is None:
        return DEFAULT_REGION
    parts = authorization.split(b"/", 3)
    if len(parts) < 4:
        return DEFAULT_REGION
    raw = parts[2]
    region = _SEEN.get(raw)
    if region is None:
        region = raw.decode() if _REGION.fullmatch(raw) else DEFAULT_REGION
        if len(_SEEN) < 1024:
            _SEEN[raw] = region
    return region
