"""DynamoDB's JSON straight over HTTP: the requests of an import or export
(BatchWriteItem, Scan) sent as bytes to a boto3 client's endpoint, signed
with SigV4 when the client has credentials, answers read with orjson.

botocore would check each request against the service model, convert every
attribute value to Python and back and parse every answer the same way: on
an import or export that is most of the client's CPU per item. Here the
items stay in DynamoDB's JSON from the file to the socket and back. The
client lends its endpoint, region, credentials and TLS verification; one
keep-alive connection per thread. Requests are signed (SigV4) by
:class:`Signer`, which builds the canonical request of a ``POST /`` with
these fixed headers directly and keeps the derived key for the day:
botocore's signer takes about 90 µs a batch, several µs an item.
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import ssl
import sys
import threading
import time
from typing import Any
from urllib.parse import urlsplit

import orjson

from tallydb.engine.errors import DynamoDBError
from tallydb.toolkit.exceptions import TransportError, error_from_response
from tallydb.toolkit.transport import ClientTransport

__all__ = ["ATTEMPTS", "Signer", "WireClient", "wire_client"]

#: How many times a throttled, failed (5xx) or unanswered request is sent
#: before its error is raised: botocore's legacy retry mode for DynamoDB.
ATTEMPTS = 10
#: The answers worth sending the same request again for (botocore's own
#: list of throttling codes for DynamoDB, and a server that failed).
_RETRYABLE = frozenset({
    "ProvisionedThroughputExceededException", "ThrottlingException", "Throttling",
    "RequestLimitExceeded", "TransactionInProgressException", "InternalServerError",
    "ServiceUnavailable", "LimitExceededException",
})
_TARGET = "DynamoDB_20120810."


class Signer:
    """SigV4 for ``POST /`` with the headers :class:`WireClient` sends
    (Content-Type, Host, X-Amz-Target), as botocore's ``SigV4Auth`` signs
    them: the signed headers, the canonical request and the string to sign
    made directly, the derived signing key kept per secret and day."""

    def __init__(self, credentials: Any, service: str, region: str) -> None:
        self._credentials = credentials  # botocore's: may refresh itself
        self._service = service
        self._region = region
        self._key: tuple[str, str, bytes] | None = None  # (secret, day, key)

    def _signing_key(self, secret: str, day: str) -> bytes:
        kept = self._key
        if kept is not None and kept[0] == secret and kept[1] == day:
            return kept[2]
        key = ("AWS4" + secret).encode()
        for part in (day, self._region, self._service, "aws4_request"):
            key = hmac.digest(key, part.encode(), "sha256")
        self._key = (secret, day, key)
        return key

    def headers(self, host: str, target: str, body: bytes, when: str | None = None
                ) -> dict[str, str]:
        """The request's headers, signed; ``when``: its X-Amz-Date
        (``YYYYMMDDTHHMMSSZ``, now by default)."""
        frozen = self._credentials.get_frozen_credentials()
        when = when or time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        day = when[:8]
        token = frozen.token
        host = " ".join(host.split())
        canonical = [f"content-type:{_CONTENT_TYPE}", f"host:{host}", f"x-amz-date:{when}"]
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
        signature = hmac.new(self._signing_key(frozen.secret_key, day), to_sign.encode(),
                             "sha256").hexdigest()
        headers = {"Content-Type": _CONTENT_TYPE, "X-Amz-Target": target, "Host": host,
                   "X-Amz-Date": when,
                   "Authorization": f"AWS4-HMAC-SHA256 Credential={frozen.access_key}/{scope}, "
                                    f"SignedHeaders={signed}, Signature={signature}"}
        if token:
            headers["X-Amz-Security-Token"] = token
        return headers


_CONTENT_TYPE = "application/x-amz-json-1.0"


class WireClient:
    """Sends DynamoDB requests as JSON bytes where a boto3 client would."""

    def __init__(self, client: Any) -> None:
        meta = client.meta
        parts = urlsplit(meta.endpoint_url)
        self._https = parts.scheme == "https"
        self._host = parts.hostname or "localhost"
        self._port = parts.port or (443 if self._https else 80)
        self._url = f"{parts.scheme}://{parts.netloc}/"
        self._netloc = parts.netloc
        self._region = meta.region_name or "us-east-1"
        # botocore has no public accessor for a client's credentials
        credentials = client._request_signer._credentials
        self._signer = (
            Signer(credentials, meta.service_model.signing_name or "dynamodb", self._region)
            if credentials is not None else None
        )
        verify = getattr(client._endpoint.http_session, "_verify", True)
        self._tls = ssl.create_default_context(
            cafile=verify if isinstance(verify, str) else None)
        if verify is False:
            self._tls.check_hostname = False
            self._tls.verify_mode = ssl.CERT_NONE
        self._timeout = meta.config.read_timeout or 60
        self._local = threading.local()

    def call(self, operation: str, body: bytes) -> dict[str, Any]:
        """Send one request (its JSON body); the answer, parsed. DynamoDB's
        errors are raised as :mod:`tallydb.engine.errors` exceptions (as the
        toolkit's ``call`` raises them), after ``ATTEMPTS`` tries for a
        throttled or failed one; an endpoint that cannot be reached raises
        :class:`~tallydb.toolkit.exceptions.TransportError`."""
        pause = 0.05
        attempt = 1
        while True:
            failure: Exception
            try:
                status, answer = self._send(operation, body)
            except (OSError, http.client.HTTPException) as error:
                self._drop()
                failure = TransportError(f"{self._url}: {error}")
                failure.__cause__ = error
                retry = not isinstance(error, ssl.SSLCertVerificationError)
            else:
                if status == 200:
                    result: dict[str, Any] = orjson.loads(answer) if answer else {}
                    return result
                failure = _error(status, answer)
                retry = status >= 500 or failure.code() in _RETRYABLE
            if not retry or attempt == ATTEMPTS:
                raise failure
            attempt += 1
            time.sleep(pause)
            pause = min(pause * 2, 5.0)

    def _send(self, operation: str, body: bytes) -> tuple[int, bytes]:
        if self._signer is not None:
            headers = self._signer.headers(self._netloc, _TARGET + operation, body)
        else:
            headers = {"Content-Type": _CONTENT_TYPE, "X-Amz-Target": _TARGET + operation,
                       "Host": self._netloc}
        connection = self._connection()
        connection.request("POST", "/", body=body, headers=headers)
        response = connection.getresponse()
        return response.status, response.read()

    def _connection(self) -> http.client.HTTPConnection:
        connection: http.client.HTTPConnection | None = getattr(self._local, "connection", None)
        if connection is None:
            if self._https:
                connection = http.client.HTTPSConnection(
                    self._host, self._port, timeout=self._timeout, context=self._tls)
            else:
                connection = http.client.HTTPConnection(
                    self._host, self._port, timeout=self._timeout)
            self._local.connection = connection
        return connection

    def _drop(self) -> None:
        connection = getattr(self._local, "connection", None)
        if connection is not None:
            connection.close()
            self._local.connection = None


def _error(status: int, answer: bytes) -> DynamoDBError:
    """DynamoDB's error in an answer, as the toolkit raises it."""
    try:
        parsed = orjson.loads(answer)
    except orjson.JSONDecodeError:
        parsed = None
    if not isinstance(parsed, dict) or "__type" not in parsed:
        text = answer.decode("utf-8", "replace")[:200]
        return error_from_response({"Error": {"Code": str(status), "Message": text}})
    code = str(parsed["__type"]).rpartition("#")[2]
    message = parsed.get("message", parsed.get("Message"))
    return error_from_response({"Error": {"Code": code, "Message": message}, **parsed})


def wire_client(transport: object) -> WireClient | None:
    """A :class:`WireClient` on the transport's boto3 client, when requests
    can go to its endpoint directly: an http(s) endpoint reached without a
    proxy, and no moto ``mock_aws`` answering inside botocore. Anything else
    (the embedded engine, an in-process store) goes the toolkit's way."""
    if not isinstance(transport, ClientTransport) or _moto_mocking():
        return None
    meta = transport.client.meta
    if not str(meta.endpoint_url or "").startswith(("http://", "https://")):
        return None
    if meta.config.proxies:
        return None
    return WireClient(transport.client)


def _moto_mocking() -> bool:
    """Whether moto's ``mock_aws`` is on: it answers boto3's requests from
    inside botocore, so nothing listens at the client's endpoint."""
    models = sys.modules.get("moto.core.models")
    stubber = getattr(models, "botocore_stubber", None)
    return bool(getattr(stubber, "enabled", False))
