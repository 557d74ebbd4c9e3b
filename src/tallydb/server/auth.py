"""SigV4 verification, when the server is given credentials.

Without credentials the server accepts any request, signed or not (as
DynamoDB Local accepts any signature). With them, every request must be
signed by one of the configured access keys: the signature is recomputed
with botocore's own signer over the headers the client says it signed, so
what botocore signs, we verify, byte for byte. As DynamoDB, the payload is
always part of what is signed: ``X-Amz-Content-SHA256: UNSIGNED-PAYLOAD``
does not take the body out of the signature; and the signature must cover
``Host``, the date and ``X-Amz-Target``, so that it cannot be replayed
against another operation. Errors and messages are DynamoDB's. A verified
request's answer is the key's ``Access``.

A data-plane request (``POST /`` to a plain host name) has its canonical
request built here, as botocore builds it (``tests/server/test_auth.py``
holds the two equal over many header sets); any other URL goes through
botocore's signer itself. The signing key derived from a secret, a date, a
region and the service is kept (``tallydb.toolkit.sigv4.SigningKeys``, which
the transfer's signer shares: keyed by the secret itself, so another secret
never finds it, and bounded), and signatures are compared in constant time,
as bytes.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import re
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import NamedTuple
from urllib.parse import urlsplit

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest, HTTPHeaders
from botocore.credentials import Credentials

from tallydb.engine.api import Access
from tallydb.engine.errors import (
    IncompleteSignatureException,
    InvalidSignatureException,
    MissingAuthenticationTokenException,
    UnrecognizedClientException,
)
from tallydb.server.credentials import Key
from tallydb.toolkit.sigv4 import SigningKeys

MISSING_TOKEN = "Request is missing Authentication Token"
INVALID_TOKEN = "The security token included in the request is invalid."
SIGNATURE_MISMATCH = (
    "The request signature we calculated does not match the signature you provided. "
    "Check your AWS Secret Access Key and signing method. "
    "Consult the service documentation for details."
)
CONTENT_SHA_MISMATCH = (
    "The provided 'x-amz-content-sha256' header does not match what was computed."
)
HOST_NOT_SIGNED = "'Host' must be a 'SignedHeader' in the AWS Authorization."
#: The same for the request's date and its target: not on record (DynamoDB
#: accepts a signature without them); ours, worded as DynamoDB's for Host.
#: Every SDK and the console sign both, and a signature that left the target
#: out could be replayed as another operation (a GetItem as a DeleteItem).
NOT_SIGNED = "'{}' must be a 'SignedHeader' in the AWS Authorization."
#: Headers a signature must cover whenever the request carries them.
MUST_SIGN = (("x-amz-date", "X-Amz-Date"), ("x-amz-target", "X-Amz-Target"))
ALGORITHM = "AWS4-HMAC-SHA256"
SERVICE = "dynamodb"
TIMESTAMP = "%Y%m%dT%H%M%SZ"
MAX_SKEW = timedelta(minutes=15)
UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD"  # a client's claim; the body is hashed regardless


class _Recompute(SigV4Auth):  # type: ignore[misc]
    """botocore's signer, told which headers the client signed."""

    def __init__(self, credentials: Credentials, region: str, signed: list[str]) -> None:
        super().__init__(credentials, SERVICE, region)
        self._signed = signed

    def headers_to_sign(self, request: AWSRequest) -> HTTPHeaders:
        chosen = HTTPHeaders()
        for name in self._signed:
            for value in request.headers.get_all(name) or ():
                chosen[name] = value
        return chosen

    def canonical_request(self, request: AWSRequest) -> str:
        """botocore's, except that the payload hash is always the body's own
        (botocore would take the client's X-Amz-Content-SHA256 as it is)."""
        signed = self.headers_to_sign(request)
        return "\n".join((
            request.method.upper(),
            self._normalize_url_path(urlsplit(request.url).path),
            self.canonical_query_string(request),
            self.canonical_headers(signed) + "\n",
            self.signed_headers(signed),
            hashlib.sha256(request.body or b"").hexdigest(),
        ))


#: A Host whose URL ``http://{host}/`` has the path ``/`` and nothing else
#: for ``urlsplit`` (no path, query, fragment, userinfo or brackets in it).
_PLAIN_HOST = re.compile(r"[A-Za-z0-9.:_-]*")


