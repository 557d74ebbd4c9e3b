"""Helpers for the export and import tests: wait for a job, the items of a
table, a table of every attribute type, and moto's S3 server."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tallytest import session_client

WAIT = 120.0  # seconds a job may take on a busy machine


def wait_export(ddb: Any, arn: str) -> dict[str, Any]:
    deadline = time.monotonic() + WAIT
    while True:
        description: dict[str, Any] = ddb.describe_export(ExportArn=arn)["ExportDescription"]
        if description["ExportStatus"] != "IN_PROGRESS" or time.monotonic() > deadline:
            return description
        time.sleep(0.1)


def wait_import(ddb: Any, arn: str) -> dict[str, Any]:
    deadline = time.monotonic() + WAIT
    while True:
        description: dict[str, Any] = ddb.describe_import(
            ImportArn=arn)["ImportTableDescription"]
        if description["ImportStatus"] != "IN_PROGRESS" or time.monotonic() > deadline:
            return description
        time.sleep(0.1)


def items_of(ddb: Any, table: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for page in ddb.get_paginator("scan").paginate(TableName=table):
        items += page["Items"]
    return sorted(items, key=lambda item: repr(sorted(item.items())))


def every_type(number: int) -> dict[str, Any]:
    """An item holding each of DynamoDB's types."""
    return {
        "PK": {"S": f"item-{number:04d}"},
        "n": {"N": str(number)},
        "big": {"N": "12345678901234567890123456789012345678"},
        "small": {"N": "-0.000000000000000000000000000000000001"},
        "b": {"B": bytes([number % 256, 0, 255])},
        "t": {"BOOL": number % 2 == 0},
        "nothing": {"NULL": True},
        "ss": {"SS": ["a", f"s{number}"]},
        "ns": {"NS": ["1", "2.5", str(number + 3)]},
        "bs": {"BS": [b"\x00", b"\x01\x02"]},
        "l": {"L": [{"S": "x"}, {"N": "1"}, {"M": {"deep": {"SS": ["z"]}}}]},
        "m": {"M": {"k": {"S": "v"}, "e": {"L": []}}},
    }


def enable_recovery(ddb: Any, table: str) -> str:
    ddb.update_continuous_backups(
        TableName=table, PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})
    arn: str = ddb.describe_table(TableName=table)["Table"]["TableArn"]
    return arn


class MotoS3:
    """moto's server on a free port: an S3 independent of tallydb."""

    def __init__(self) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        moto = Path(sys.executable).with_name("moto_server")
        command = [str(moto)] if moto.exists() else [sys.executable, "-m", "moto.server"]
        self.process = subprocess.Popen([*command, "-p", str(self.port)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while True:
            try:
                self.client().list_buckets()
                return
            except Exception:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError("moto's server did not start") from None
                time.sleep(0.2)

    def client(self) -> Any:
        return session_client(
            "s3", endpoint_url=self.url, region_name="us-east-1",
            aws_access_key_id="moto", aws_secret_access_key="moto")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
