"""The AWS SDK for JavaScript v3 (``@aws-sdk/client-dynamodb-streams``)
reads the same stream records as boto3 from ``tallydb serve``.

Node and npm come from the machine; the SDK is installed with npm into
pytest's cache on first use. Without Node, npm or the registry the test is
skipped, saying which.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from streamkit import increment, read_all, server_streams_client, table_with_stream

if TYPE_CHECKING:
    from tallytest import TallyServer

SDK = "@aws-sdk/client-dynamodb-streams@3"
SCRIPT = Path(__file__).with_name("read_stream.mjs")


@pytest.fixture(scope="session")
def node_sdk(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder whose node_modules holds the SDK (the script runs from it):
    pytest's cache, kept between runs, or a temporary one without it."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("Node.js and npm are needed for the AWS SDK for JavaScript v3")
    cache = getattr(request.config, "cache", None)
    folder = (Path(cache.mkdir("aws-sdk-js-v3")) if cache is not None
              else tmp_path_factory.mktemp("aws-sdk-js-v3"))
    if not (folder / "node_modules" / "@aws-sdk" / "client-dynamodb-streams").is_dir():
        done = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix",
             str(folder), SDK], capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            pytest.skip(f"npm could not install {SDK}: {done.stderr.strip()[-300:]}")
    shutil.copy(SCRIPT, folder / SCRIPT.name)
    return folder


@pytest.mark.timeout(360)
def test_javascript_sdk_reads_the_records_boto3_reads(
        tallydb_server: TallyServer, node_sdk: Path) -> None:
    ddb = tallydb_server.client()
    table, arn = table_with_stream(ddb)
    increment(ddb, table, 100)
    ddb.transact_write_items(TransactItems=[
        {"Put": {"TableName": table, "Item": {"PK": {"S": "stock"}, "SK": {"S": sk}}}}
        for sk in ("A", "B")])
    done = subprocess.run(["node", SCRIPT.name, str(tallydb_server.url), arn],
                          cwd=node_sdk, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    from_js: list[dict[str, Any]] = json.loads(done.stdout)
    from_boto3 = read_all(server_streams_client(str(tallydb_server.url)), arn)
    assert len(from_js) == len(from_boto3) == 102
    assert [r["eventName"] for r in from_js] == ["INSERT"] + ["MODIFY"] * 99 + ["INSERT"] * 2
    for js, py in zip(from_js, from_boto3, strict=True):
        change = py["dynamodb"]
        assert js["sequenceNumber"] == change["SequenceNumber"]
        assert js["keys"] == change["Keys"]
        assert js["newImage"] == change.get("NewImage")
        assert js["oldImage"] == change.get("OldImage")
        assert js["created"] is True
