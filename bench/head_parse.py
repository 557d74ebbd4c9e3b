"""A request head read three ways, in instructions (callgrind): is a one-call parse cheaper?

    .venv/bin/python -m bench.head_parse
    .venv/bin/python -m bench.head_parse --requests 20000 --jobs 2

The server reads every request with httptools (llhttp), which calls back
into Python for the message's start, its URL, each header, the end of the
head, the body and the end of the message. This measures what the parse of
one complete request costs, the callbacks included, against two ways of
reading a head of a strict everyday shape in fewer calls, each over the same
bytes:

- ``httptools``: llhttp with callbacks that only keep what they are given
  (the floor for any use of httptools: the server's own callbacks do more);
- ``regex``: one compiled pattern checks the whole head, a second gives
  the headers (``re``'s engine steps byte by byte in C);
- ``bytes``: C bytes methods (``startswith``, ``find``, ``split``, ``dict``
  over the lines), each header line checked byte by byte (``translate``)
  the first time and found by one lookup after (a bounded cache of lines):
  the cheapest strict reader found, with every line a repeat (``bench``
  shape) or two lines new each request (``sdk`` shape: a signature and an
  invocation id, as botocore sends).

Two shapes of head: ``bench`` (the six headers bench/wrk.lua sends, the same
every request) and ``sdk`` (botocore's ten, a new signature and invocation id
every request). Each figure is instructions per request: a run of
``--requests`` less a run of none, over that number. gunicorn-h1c's
picohttpparser is not in the table: its SSE4.2 code (``pcmpestri``) stops
valgrind, so it cannot be counted here (and it installs from source).
"""

from __future__ import annotations

import argparse
import os
import sys
from concurrent.futures import ThreadPoolExecutor

from bench.callgrind import collected

