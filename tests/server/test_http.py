"""HTTP as DynamoDB speaks it: the head limit, paths, the headers SDKs and
browsers read, TLS (compressed bodies: test_encoding.py)."""

from __future__ import annotations

import datetime as dt
import resource
import socket
import ssl
import time
from collections.abc import Callable
from pathlib import Path

import boto3
import pytest
from botocore.config import Config
from serverkit import Pipe, Serve, StubServer, post, request_bytes

pytest_plugins = ["server_fixtures"]

def test_a_head_over_16_kb_is_400(stub: StubServer, pipe_factory: Callable[[str], Pipe]) -> None:
    pipe = pipe_factory(stub.url)
    pipe.send(request_bytes("Echo", {}, extra="X-Pad: " + "p" * (16 * 1024) + "\r\n"))
    assert pipe.response().status == 400
    assert pipe.closed_by_server()
    many = "".join(f"X-H{n}: {'v' * 60}\r\n" for n in range(300))  # 300 small headers
    pipe = pipe_factory(stub.url)
    pipe.send(request_bytes("Echo", {}, extra=many))
    assert pipe.response().status == 400
    pipe = pipe_factory(stub.url)
    pipe.send(b"GET /" + b"u" * (17 * 1024) + b" HTTP/1.1\r\nHost: localhost\r\n\r\n")
    assert pipe.response().status == 400
    # just under the limit is served
    assert post(stub.url, "Echo", {}, headers={"X-Pad": "p" * 15_000}).status == 200


def test_the_head_limit_holds_however_the_head_arrives(
    stub: StubServer, pipe_factory: Callable[[str], Pipe]
) -> None:
    over = request_bytes("Echo", {}, extra="X-Pad: " + "p" * (17 * 1024) + "\r\n")
    pipe = pipe_factory(stub.url)
    for start in range(0, len(over), 700):  # in small reads, the last header never complete
        pipe.send(over[start : start + 700])
        time.sleep(0.002)
    assert pipe.response().status == 400
    assert pipe.closed_by_server()
    # behind a pipelined request: that one is answered, the long head is not
    pipe = pipe_factory(stub.url)
    pipe.send(request_bytes("Echo", {"n": 1}) + over)
    assert pipe.response().json == {"Echo": {"n": 1}}
    assert pipe.response().status == 400
    assert pipe.closed_by_server()
    # and one just under the limit, behind a pipelined request, is served
    under = request_bytes("Echo", {"n": 2}, extra="X-Pad: " + "p" * 15_000 + "\r\n")
    pipe = pipe_factory(stub.url)
    pipe.send(request_bytes("Echo", {"n": 1}) + under)
    assert pipe.response().json == {"Echo": {"n": 1}}
    assert pipe.response().json == {"Echo": {"n": 2}}


def test_a_post_to_another_path_is_404(stub: StubServer) -> None:
    for path in ("/other", "/tables/x", "//"):
        pipe = Pipe(stub.url)
        try:
            request = request_bytes("Echo", {})
            pipe.send(request.replace(b"POST / ", b"POST " + path.encode() + b" "))
            answer = pipe.response()
        finally:
            pipe.close()
        assert answer.status == 404, path
        assert answer.body == b"<UnknownOperationException/>\n"
    assert stub.engine.batches == []
    assert post(stub.url, "Echo", {}).status == 200


def test_every_response_names_a_server(stub: StubServer) -> None:
    for target, body in (("Echo", b"{}"), ("NoSuch", b"{}"), ("Echo", b"not json")):
        assert post(stub.url, target, body).headers["server"] == "Server"  # DynamoDB's value


def _self_signed(tmp_path: Path) -> tuple[Path, Path]:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name)
        .public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1)).not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption()))
    return cert_path, key_path


def test_tls(serve: Callable[..., Serve], tmp_path: Path) -> None:
    pytest.importorskip("cryptography", reason="cryptography makes the test certificate")
    cert, key = _self_signed(tmp_path)
    server = serve("--in-memory", "--tls-cert", str(cert), "--tls-key", str(key))
    assert server.url.startswith("https://")
    port = server.url.rsplit(":", 1)[1]
    ddb = boto3.session.Session().client(
        "dynamodb", endpoint_url=f"https://localhost:{port}", region_name="us-east-1",
        aws_access_key_id="x", aws_secret_access_key="y", verify=str(cert),
        config=Config(retries={"total_max_attempts": 1}),
    )
    assert ddb.list_tables()["TableNames"] == []
    raw = socket.create_connection(("127.0.0.1", int(port)))
    with raw, pytest.raises(ssl.SSLError):  # a client that does not trust it
        ssl.create_default_context().wrap_socket(raw, server_hostname="localhost")