class Verifier:
    """Checks a request's SigV4 signature against the configured keys."""

    def __init__(self, keys: Mapping[str, Key | str]) -> None:
        self.keys = {
            name: key if isinstance(key, Key) else Key(key) for name, key in keys.items()
        }
        self.signing_keys = SigningKeys()

    def check_head(self, headers: list[tuple[str, str]], now: datetime | None = None) -> None:
        """Raise DynamoDB's error for a request its headers alone condemn
        (no signature, an unknown key, a stale date...): what ``verify``
        would raise before it needs the body."""
        self._head(_by_name(headers), now or datetime.now(UTC))

    def _head(self, by_name: dict[str, list[str]], now: datetime) -> _Head:
        """Every check that needs only the headers, in DynamoDB's order."""
        auth = ",".join(by_name.get("authorization", []))
        if not auth or auth.strip()[:5] != "AWS4-":
            raise MissingAuthenticationTokenException(MISSING_TOKEN)
        params = _auth_params(auth)
        date = _first(by_name, "x-amz-date") or _first(by_name, "date")
        missing = "".join(
            f"Authorization header requires '{p}' parameter. "
            for p in ("Credential", "Signature", "SignedHeaders")
            if not params.get(p)
        )
        if not date:
            missing += (
                "Authorization header requires existence of either a 'X-Amz-Date' or a "
                "'Date' header. "
            )
        if missing or not date:
            raise IncompleteSignatureException(missing + "Authorization=" + auth)
        algorithm = auth.strip().split(" ", 1)[0]
        if algorithm != ALGORITHM:
            raise IncompleteSignatureException(
                f"Unsupported AWS 'algorithm': '{algorithm}' (only {ALGORITHM} for now). "
            )
        scope = params["Credential"].rstrip("/").split("/")
        if len(scope) != 5:
            raise IncompleteSignatureException(
                "Credential must have exactly 5 slash-delimited elements, "
                f"e.g. keyid/date/region/service/term, got '{params['Credential']}'"
            )
        access_key, scope_date, region, service, terminator = scope
        timestamp = _timestamp(date)
        problems = ""
        if service != SERVICE:
            problems += f"Credential should be scoped to correct service: '{SERVICE}'. "
        if terminator != "aws4_request":
            problems += (
                f"Credential should be scoped with a valid terminator: 'aws4_request', "
                f"not '{terminator}'. "
            )
        if scope_date != timestamp[:8]:
            problems += (
                "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of "
                f"date from HTTP: '{scope_date}' != '{timestamp[:8]}', from '{timestamp}'."
            )
        if problems:
            raise InvalidSignatureException(problems.strip())
        signed = [h.strip().lower() for h in params["SignedHeaders"].split(";") if h.strip()]
        if "host" not in signed:
            raise InvalidSignatureException(HOST_NOT_SIGNED)
        key = self.keys.get(access_key)
        if key is None:
            raise UnrecognizedClientException(INVALID_TOKEN)
        _check_time(timestamp, now)
        # (ours, after DynamoDB's own checks: see NOT_SIGNED)
        for name, spelled in MUST_SIGN:
            if name in by_name and name not in signed:
                raise InvalidSignatureException(NOT_SIGNED.format(spelled))
        if "x-amz-date" not in by_name and "date" not in signed:
            raise InvalidSignatureException(NOT_SIGNED.format("Date"))
        return _Head(params, access_key, key, region, signed, timestamp)

    def verify(
        self,
        method: str,
        url: str,
        headers: list[tuple[str, str]],
        body: bytes,
        now: datetime | None = None,
    ) -> Access:
        """What the signing key may do; DynamoDB's error if the request is
        not signed by a known key."""
        by_name = _by_name(headers)
        params, access_key, key, region, signed, timestamp = self._head(
            by_name, now or datetime.now(UTC))
        content_sha = _first(by_name, "x-amz-content-sha256")
        if content_sha is not None and content_sha != UNSIGNED_PAYLOAD and not _same(
            content_sha, hashlib.sha256(body).hexdigest()
        ):
            raise InvalidSignatureException(CONTENT_SHA_MISMATCH)
        host = _first(by_name, "host")
        if url == "/" and (host is None or _PLAIN_HOST.fullmatch(host)):
            canonical = canonical_request(method, by_name, signed, body)
        else:
            canonical = _botocore_canonical(method, url, headers, body, host, timestamp,
                                            access_key, key.secret, region, signed)
        string_to_sign = "\n".join((
            ALGORITHM, timestamp, f"{timestamp[:8]}/{region}/{SERVICE}/aws4_request",
            hashlib.sha256(canonical.encode("utf-8")).hexdigest()))
        signing_key = self.signing_keys.get(key.secret, timestamp[:8], region, SERVICE)
        expected = hmac.digest(signing_key, string_to_sign.encode("utf-8"), "sha256").hex()
        if not _same(expected, params["Signature"]):
            raise InvalidSignatureException(SIGNATURE_MISMATCH)
        return Access(access_key, region, key.read_only, key.tables, principal=key.principal)


