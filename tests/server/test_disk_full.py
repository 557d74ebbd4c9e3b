"""A full disk: writes fail with DynamoDB's InternalServerError and a
message, reads go on, the server starts again after kill -9 on the full
disk, and writes resume once space returns; nothing acknowledged is lost.

Runs on a small tmpfs of its own (mounting one needs root or
CAP_SYS_ADMIN; the test is skipped, saying so, where that is refused).
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from serverkit import Serve, post

pytest_plugins = ["server_fixtures"]

DISK_FULL = (
    "Internal server error: the server's disk is full, so this request changed nothing; "
    "reads are still served, and writes resume once space is freed"
)
TABLE = {
    "TableName": "tally",
    "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
    "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
    "BillingMode": "PAY_PER_REQUEST",
}


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(mount)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs (needs root or CAP_SYS_ADMIN): "
                    f"{done.stderr.strip()}")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(disk: Path) -> Path:
    """Take every free byte of ``disk`` (4 KB at a time, to the last page)."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        for size in (1 << 20, 4096, 512):
            try:
                while os.write(fd, b"\0" * size):
                    pass
            except OSError as error:
                assert error.errno == errno.ENOSPC
    finally:
        os.close(fd)
    return filler


def increment(url: str, key: str, pad: int = 0) -> int:
    """ADD n 1 to ``key`` (with ``pad`` bytes of padding); the HTTP status."""
    request = {
        "TableName": "tally",
        "Key": {"id": {"S": key}},
        "UpdateExpression": "ADD n :one" + (" SET padding = :pad" if pad else ""),
        "ExpressionAttributeValues": {":one": {"N": "1"},
                                      **({":pad": {"S": "x" * pad}} if pad else {})},
    }
    answer = post(url, "UpdateItem", request)
    if answer.status != 200:
        assert answer.status == 500, answer.body
        assert answer.json == {
            "__type": "com.amazonaws.dynamodb.v20120810#InternalServerError",
            "message": DISK_FULL,
        }
    return answer.status


def counts(url: str, keys: list[str]) -> dict[str, int]:
    found = {}
    for key in keys:
        answer = post(url, "GetItem", {"TableName": "tally", "Key": {"id": {"S": key}}})
        assert answer.status == 200
        item = answer.json.get("Item")
        found[key] = int(item["n"]["N"]) if item else 0
    return found


def test_a_full_disk_loses_nothing_acknowledged(
    serve: Callable[..., Serve], small_disk: Path
) -> None:
    data = str(small_disk / "data")
    server = serve("--data", data)
    assert post(server.url, "CreateTable", TABLE).status == 200
    acked: dict[str, int] = {}
    keys = [f"k{n}" for n in range(40)]
    for n in range(200):
        key = keys[n % len(keys)]
        if increment(server.url, key) == 200:
            acked[key] = acked.get(key, 0) + 1
    filler = fill(small_disk)
    refused = 0
    for n in range(300):  # new padded items need new space: refused, one request at a time
        key = keys[n % len(keys)]
        if increment(server.url, key, pad=4000) == 200:
            acked[key] = acked.get(key, 0) + 1
        else:
            refused += 1
    assert refused > 0, "the disk never filled"
    assert counts(server.url, keys) == {key: acked.get(key, 0) for key in keys}  # reads go on

    server.kill()  # kill -9 on the full disk
    server = serve("--data", data)  # waits (with a generous timeout) until it answers
    assert counts(server.url, keys) == {key: acked.get(key, 0) for key in keys}

    filler.unlink()  # space returns: writes resume, without a restart
    deadline = time.monotonic() + 60
    while increment(server.url, "after") != 200:
        assert time.monotonic() < deadline, "writes did not resume once space returned"
        time.sleep(0.2)
    for n in range(100):
        key = keys[n % len(keys)]
        assert increment(server.url, key, pad=100) == 200
        acked[key] = acked.get(key, 0) + 1
    assert server.stop(signal.SIGTERM) == 0
    server = serve("--data", data)
    assert counts(server.url, keys) == {key: acked.get(key, 0) for key in keys}
    with contextlib.suppress(FileNotFoundError):
        os.unlink(small_disk / "filler")


STREAMED = {**TABLE, "TableName": "streamed",
            "StreamSpecification": {"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"}}


def test_a_restart_on_a_still_full_disk_with_sync_full_serves_reads(
    serve: Callable[..., Serve], small_disk: Path
) -> None:
    """--sync full, a stream to recover, a clean stop (which leaves no WAL
    index file) and restarts while the disk stays full: each start serves
    reads and refuses writes with the disk-full error, never a traceback;
    writes resume once space returns, nothing acknowledged lost."""
    data = str(small_disk / "data")
    server = serve("--data", data, "--sync", "full")
    assert post(server.url, "CreateTable", TABLE).status == 200
    assert post(server.url, "CreateTable", STREAMED).status == 200
    keys = [f"k{n}" for n in range(20)]
    acked: dict[str, int] = {}
    for n in range(100):
        key = keys[n % len(keys)]
        assert increment(server.url, key) == 200
        acked[key] = acked.get(key, 0) + 1
        item = {"TableName": "streamed", "Item": {"id": {"S": key}, "n": {"N": str(n)}}}
        assert post(server.url, "PutItem", item).status == 200
    assert server.stop(signal.SIGTERM) == 0
    filler = fill(small_disk)
    server = serve("--data", data, "--sync", "full")
    for n in range(100):  # whatever still fits is acknowledged; the rest refused
        key = keys[n % len(keys)]
        if increment(server.url, key, pad=4000) == 200:
            acked[key] = acked.get(key, 0) + 1
    for how in ("kill", "kill", "term", "kill"):
        assert "Traceback" not in server.output
        assert counts(server.url, keys) == {key: acked.get(key, 0) for key in keys}
        refused = post(server.url, "PutItem", {
            "TableName": "tally", "Item": {"id": {"S": "new"}, "pad": {"S": "x" * 30_000}}})
        assert refused.status == 500, refused.body
        assert refused.json["message"] == DISK_FULL
        if how == "kill":
            server.kill()
        else:  # a clean stop on the full disk leaves what it could not write in the log
            assert server.stop(signal.SIGTERM) == 0
        server = serve("--data", data, "--sync", "full")
    filler.unlink()
    deadline = time.monotonic() + 20
    while increment(server.url, "after") != 200:
        assert time.monotonic() < deadline, "writes did not resume once space returned"
        time.sleep(0.2)
    for n in range(50):
        key = keys[n % len(keys)]
        assert increment(server.url, key, pad=100) == 200
        acked[key] = acked.get(key, 0) + 1
    assert server.stop(signal.SIGTERM) == 0
    assert "Traceback" not in server.output
    server = serve("--data", data, "--sync", "full")
    assert counts(server.url, keys) == {key: acked.get(key, 0) for key in keys}
