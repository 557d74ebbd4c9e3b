"""The outside services ``tallydb serve`` can be pointed at: any
S3-compatible endpoint (AWS S3, MinIO, LocalStack, moto) for exports and
imports, and any Kinesis-compatible one (AWS, kinesalite, LocalStack) for
Kinesis destinations, each spoken to by boto3's own client.

Credentials are boto3's usual chain (``AWS_ACCESS_KEY_ID``, profiles, ...),
unless ``TALLYDB_S3_ACCESS_KEY_ID`` and ``TALLYDB_S3_SECRET_ACCESS_KEY`` (or
the ``KINESIS`` pair) give the endpoint keys of its own (a local S3 wants
other keys than the clients of tallydb use); with none at all, placeholder
keys, which local implementations accept.
"""

from __future__ import annotations

import os
import re
import socket
import ssl
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import httptools
import orjson

from tallydb.engine.api import KinesisError
from tallydb.engine.api._kinesis import put_records_body
from tallydb.engine.objects import ObjectStoreError
from tallydb.toolkit.sigv4 import Signer

__all__ = ["KinesisStreams", "S3Objects"]

_CONTENT_TYPE = "application/x-amz-json-1.1"
_PUT_RECORDS = "Kinesis_20131202.PutRecords"
#: A PutRecords answer that took every record: its FailedRecordCount member
#: (a key: a string in the answer can hold a quote only escaped, so this is
#: no string's text), read without parsing the answer's entry a record.
_ALL_TAKEN = re.compile(rb'"FailedRecordCount"\s*:\s*0\s*[,}]')

def _keys(service: str) -> dict[str, Any]:
    """The client's keys: ``TALLYDB_<SERVICE>_ACCESS_KEY_ID``/``..._SECRET_ACCESS_KEY``,
    else boto3's chain, else placeholders."""
    import boto3

    access = os.environ.get(f"TALLYDB_{service}_ACCESS_KEY_ID")
    secret = os.environ.get(f"TALLYDB_{service}_SECRET_ACCESS_KEY")
    if access and secret:
        return {"aws_access_key_id": access, "aws_secret_access_key": secret}
    if boto3.session.Session().get_credentials() is None:
        return {"aws_access_key_id": "tallydb", "aws_secret_access_key": "tallydb"}
    return {}


class _Answer:
    """An HTTP answer as httptools' parser hands it over: its status, body,
    and whether it is whole (an interim answer, 100 Continue, is passed
    over; one without Content-Length or chunks ends with the connection)."""

    def __init__(self) -> None:
        self.parser = httptools.HttpResponseParser(self)
        self.parts: list[bytes] = []
        self.framed = False  # (its header says where its body ends)
        self.headed = False
        self.whole = False
        self.status = 0
        self.keep = False  # (the connection stays open after it)

    def on_message_begin(self) -> None:
        self.parts = []
        self.framed = self.headed = False

    def on_header(self, name: bytes, value: bytes) -> None:
        if name.lower() in (b"content-length", b"transfer-encoding"):
            self.framed = True

    def on_headers_complete(self) -> None:
        self.headed = True

    def on_body(self, body: bytes) -> None:
        self.parts.append(body)

    def on_message_complete(self) -> None:
        parser = self.parser
        self.status = parser.get_status_code()
        if not 100 <= self.status < 200:
            self.keep = parser.should_keep_alive()  # (known while the parser is at its end)
            self.whole = True


def _answer(connection: socket.socket) -> tuple[int, bytes, bool]:
    """An HTTP/1.1 answer read from ``connection``: its status, body, and
    whether the connection stays open (httptools' parser: http.client
    parses the header with the email package, some 0.2 ms an answer)."""
    answer = _Answer()
    parser = answer.parser
    while not answer.whole:
        more = connection.recv(1 << 16)
        if not more:
            if answer.headed and not answer.framed:  # its body ends here
                return parser.get_status_code(), b"".join(answer.parts), False
            raise ConnectionError("the endpoint closed the connection before it answered")
        try:
            parser.feed_data(more)
        except httptools.HttpParserError as error:
            raise ConnectionError(f"not an HTTP answer: {error}") from error
    return answer.status, b"".join(answer.parts), answer.keep


class S3Objects:
    """Objects in the buckets of an S3 endpoint (path-style addressing)."""

    def __init__(self, endpoint: str, region: str = "us-east-1") -> None:
        import boto3
        from botocore.config import Config

        keys = _keys("S3")
        self.endpoint = endpoint
        self._client = boto3.session.Session().client(
            "s3", endpoint_url=endpoint, region_name=region,
            config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 3},
                          connect_timeout=5, read_timeout=60), **keys)

    def describe(self) -> str:
        return self.endpoint

    def _call(self, method: str, **arguments: Any) -> Any:
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            return getattr(self._client, method)(**arguments)
        except ClientError as error:
            details = error.response.get("Error", {})
            raise ObjectStoreError(str(details.get("Code", "Unknown")),
                                   str(details.get("Message", error))) from None
        except BotoCoreError as error:
            raise ObjectStoreError("ServiceUnavailable", str(error)) from None

    def put(self, bucket: str, key: str, data: bytes) -> None:
        self._call("put_object", Bucket=bucket, Key=key, Body=data)

    def get(self, bucket: str, key: str) -> bytes:
        body: bytes = self._call("get_object", Bucket=bucket, Key=key)["Body"].read()
        return body

    def keys(self, bucket: str, prefix: str) -> Iterator[tuple[str, int]]:
        token: str | None = None
        while True:
            arguments: dict[str, Any] = {"Bucket": bucket, "Prefix": prefix}
            if token:
                arguments["ContinuationToken"] = token
            page = self._call("list_objects_v2", **arguments)
            for entry in page.get("Contents", ()):
                yield entry["Key"], int(entry["Size"])
            token = page.get("NextContinuationToken")
            if not page.get("IsTruncated") or not token:
                return


