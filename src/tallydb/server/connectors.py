"""The outside services ``tallydb serve`` can be pointed at: any
S3-compatible endpoint (AWS S3, MinIO, LocalStack, moto) for exports and
imports, spoken to by boto3's own S3 client.

Credentials are boto3's usual chain (``AWS_ACCESS_KEY_ID``, profiles, ...),
unless ``TALLYDB_S3_ACCESS_KEY_ID`` and ``TALLYDB_S3_SECRET_ACCESS_KEY`` give
the endpoint keys of its own (a local S3 wants other keys than the clients
of tallydb use).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from tallydb.engine.objects import ObjectStoreError

__all__ = ["S3Objects"]

ACCESS_KEY = "TALLYDB_S3_ACCESS_KEY_ID"
SECRET_KEY = "TALLYDB_S3_SECRET_ACCESS_KEY"


class S3Objects:
    """Objects in the buckets of an S3 endpoint (path-style addressing)."""

    def __init__(self, endpoint: str, region: str = "us-east-1") -> None:
        import boto3
        from botocore.config import Config

        keys: dict[str, Any] = {}
        if os.environ.get(ACCESS_KEY) and os.environ.get(SECRET_KEY):
            keys = {"aws_access_key_id": os.environ[ACCESS_KEY],
                    "aws_secret_access_key": os.environ[SECRET_KEY]}
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
