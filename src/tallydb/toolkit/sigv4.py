"""SigV4's signing keys: derived once per secret, date, region and service,
then kept, for the server's verifier and the transfer's signer alike.

A signing key is four HMACs away from its secret (AWS's "Create a signed
AWS API request", step 3); a client that signs every request, and a server
that checks every signature, would derive the same key again each time.
"""

from __future__ import annotations

import hmac

__all__ = ["SigningKeys", "derive"]


def derive(secret: str, date: str, region: str, service: str) -> bytes:
    """The signing key of ``secret`` for requests of ``date`` (``YYYYMMDD``)
    to ``service`` in ``region``."""
    key = hmac.digest(("AWS4" + secret).encode("utf-8"), date.encode("utf-8"), "sha256")
    for part in (region, service, "aws4_request"):
        key = hmac.digest(key, part.encode("utf-8"), "sha256")
    return key


class SigningKeys:
    """Signing keys already derived: one per secret, date, region and
    service. The secret itself is part of what a key is kept by, so a key
    derived from one secret is never used for another; at most ``KEPT`` are
    kept (the regions are a client's to name), the oldest forgotten first."""

    KEPT = 256

    def __init__(self) -> None:
        self._keys: dict[tuple[str, str, str, str], bytes] = {}

    def get(self, secret: str, date: str, region: str, service: str) -> bytes:
        wanted = (secret, date, region, service)
        key = self._keys.get(wanted)
        if key is None:
            key = derive(secret, date, region, service)
            keys = self._keys
            if len(keys) >= self.KEPT:
                del keys[next(iter(keys))]
            keys[wanted] = key
        return key
