"""SigV4's signing keys: derived once per secret, date, region and service,
then kept, for the server's verifier and the transfer's signer alike.

A signing key is four HMACs away from its secret (AWS's "Create a signed
AWS API request", step 3); a client that signs every request, and a server
that checks every signature, would derive the same key again each time.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from typing import Any

__all__ = ["Signer", "SigningKeys", "derive"]


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


class Signer:
    """SigV4 for a JSON ``POST /`` with the headers Content-Type (``content_type``),
    Host and X-Amz-Target, as botocore's ``SigV4Auth`` signs them: the
    signed headers, the canonical request and the string to sign made
    directly, the derived signing key kept (botocore's signer takes about
    90 µs a request). Used by the transfer's DynamoDB client and the
    server's Kinesis client."""

    def __init__(self, credentials: Any, service: str, region: str, content_type: str) -> None:
        self._credentials = credentials  # botocore's: may refresh itself
        self._service = service
        self._region = region
        self._content_type = content_type
        self._keys = SigningKeys()

    def headers(self, host: str, target: str, body: bytes, when: str | None = None
                ) -> dict[str, str]:
        """The request's headers, signed; ``when``: its X-Amz-Date
        (``YYYYMMDDTHHMMSSZ``, now by default)."""
        frozen = self._credentials.get_frozen_credentials()
        when = when or time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        day = when[:8]
        token = frozen.token
        host = " ".join(host.split())
        canonical = [f"content-type:{self._content_type}", f"host:{host}", f"x-amz-date:{when}"]
        signed = "content-type;host;x-amz-date"
        if token:
            canonical.append(f"x-amz-security-token:{' '.join(token.split())}")
            signed += ";x-amz-security-token"
        canonical.append(f"x-amz-target:{target}")
        signed += ";x-amz-target"
        request = "POST\n/\n\n" + "\n".join(canonical) + f"\n\n{signed}\n" + (
            hashlib.sha256(body).hexdigest())
        scope = f"{day}/{self._region}/{self._service}/aws4_request"
        to_sign = (f"AWS4-HMAC-SHA256\n{when}\n{scope}\n"
                   + hashlib.sha256(request.encode()).hexdigest())
        key = self._keys.get(frozen.secret_key, day, self._region, self._service)
        signature = hmac.digest(key, to_sign.encode(), "sha256").hex()
        headers = {"Content-Type": self._content_type, "X-Amz-Target": target, "Host": host,
                   "X-Amz-Date": when,
                   "Authorization": f"AWS4-HMAC-SHA256 Credential={frozen.access_key}/{scope}, "
                                    f"SignedHeaders={signed}, Signature={signature}"}
        if token:
            headers["X-Amz-Security-Token"] = token
        return headers