#: Run in the child; argv: the reader, the shape, requests made, and whether
#: to read them (a run that makes them and reads none is the base).
CHILD = r"""
import re, sys
import httptools

BODY = (b'{"TableName":"counters","Key":{"pk":{"S":"hot"}},"UpdateExpression":'
        b'"ADD play_count :one","ExpressionAttributeValues":{":one":{"N":"1"}}}')
BENCH = (b"POST / HTTP/1.1\r\nHost: 127.0.0.1:8000\r\nContent-Type: application/x-amz-json-1.0\r\n"
         b"X-Amz-Date: 20260101T000000Z\r\nAuthorization: AWS4-HMAC-SHA256 "
         b"Credential=bench/20260101/us-east-1/dynamodb/aws4_request, "
         b"SignedHeaders=host;x-amz-date;x-amz-target, Signature=%064d\r\n"
         b"X-Amz-Target: DynamoDB_20120810.UpdateItem\r\nContent-Length: %d\r\n\r\n%s")
SDK = (b"POST / HTTP/1.1\r\nHost: 127.0.0.1:8000\r\nAccept-Encoding: identity\r\n"
       b"X-Amz-Target: DynamoDB_20120810.UpdateItem\r\n"
       b"Content-Type: application/x-amz-json-1.0\r\n"
       b"User-Agent: Boto3/1.35.0 md/Botocore#1.35.0 ua/2.0 os/linux#6.1 md/arch#x86_64 "
       b"lang/python#3.11.7 md/pyimpl#CPython cfg/retry-mode#legacy Botocore/1.35.0\r\n"
       b"X-Amz-Date: 20260101T000000Z\r\nAuthorization: AWS4-HMAC-SHA256 "
       b"Credential=AKIDEXAMPLE/20260101/us-east-1/dynamodb/aws4_request, "
       b"SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=%064d\r\n"
       b"amz-sdk-invocation-id: 0f1e2d3c-4b5a-6978-8796-%012d\r\n"
       b"amz-sdk-request: attempt=1; max=4\r\nContent-Length: %d\r\n\r\n%s")


def requests(shape, count):
    if shape == "bench":
        return [BENCH % (0, len(BODY), BODY)] * count
    return [SDK % (i, i, len(BODY), BODY) for i in range(count)]


class Recorder:
    def __init__(self):
        self.parser = httptools.HttpRequestParser(self)
    def on_message_begin(self):
        self.headers = []
    def on_url(self, url):
        self.url = url
    def on_header(self, name, value):
        self.headers.append((name, value))
    def on_headers_complete(self):
        pass
    def on_body(self, body):
        self.body = body
    def on_message_complete(self):
        self.method = self.parser.get_method()


TOKEN = rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
VALUE = rb"[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?"
HEAD = re.compile(rb"POST / HTTP/1\.1\r\n((?:" + TOKEN + rb": " + VALUE + rb"\r\n){1,64})\r\n")
HEADER = re.compile(rb"(" + TOKEN + rb"): (" + VALUE + rb")\r\n")


def regex(data):
    head = HEAD.match(data)
    headers = HEADER.findall(data, 17, head.end() - 2)
    return headers, data[head.end():]


PRINTABLE = bytes(range(0x20, 0x7F))
TCHAR = b"!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
LINES = {}


def line(text):
    name, colon, value = text.partition(b": ")
    if not colon or not name or not value or value[0] == 32 or value[-1] == 32:
        return None
    if name.translate(None, TCHAR) or value.translate(None, PRINTABLE):
        return None
    found = (name.lower(), value)
    if len(LINES) >= 256:
        LINES.clear()
    LINES[text] = found
    return found


def by_bytes(data):
    if not data.startswith(b"POST / HTTP/1.1\r\n"):
        return None
    end = data.find(b"\r\n\r\n", 17, 17 + 4100)
    lines = data[17:end].split(b"\r\n")
    found = list(map(LINES.get, lines))
    if not all(found):
        for at, text in enumerate(lines):
            if found[at] is None:
                found[at] = line(text)
    headers = dict(found)
    size = int(headers[b"content-length"])
    return headers, data[end + 4:end + 4 + size]


reader, shape, count, reading = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
made = requests(shape, count)
batch = made if reading else []
warm = requests(shape, 50)
if reader == "httptools":
    recorder = Recorder()
    read = recorder.parser.feed_data
else:
    read = regex if reader == "regex" else by_bytes
for data in warm:
    read(data)
for data in batch:
    read(data)
# every reader must have read the same: the headers (by lowercased name) and the body
check = Recorder()
check.parser.feed_data(made[-1])
expected = ({name.lower(): value for name, value in check.headers}, check.body)
if reader == "httptools":
    got = ({name.lower(): value for name, value in recorder.headers}, recorder.body)
else:
    headers, body = read(made[-1])
    got = ({name.lower(): value for name, value in dict(headers).items()}, body)
assert got == expected, (got, expected)
print(f"read {len(batch)} requests, as httptools reads them")
"""

READERS = ("httptools", "regex", "bytes")
SHAPES = ("bench", "sdk")


def per_request(reader: str, shape: str, requests: int) -> float:
    """Instructions per request of ``reader`` over heads of ``shape``: a run
    that makes and reads ``requests`` heads less one that makes them only."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}

    def run(reading: str) -> int:
        return collected([sys.executable, "-c", CHILD, reader, shape, str(requests), reading],
                         env, label=f"{reader} over {shape} heads")

    return (run("1") - run("0")) / requests


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.head_parse",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=10_000, help="requests read per run")
    parser.add_argument("--jobs", type=int, default=2, help="callgrind processes at once")
    args = parser.parse_args(argv)
    jobs = [(reader, shape) for shape in SHAPES for reader in READERS]
    with ThreadPoolExecutor(args.jobs) as pool:
        counts = pool.map(lambda job: per_request(job[0], job[1], args.requests), jobs)
        found = dict(zip(jobs, counts, strict=True))
    print("Instructions per request read (callgrind; ratios to httptools):\n")
    print("| head | " + " | ".join(READERS) + " |")
    print("|---|" + "---:|" * len(READERS))
    for shape in SHAPES:
        base = found["httptools", shape]
        print(f"| {shape} | " + " | ".join(
            f"{found[reader, shape]:,.0f} ({found[reader, shape] / base:.2f})"
            for reader in READERS) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
