"""kinesalite (npm, by dynalite's author): a real Kinesis implementation
for the Kinesis destination tests, installed on first use into
bench/.peers (beside the other npm peers), and a reader of its shards."""

from __future__ import annotations

import fcntl
import json
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from tallytest import session_client

REPO = Path(__file__).resolve().parents[2]
PEERS = REPO / "bench" / ".peers"
PACKAGE = "kinesalite@3"
BINARY = PEERS / "node_modules" / ".bin" / "kinesalite"
SERVER = Path(__file__).with_name("kinesalite_server.js")


def kinesalite_missing() -> str | None:
    """Why kinesalite cannot run here (None if it can), installing it if needed."""
    if BINARY.exists():
        return None
    if shutil.which("npm") is None or shutil.which("node") is None:
        return "node and npm are needed to install kinesalite"
    PEERS.mkdir(parents=True, exist_ok=True)
    with open(PEERS / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one installer among xdist workers
        if not BINARY.exists():
            package = PEERS / "package.json"
            if not package.exists():
                package.write_text('{"name":"tallydb-bench-peers","private":true}\n')
            done = subprocess.run(
                ["npm", "install", "--no-audit", "--no-fund", "--loglevel=error", PACKAGE],
                cwd=PEERS, capture_output=True, text=True, timeout=600)
            if done.returncode != 0:
                return f"npm install {PACKAGE} failed: {done.stderr.strip()[-300:]}"
    return None


class Kinesalite:
    """kinesalite on a free loopback port (in memory)."""

    def __init__(self) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        # Through kinesalite_server.js: kinesalite alone dies when a client
        # drops a request, as a killed tallydb does mid-PutRecords.
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 - closed by stop()
        self.process = subprocess.Popen(
            ["node", str(SERVER), str(PEERS / "node_modules"), str(self.port)],
            stdout=subprocess.DEVNULL, stderr=self.log)
        deadline = time.monotonic() + 60
        while True:
            try:
                self.client().list_streams()
                return
            except Exception:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"kinesalite did not start: {self.errors()}") from None
                time.sleep(0.2)

    def errors(self) -> str:
        """What kinesalite wrote on standard error (why it exited)."""
        self.log.seek(0)
        return self.log.read().decode(errors="replace")[-2000:]

    def client(self) -> Any:
        return session_client(
            "kinesis", endpoint_url=self.url, region_name="us-east-1",
            aws_access_key_id="x", aws_secret_access_key="y")

    def create_stream(self, name: str, shards: int = 2) -> str:
        kinesis = self.client()
        kinesis.create_stream(StreamName=name, ShardCount=shards)
        kinesis.get_waiter("stream_exists").wait(StreamName=name,
                                                  WaiterConfig={"Delay": 0.2})
        arn: str = kinesis.describe_stream_summary(
            StreamName=name)["StreamDescriptionSummary"]["StreamARN"]
        return arn

    def records(self, name: str) -> list[dict[str, Any]]:
        """Every record of the stream, shard by shard, each in its shard's
        order: (its data as JSON, with the partition key)."""
        if self.process.poll() is not None:
            raise RuntimeError(f"kinesalite exited: {self.errors()}")
        kinesis = self.client()
        found: list[dict[str, Any]] = []
        for shard in kinesis.list_shards(StreamName=name)["Shards"]:
            iterator = kinesis.get_shard_iterator(
                StreamName=name, ShardId=shard["ShardId"],
                ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
            while iterator:
                page = kinesis.get_records(ShardIterator=iterator, Limit=10000)
                for record in page["Records"]:
                    found.append({**json.loads(record["Data"]),
                                  "_partitionKey": record["PartitionKey"]})
                if not page["Records"] and page.get("MillisBehindLatest", 0) == 0:
                    break
                iterator = page.get("NextShardIterator")
        return found

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self.log.close()


class Relay:
    """An HTTP relay to kinesalite on a free loopback port, which runs
    ``before_first`` (in its own thread) before it relays the first
    PutRecords: the forwarder's worker is then between the rows the
    forwarder read and their deletion. Used as a context manager."""

    def __init__(self, kinesalite: Kinesalite, before_first: Any) -> None:
        import http.client
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.kinesalite = kinesalite
        self.before_first = before_first
        lock = threading.Lock()
        relay = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                if self.headers.get("X-Amz-Target", "").endswith(".PutRecords"):
                    with lock:
                        before, relay.before_first = relay.before_first, None
                    if before is not None:
                        before()
                upstream = http.client.HTTPConnection("127.0.0.1", kinesalite.port, timeout=60)
                headers = {name: value for name, value in self.headers.items()
                           if name.lower() not in ("host", "connection")}
                upstream.request("POST", self.path, body, headers)
                answer = upstream.getresponse()
                data = answer.read()
                upstream.close()
                self.send_response(answer.status)
                for name, value in answer.getheaders():
                    if name.lower() not in ("content-length", "connection", "date", "server"):
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        Handler.protocol_version = "HTTP/1.1"
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def __enter__(self) -> Relay:
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