class KinesisStreams:
    """Kinesis data streams of one endpoint, named by their ARNs.

    Credentials are boto3's usual chain, or ``TALLYDB_KINESIS_ACCESS_KEY_ID``
    and ``TALLYDB_KINESIS_SECRET_ACCESS_KEY``.

    ``PutRecords`` carries every record a destination sends, so it skips
    boto3's per-record work (validating, base64 through its serializer,
    parsing each answer entry into its model) and botocore's per-call work
    (its request prepared twice, its signer, urllib3: about 0.5 ms a call):
    its body is put together from the records as given, already base64
    (``tallydb.engine.api._kinesis.put_records_body``), signed by
    :class:`tallydb.toolkit.sigv4.Signer` and sent on one keep-alive
    connection to the endpoint's root, and its answer read directly
    (``_answer``) and, unless it took every record, with orjson. The rarer
    calls go through boto3's client."""

    def __init__(self, endpoint: str, region: str = "us-east-1") -> None:
        import boto3
        from botocore.config import Config

        keys = _keys("KINESIS")
        self.endpoint = endpoint
        self.region = region
        session = boto3.session.Session(**keys)
        self._client = session.client(
            "kinesis", endpoint_url=endpoint, region_name=region,
            config=Config(retries={"total_max_attempts": 1}, connect_timeout=2,
                          read_timeout=10))
        credentials = session.get_credentials()
        self._signer = (None if credentials is None
                        else Signer(credentials, "kinesis", region, _CONTENT_TYPE))
        where = urlsplit(endpoint)
        self._https = where.scheme == "https"
        self._host = where.hostname or "localhost"
        self._port = where.port or (443 if self._https else 80)
        self._netloc = where.netloc
        self._connection: socket.socket | None = None

    def __reduce__(self) -> tuple[type[KinesisStreams], tuple[str, str]]:
        """Pickled as its endpoint and region (a Kinesis destination's
        worker process makes its own client of them)."""
        return KinesisStreams, (self.endpoint, self.region)

    def _connect(self) -> socket.socket:
        connection = socket.create_connection((self._host, self._port), timeout=10)
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if self._https:
            connection = ssl.create_default_context().wrap_socket(
                connection, server_hostname=self._host)
        self._connection = connection
        return connection

    def _post(self, body: bytes) -> tuple[int, bytes]:
        """POST a PutRecords body: the answer's status and body. A kept
        connection that fails is replaced and the call made once more on
        a new one (the endpoint may have closed it while it was idle)."""
        if self._signer is not None:
            headers = self._signer.headers(self._netloc, _PUT_RECORDS, body)
        else:
            headers = {"Content-Type": _CONTENT_TYPE, "X-Amz-Target": _PUT_RECORDS,
                       "Host": self._netloc}
        head = "".join([f"POST / HTTP/1.1\r\nContent-Length: {len(body)}\r\n",
                        *[f"{name}: {value}\r\n" for name, value in headers.items()],
                        "\r\n"]).encode("latin-1")
        kept = self._connection
        for connection in ((kept, None) if kept is not None else (None,)):
            try:
                if connection is None:
                    connection = self._connect()
                connection.sendall(head)
                connection.sendall(body)
                status, content, keep = _answer(connection)
                if not keep:
                    connection.close()
                    self._connection = None
                return status, content
            except OSError as error:
                if self._connection is not None:
                    self._connection.close()
                    self._connection = None
                failure = error
        raise self._unreachable(failure)

    def describe(self) -> str:
        return self.endpoint

    @staticmethod
    def _name(arn: str) -> str:
        return arn.rpartition(":stream/")[2]

    def _call(self, method: str, **arguments: Any) -> Any:
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            return getattr(self._client, method)(**arguments)
        except ClientError as error:
            details = error.response.get("Error", {})
            code = str(details.get("Code", "Unknown"))
            raise KinesisError(f"{code}: {details.get('Message', error)}",
                               missing=code == "ResourceNotFoundException") from None
        except BotoCoreError as error:
            raise self._unreachable(error) from None

    def _unreachable(self, error: Exception) -> KinesisError:
        return KinesisError(f"the Kinesis endpoint {self.endpoint} is unreachable: {error}")

    def check_stream(self, stream_arn: str) -> None:
        summary = self._call("describe_stream_summary", StreamName=self._name(stream_arn))
        status = summary["StreamDescriptionSummary"]["StreamStatus"]
        if status not in ("ACTIVE", "UPDATING"):
            raise KinesisError(f"the Kinesis stream {stream_arn} is {status}")

    def put_records(self, stream_arn: str, partitions: list[str], data: list[bytes]
                    ) -> list[bool]:
        if not partitions:
            return []
        body = put_records_body(self._name(stream_arn), partitions, data)
        status, content = self._post(body)
        if status == 200 and _ALL_TAKEN.search(content) is not None:
            return [True] * len(partitions)
        try:
            parsed = orjson.loads(content)
        except orjson.JSONDecodeError:
            parsed = None
        if status != 200 or not isinstance(parsed, dict):
            found = parsed if isinstance(parsed, dict) else {}
            code = str(found.get("__type", f"HTTP {status}")).rpartition("#")[2]
            message = found.get("message", found.get("Message", content[:200]))
            raise KinesisError(f"{code}: {message}",
                               missing=code == "ResourceNotFoundException")
        if parsed.get("FailedRecordCount") == 0:
            return [True] * len(partitions)
        return ["ErrorCode" not in entry for entry in parsed["Records"]]