def test_a_tls_client_whose_hello_comes_with_the_connection_is_served(
    serve: Callable[..., Serve], tmp_path: Path
) -> None:
    pytest.importorskip("cryptography", reason="cryptography makes the test certificate")
    cert, key = _self_signed(tmp_path)
    server = serve("--in-memory", "--tls-cert", str(cert), "--tls-key", str(key))
    port = int(server.url.rsplit(":", 1)[1])
    context = ssl.create_default_context(cafile=str(cert))
    for _ in range(5):  # its ClientHello sent at once, as the connection is accepted
        with context.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=30),
                                 server_hostname="localhost") as tls:
            tls.sendall(request_bytes("ListTables", b"{}"))
            assert tls.recv(65536).startswith(b"HTTP/1.1 200 OK\r\n")


def test_a_client_that_half_closes_gets_every_answer(
    stub_factory: Callable[..., StubServer],
) -> None:
    # `nc -N` and friends send their requests, then shut their side down;
    # the EOF arrives while the batch is still committing (on its thread)
    stub = stub_factory(offload=True)
    stub.engine.commit_delay = 0.2
    pipe = Pipe(stub.url)
    try:
        pipe.send(b"".join(request_bytes("Echo", {"n": n}) for n in range(5)))
        pipe.sock.shutdown(socket.SHUT_WR)
        assert [pipe.response().json for _ in range(5)] == [{"Echo": {"n": n}} for n in range(5)]
        assert pipe.closed_by_server()
    finally:
        pipe.close()


def _open_raw(port: int, count: int) -> list[socket.socket]:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < count + 256:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, count + 256), hard))
    return [socket.create_connection(("127.0.0.1", port)) for _ in range(count)]


def _closed_by_server(sock: socket.socket) -> bool:
    sock.setblocking(False)
    try:
        return sock.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True  # reset


def _wait_until(condition: Callable[[], bool], what: str, timeout: float = 45.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.2)


def test_half_open_tls_handshakes_count_against_the_connection_cap(
    serve: Callable[..., Serve], tmp_path: Path
) -> None:
    pytest.importorskip("cryptography", reason="cryptography makes the test certificate")
    cert, key = _self_signed(tmp_path)
    server = serve("--in-memory", "--tls-cert", str(cert), "--tls-key", str(key),
                   "--max-connections", "50", "--header-timeout", "600")
    port = int(server.url.rsplit(":", 1)[1])
    socks = _open_raw(port, 300)  # TCP connections that never begin their handshake
    try:
        _wait_until(lambda: sum(_closed_by_server(s) for s in socks) >= 250,
                    "handshakes past --max-connections were held open")
    finally:
        for sock in socks:
            sock.close()


def test_a_tls_handshake_must_end_within_the_header_timeout(
    serve: Callable[..., Serve], tmp_path: Path
) -> None:
    pytest.importorskip("cryptography", reason="cryptography makes the test certificate")
    cert, key = _self_signed(tmp_path)
    server = serve("--in-memory", "--tls-cert", str(cert), "--tls-key", str(key),
                   "--header-timeout", "1")
    port = int(server.url.rsplit(":", 1)[1])
    socks = _open_raw(port, 300)
    socks[0].sendall(b"\x16\x03\x01")  # and one that stops three bytes into it
    try:
        _wait_until(lambda: all(_closed_by_server(s) for s in socks),
                    "half-open handshakes outlived --header-timeout")
    finally:
        for sock in socks:
            sock.close()
    ddb = boto3.session.Session().client(  # and a whole handshake is served as before
        "dynamodb", endpoint_url=f"https://localhost:{port}", region_name="us-east-1",
        aws_access_key_id="x", aws_secret_access_key="y", verify=str(cert),
        config=Config(retries={"total_max_attempts": 1}),
    )
    assert ddb.list_tables()["TableNames"] == []