def canonical_request(method: str, by_name: dict[str, list[str]], signed: list[str],
                      body: bytes) -> str:
    """SigV4's canonical request of a request to ``/`` without a query, as
    ``_Recompute`` (botocore) builds it from the client's SignedHeaders:
    a name signed twice has its values twice, a signed name the request
    lacks is left out, each value's whitespace runs made one space."""
    names = sorted({name for name in signed if name in by_name})
    lines = []
    for name in names:
        value = ",".join(" ".join(value.split()) for value in by_name[name])
        times = signed.count(name)
        lines.append(f"{name}:{value if times == 1 else ','.join([value] * times)}")
    return "\n".join((method.upper(), "/", "", "\n".join(lines) + "\n", ";".join(names),
                      hashlib.sha256(body).hexdigest()))


def _botocore_canonical(method: str, url: str, headers: list[tuple[str, str]], body: bytes,
                        host: str | None, timestamp: str, access_key: str, secret: str,
                        region: str, signed: list[str]) -> str:
    """The canonical request as botocore's signer builds it (any URL)."""
    request = AWSRequest(method=method, url=_absolute(url, host), data=body)
    for name, value in headers:
        request.headers[name] = value  # HTTPHeaders appends repeated names
    request.context["timestamp"] = timestamp
    signer = _Recompute(Credentials(access_key, secret), region, signed)
    return str(signer.canonical_request(request))


def _same(expected: str, given: str) -> bool:
    """Whether ``given`` is ``expected``, compared in constant time (as
    bytes: a string the client sent may hold any character)."""
    return hmac.compare_digest(expected.encode(), given.encode("utf-8", "surrogatepass"))


class _Head(NamedTuple):
    """What a request's headers say about its signature, once checked."""

    params: dict[str, str]
    access_key: str
    key: Key
    region: str
    signed: list[str]
    timestamp: str


def _by_name(headers: list[tuple[str, str]]) -> dict[str, list[str]]:
    by_name: dict[str, list[str]] = {}
    for name, value in headers:
        by_name.setdefault(name.lower(), []).append(value)
    return by_name


def _auth_params(auth: str) -> dict[str, str]:
    params: dict[str, str] = {}
    rest = "".join(auth.strip().split(" ")[1:])
    for part in rest.split(","):
        key, _, value = part.strip().partition("=")
        params[key] = value
    return params


def _first(by_name: dict[str, list[str]], name: str) -> str | None:
    values = by_name.get(name)
    return values[0] if values else None


@functools.lru_cache(maxsize=64)  # (the same date comes with every request of a second)
def _timestamp(date: str) -> str:
    """The request time as SigV4's basic ISO-8601 (from X-Amz-Date or Date)."""
    try:
        datetime.strptime(date, TIMESTAMP)
        return date
    except ValueError:
        pass
    try:
        return parsedate_to_datetime(date).astimezone(UTC).strftime(TIMESTAMP)
    except (TypeError, ValueError):
        raise IncompleteSignatureException(
            f"Date must be in ISO-8601 'basic format'. Got '{date}'. "
            "See http://en.wikipedia.org/wiki/ISO_8601"
        ) from None


@functools.lru_cache(maxsize=64)
def _moment(timestamp: str) -> datetime:
    return datetime.strptime(timestamp, TIMESTAMP).replace(tzinfo=UTC)


def _check_time(timestamp: str, now: datetime) -> None:
    when = _moment(timestamp)
    if when < now - MAX_SKEW:
        raise InvalidSignatureException(
            f"Signature expired: {timestamp} is now earlier than "
            f"{(now - MAX_SKEW).strftime(TIMESTAMP)} ({now.strftime(TIMESTAMP)} - 15 min.)"
        )
    if when > now + MAX_SKEW:
        raise InvalidSignatureException(
            f"Signature not yet current: {timestamp} is still later than "
            f"{(now + MAX_SKEW).strftime(TIMESTAMP)} ({now.strftime(TIMESTAMP)} + 15 min.)"
        )


def _absolute(url: str, host: str | None) -> str:
    return f"http://{host or 'localhost'}{url if url.startswith('/') else '/' + url}"
