"""Fixtures for tallydb's behaviour tests.

Every behaviour test talks boto3 to tallydb through one of two real
interfaces (DESIGN.md: "boto3 against a real `tallydb serve` on a free
loopback port, and the same cases in-process"):

* ``server``: a ``python -m tallydb serve --port 0`` subprocess, one per
  pytest worker, on its own temporary data directory;
* ``inprocess``: ``tallydb.toolkit.inprocess.client(engine)``, the same botocore
  client answered by an Engine in this process.

Fixtures
--------
``backend``            parametrized ``server`` / ``inprocess``: a :class:`Backend`
                       with ``.client()``, ``.resource()`` and ``.raw()``.
``ddb``                ``backend.client()``: a boto3 DynamoDB client.
``make_table``         factory: ``make_table("videos", hash=("PK", "S"), range=("SK", "S"))``
                       creates a uniquely named table on the test's backend
                       (``exact=True`` keeps the name as given) and deletes it
                       afterwards. ``create_table(client, name, hash, range)``
                       does the same for any client (no cleanup).
``videos``             a fresh table with PK (S) / SK (S); its name.
``hash_table``         a fresh table with a hash key ``id`` (S) only; its name.
``tallydb_server``     the worker's shared :class:`TallyServer` (do not stop it).
``node``               the path of Node, with the AWS SDK for JavaScript v3 installed
                       (once, by npm) in ``JS_SDK`` (tests/sdk_js/node_modules);
                       skipped without Node and npm, failed in CI.
``tallydb_server_factory``  ``factory(data=None, sync=None, in_memory=False)``
                       starts a private :class:`TallyServer` on ``data`` (a new
                       temp dir by default); it can ``stop()``, ``kill()``
                       (SIGKILL, ``kill -9``), ``start()`` again on the same
                       data and ``restart()``. All are killed at teardown.

Every server listens on a port the OS picks and keeps data in a temp dir,
so the suite is safe under ``pytest -n``.

Test modules import this file's helpers as ``from tallytest import ...``:
``conftest`` is an ambiguous module name once sub-directories of tests/ have
their own conftest.py, so this module also registers itself as ``tallytest``.
"""

from __future__ import annotations

import collections
import contextlib
import fcntl
import http.client
import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import boto3
import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials
from botocore.exceptions import ClientError
from hypothesis import HealthCheck, settings

sys.modules.setdefault("tallytest", sys.modules[__name__])

# Property tests on a busy machine: an example may take as long as it takes
# (no deadline), and slow input generation is not a failure (too_slow and
# large_base_example measure the machine's speed, not the code's). A test's
# own @settings(...) inherits these.
settings.register_profile(
    "tallydb",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.large_base_example],
)
settings.load_profile("tallydb")

REGION = "us-east-1"
ACCESS_KEY = "x"
SECRET_KEY = "y"
TARGET_PREFIX = "DynamoDB_20120810."
START_TIMEOUT = 30.0
STOP_TIMEOUT = 15.0
LISTENING = re.compile(r"tallydb listening on (http://[^\s()]+)")

# Test clients never retry: a retried UpdateItem would count twice and hide
# the very thing the counter tests measure, and an unexpected 500 must show
# at once rather than after botocore's ten backed-off attempts.
CLIENT_CONFIG = Config(
    retries={"total_max_attempts": 1},
    max_pool_connections=64,
    connect_timeout=5,
    read_timeout=60,
)

# One boto3 session for every test client of a worker: a fresh session loads
# and parses DynamoDB's service model again (~0.15 s of CPU a client, and
# most tests make one), a shared one once. Each client still gets its own
# copy of the session's event hooks (what one test registers stays on its
# client); the lock because a session is not safe to use from two threads.
_SESSION = boto3.session.Session()
_SESSION_LOCK = threading.Lock()


def session_client(service: str, **options: Any) -> Any:
    """``boto3.client(service, **options)`` from the worker's one session;
    ``options`` must name the credentials (the session's own are read once)."""
    with _SESSION_LOCK:
        return _SESSION.client(service, **options)


@contextlib.contextmanager
def shared_session() -> Iterator[boto3.session.Session]:
    """The worker's one session, for a helper that takes ``session=``."""
    with _SESSION_LOCK:
        yield _SESSION


# --------------------------------------------------------------------------
# The real server as a subprocess
# --------------------------------------------------------------------------


class TallyServer:
    """One ``tallydb serve`` process on one data directory (or in memory).

    ``start()`` may be called again after ``stop()`` or ``kill()``: the new
    process serves the same data directory (on a new port: use ``url`` or
    ``client()`` again after a restart).
    """

    def __init__(
        self,
        data: Path | None,
        *,
        sync: str | None = None,
        in_memory: bool = False,
        extra_args: tuple[str, ...] = (),
    ) -> None:
        self.data = data
        self.sync = sync
        self.in_memory = in_memory
        self.extra_args = extra_args
        self.proc: subprocess.Popen[str] | None = None
        self.url: str | None = None
        self.output: collections.deque[str] = collections.deque(maxlen=400)
        self._listening = threading.Event()
        self._reader: threading.Thread | None = None

    # -- life cycle ------------------------------------------------------

    def command(self) -> list[str]:
        cmd = [sys.executable, "-m", "tallydb", "serve", "--host", "127.0.0.1", "--port", "0"]
        if self.in_memory:
            cmd.append("--in-memory")
        else:
            assert self.data is not None
            cmd += ["--data", str(self.data)]
        if self.sync is not None:
            cmd += ["--sync", self.sync]
        return cmd + list(self.extra_args)

    def start(self, timeout: float = START_TIMEOUT) -> TallyServer:
        assert not self.running, "already running"
        self.url = None
        self._listening.clear()
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(
            self.command(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            bufsize=1,
            env=env,
            start_new_session=True,  # its own process group, for kill()
        )
        self._reader = threading.Thread(target=self._read, args=(self.proc,), daemon=True)
        self._reader.start()
        deadline = time.monotonic() + timeout
        while not self._listening.wait(0.05):
            if self.proc.poll() is not None:
                self._reader.join(2)
                raise RuntimeError(
                    f"`{' '.join(self.command())}` exited with {self.proc.returncode} "
                    f"before listening:\n{self.log()}"
                )
            if time.monotonic() > deadline:
                self.close()
                raise RuntimeError(
                    f"`{' '.join(self.command())}` printed no 'tallydb listening on' line "
                    f"within {timeout}s:\n{self.log()}"
                )
        return self

    def _read(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            self.output.append(line.rstrip("\n"))
            if not self._listening.is_set():
                match = LISTENING.search(line)
                if match:
                    self.url = match.group(1).rstrip(".,;")
                    self._listening.set()

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self, sig: int = signal.SIGTERM, timeout: float = STOP_TIMEOUT) -> int:
        """Ask the server to stop (SIGTERM, or SIGINT as Ctrl-C sends) and wait.

        Returns its exit status; fails the test if it is still running after
        ``timeout`` (it is then killed).
        """
        assert self.proc is not None and self.running, "not running"
        self.proc.send_signal(sig)
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(
                f"tallydb serve did not exit within {timeout}s of {signal.Signals(sig).name}:\n"
                f"{self.log()}"
            ) from None
        self._join_reader()
        return code

    def kill(self) -> None:
        """``kill -9``: SIGKILL to the server's whole process group, then reap it."""
        assert self.proc is not None
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(STOP_TIMEOUT)
        self._join_reader()

    def restart(self, sig: int = signal.SIGTERM) -> TallyServer:
        self.stop(sig)
        return self.start()

    def close(self) -> None:
        """Teardown: whatever state the process is in, make sure it is gone."""
        if self.proc is not None:
            if self.proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(STOP_TIMEOUT)
            self._join_reader()

    def _join_reader(self) -> None:
        if self._reader is not None:
            self._reader.join(5)

    def log(self) -> str:
        return "\n".join(self.output)

    # -- clients -----------------------------------------------------------

    def _endpoint(self, config: Config | None) -> dict[str, Any]:
        """A boto3 client's or resource's arguments for this server."""
        assert self.url is not None, "not started"
        return {"endpoint_url": self.url, "region_name": REGION,
                "aws_access_key_id": ACCESS_KEY, "aws_secret_access_key": SECRET_KEY,
                "config": config or CLIENT_CONFIG}

    def client(self, config: Config | None = None) -> Any:
        return session_client("dynamodb", **self._endpoint(config))

    def resource(self, config: Config | None = None) -> Any:
        with shared_session() as session:
            return session.resource("dynamodb", **self._endpoint(config))


#: Where the AWS SDK for JavaScript v3 is installed for the tests (tests/sdk_js/package.json).
JS_SDK = Path(__file__).resolve().parent / "sdk_js" / "node_modules"


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """One pytest worker installs; the others wait for it."""
    with path.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def install_js_sdk() -> str | None:
    """Install @aws-sdk/client-dynamodb in ``JS_SDK`` unless it is there;
    why it cannot be (None once it is)."""
    npm = shutil.which("npm")
    if shutil.which("node") is None or npm is None:
        return ("Node.js and npm are not installed (Debian: apt-get install nodejs npm): "
                "the AWS SDK for JavaScript v3 cannot run")
    home = JS_SDK.parent
    with _locked(home / ".npm-install.lock"):
        if not (JS_SDK / "@aws-sdk" / "client-dynamodb").is_dir():
            result = subprocess.run(
                [npm, "install", "--no-audit", "--no-fund", "--no-package-lock",
                 "--loglevel=error"],
                cwd=home, capture_output=True, text=True, timeout=600, check=False)
            if result.returncode != 0 or not (JS_SDK / "@aws-sdk" / "client-dynamodb").is_dir():
                return ("npm could not install @aws-sdk/client-dynamodb: "
                        + (result.stderr or result.stdout)[-1000:])
    return None


@pytest.fixture(scope="session")
def node() -> str:
    """Node, with @aws-sdk/client-dynamodb installed in ``JS_SDK``."""
    node = shutil.which("node")
    reason = install_js_sdk()
    if node is None or reason is not None:
        if os.environ.get("CI"):  # .ci/run installs Node and npm: a must-run test
            pytest.fail(reason)
        pytest.skip(reason)
    return node


#: Where the AWS CLI is installed for the tests when it is not on PATH.
AWS_CLI_VENV = Path(__file__).resolve().parent / ".awscli"


def install_aws_cli() -> str | None:
    """Install v1 from PyPI's ``awscli`` into ``AWS_CLI_VENV`` unless ``aws`` is
    on PATH or there; why it cannot be (None once it is)."""
    if shutil.which("aws") is not None:
        return None
    with _locked(AWS_CLI_VENV.parent / ".awscli-install.lock"):
        if not (AWS_CLI_VENV / "bin" / "aws").exists():
            try:
                subprocess.run([sys.executable, "-m", "venv", "--clear", str(AWS_CLI_VENV)],
                               check=True, timeout=120)
                subprocess.run([str(AWS_CLI_VENV / "bin" / "pip"), "install", "-q", "awscli"],
                               check=True, timeout=300, capture_output=True)
            except (subprocess.SubprocessError, OSError) as error:
                return f"the AWS CLI is not on PATH and `pip install awscli` failed: {error}"
    return None


@pytest.fixture(scope="session")
def aws_cli() -> str:
    """The AWS CLI: ``aws`` on PATH, or v1 from PyPI's ``awscli`` installed
    once into ``AWS_CLI_VENV`` (a virtual environment of its own: it pins its
    own botocore), as on a clean CI machine."""
    reason = install_aws_cli()
    if reason is not None:
        if os.environ.get("CI"):  # CI installs from PyPI: a must-run test
            pytest.fail(reason)
        pytest.skip(reason)
    return shutil.which("aws") or str(AWS_CLI_VENV / "bin" / "aws")


def _helper(relative: str, name: str) -> Callable[[], object]:
    """``name`` from the helper module at ``relative`` (a path under tests/)."""
    path = Path(__file__).resolve().parent / relative
    spec = importlib.util.spec_from_file_location(f"_install_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    found: Callable[[], object] = getattr(module, name)
    return found


def _quietly(install: Callable[[], object]) -> None:
    # A failure shows in the fixture that needs the install: it tries again.
    with contextlib.suppress(Exception):
        install()


def _stale_extensions() -> list[str]:
    """Compiled modules (mypyc's C extensions, built in place in src/ by the
    editable install) older than their .py: Python would import the stale
    extension instead of the edited source."""
    package = Path(__file__).resolve().parent.parent / "src" / "tallydb"
    stale = []
    for extension in package.rglob("*.so"):
        source = extension.with_name(extension.name.split(".", 1)[0] + ".py")
        if source.is_file() and extension.stat().st_mtime < source.stat().st_mtime:
            stale.append(str(source.relative_to(package.parent.parent)))
    return sorted(stale)


def pytest_sessionstart(session: pytest.Session) -> None:
    """Stops at once when a compiled module is older than its source (run
    `make compiled`). In CI, the one-time installs (DynamoDB Local's jar and kinesalite from
    npm, the AWS SDK for JavaScript, the AWS CLI) start at once in the
    background, while the tests run: each fixture that needs one waits on its
    install lock instead of holding a worker while it downloads."""
    stale = _stale_extensions()
    if stale:
        pytest.exit(
            "compiled modules older than their source (run `make compiled`, or "
            "TALLYDB_PURE_PYTHON=1 make compiled for pure Python): " + ", ".join(stale),
            returncode=4)
    if not os.environ.get("CI") or hasattr(session.config, "workerinput"):
        return

    def peers() -> None:  # one after the other: they share bench/.peers
        _quietly(_helper("toolkit/toolkit_stores.py", "dynamodb_local_missing"))
        _quietly(_helper("api_kinesis/kinesiskit.py", "kinesalite_missing"))

    for install in (peers, install_js_sdk, install_aws_cli):
        threading.Thread(target=_quietly, args=(install,), daemon=True).start()


@pytest.fixture(scope="session")
def tallydb_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TallyServer]:
    """The worker's shared server (default --sync), on a temp data dir."""
    server = TallyServer(tmp_path_factory.mktemp("tallydb-data"))
    server.start()
    yield server
    server.close()


@pytest.fixture
def tallydb_server_factory(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Callable[..., TallyServer]]:
    """Start private servers: ``factory(data=None, sync=None, in_memory=False,
    extra_args=())``."""
    servers: list[TallyServer] = []

    def factory(
        data: Path | None = None,
        sync: str | None = None,
        in_memory: bool = False,
        start: bool = True,
        extra_args: tuple[str, ...] = (),
    ) -> TallyServer:
        if data is None and not in_memory:
            data = tmp_path_factory.mktemp("tallydb-data")
        server = TallyServer(data, sync=sync, in_memory=in_memory, extra_args=extra_args)
        servers.append(server)
        return server.start() if start else server

    yield factory
    for server in servers:
        server.close()


# --------------------------------------------------------------------------
# Backends: the same client over the server or in-process
# --------------------------------------------------------------------------


@dataclass
class RawResponse:
    """An HTTP answer as DynamoDB's wire gives it."""

    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body) if self.body else None

    @property
    def error_code(self) -> str:
        """``__type``'s last part: ``ValidationException``."""
        return str(self.json.get("__type", "")).rsplit("#", 1)[-1]

    @property
    def message(self) -> str | None:
        body = self.json
        return body.get("message", body.get("Message"))


class Backend:
    """A way to reach tallydb: ``client()``, ``resource()``, ``raw()``."""

    name: str

    def client(self, config: Config | None = None) -> Any:
        raise NotImplementedError

    def resource(self, config: Config | None = None) -> Any:
        raise NotImplementedError

    def raw(self, target: str, body: bytes | dict[str, Any]) -> RawResponse:
        """POST one DynamoDB JSON request as given, bypassing boto3's checks.

        ``target`` is an operation name (``"BatchWriteItem"``) or a whole
        ``X-Amz-Target`` value; ``body`` a dict (sent as JSON) or raw bytes.
        """
        raise NotImplementedError

    @staticmethod
    def _target(target: str) -> str:
        return target if "." in target or not target else TARGET_PREFIX + target

    @staticmethod
    def _body(body: bytes | dict[str, Any]) -> bytes:
        return body if isinstance(body, bytes) else json.dumps(body).encode()


class ServerBackend(Backend):
    name = "server"

    def __init__(self, server: TallyServer) -> None:
        self.server = server
        self._client: Any = None

    def client(self, config: Config | None = None) -> Any:
        if config is not None:
            return self.server.client(config)
        if self._client is None:
            self._client = self.server.client()
        return self._client

    def resource(self, config: Config | None = None) -> Any:
        return self.server.resource(config)

    def raw(self, target: str, body: bytes | dict[str, Any]) -> RawResponse:
        assert self.server.url is not None
        url = self.server.url.rstrip("/") + "/"
        data = self._body(body)
        request = AWSRequest(
            method="POST",
            url=url,
            data=data,
            headers={
                "Content-Type": "application/x-amz-json-1.0",
                "X-Amz-Target": self._target(target),
            },
        )
        SigV4Auth(Credentials(ACCESS_KEY, SECRET_KEY), "dynamodb", REGION).add_auth(request)
        parts = urlsplit(url)
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        try:
            conn.request("POST", "/", body=data, headers=dict(request.headers.items()))
            response = conn.getresponse()
            return RawResponse(
                response.status,
                {k.lower(): v for k, v in response.getheaders()},
                response.read(),
            )
        finally:
            conn.close()


class InProcessBackend(Backend):
    name = "inprocess"

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self._client: Any = None

    def client(self, config: Config | None = None) -> Any:
        from tallydb.toolkit import inprocess

        with shared_session() as session:
            if config is not None:
                return inprocess.client(self.engine, config=config, session=session)
            if self._client is None:
                self._client = inprocess.client(
                    self.engine, config=CLIENT_CONFIG, session=session)
            return self._client

    def resource(self, config: Config | None = None) -> Any:
        from tallydb.toolkit import inprocess

        with shared_session() as session:
            return inprocess.resource(
                self.engine, config=config or CLIENT_CONFIG, session=session)

    def raw(self, target: str, body: bytes | dict[str, Any]) -> RawResponse:
        from tallydb.toolkit.inprocess import CONTENT_TYPE, InProcessTransport

        status, data = InProcessTransport(self.engine).respond(
            self._target(target), self._body(body)
        )
        return RawResponse(status, {"content-type": CONTENT_TYPE}, data)


@pytest.fixture(scope="session")
def inprocess_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The worker's shared in-process Engine, on a temp data dir."""
    from tallydb.engine.api import Engine
    from tallydb.engine.storage import Store

    engine = Engine(Store(tmp_path_factory.mktemp("inprocess-data")))
    yield engine
    engine.close()


BACKENDS = ["server", "inprocess"]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Backend:
    if request.param == "server":
        return ServerBackend(request.getfixturevalue("tallydb_server"))
    return InProcessBackend(request.getfixturevalue("inprocess_engine"))


@pytest.fixture
def ddb(backend: Backend) -> Any:
    """A boto3 DynamoDB client, through the server or in-process."""
    return backend.client()


# --------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------


def unique_name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def delete_table_quietly(ddb: Any, name: str) -> None:
    with contextlib.suppress(ClientError):
        ddb.delete_table(TableName=name)


def create_table(
    ddb: Any,
    name: str,
    hash: tuple[str, str] = ("PK", "S"),
    range: tuple[str, str] | None = None,
) -> str:
    """CreateTable (PAY_PER_REQUEST), then botocore's ``table_exists`` waiter."""
    keys = [hash] if range is None else [hash, range]
    schema = [{"AttributeName": hash[0], "KeyType": "HASH"}]
    if range is not None:
        schema.append({"AttributeName": range[0], "KeyType": "RANGE"})
    ddb.create_table(
        TableName=name,
        AttributeDefinitions=[{"AttributeName": n, "AttributeType": t} for n, t in keys],
        KeySchema=schema,
        BillingMode="PAY_PER_REQUEST",
    )
    ddb.get_waiter("table_exists").wait(
        TableName=name, WaiterConfig={"Delay": 1, "MaxAttempts": 10}
    )
    return name


@pytest.fixture
def make_table(ddb: Any) -> Iterator[Callable[..., str]]:
    """``make_table(prefix, hash=("PK", "S"), range=None, exact=False) -> name``.

    Creates a PAY_PER_REQUEST table through ``ddb`` (so on the backend the test
    runs on), waits for it with botocore's ``table_exists`` waiter, and deletes
    it at teardown. ``exact=True`` uses ``prefix`` as the name itself.
    """
    created: list[str] = []

    def make(
        prefix: str = "t",
        hash: tuple[str, str] = ("PK", "S"),
        range: tuple[str, str] | None = None,
        exact: bool = False,
    ) -> str:
        name = prefix if exact else unique_name(prefix)
        if exact:
            delete_table_quietly(ddb, name)  # left over by an interrupted run
        created.append(name)
        return create_table(ddb, name, hash, range)

    yield make
    for name in created:
        delete_table_quietly(ddb, name)


@pytest.fixture
def videos(make_table: Callable[..., str]) -> str:
    """A fresh table keyed PK (S) / SK (S), as the seed article models it."""
    return make_table("videos", hash=("PK", "S"), range=("SK", "S"))


@pytest.fixture
def hash_table(make_table: Callable[..., str]) -> str:
    """A fresh table with only a hash key, ``id`` (S)."""
    return make_table("hash", hash=("id", "S"))


# --------------------------------------------------------------------------
# Assertion helpers
# --------------------------------------------------------------------------


def error_of(excinfo: pytest.ExceptionInfo[ClientError]) -> tuple[str, str, int]:
    """(code, message, HTTP status) of a boto3 ClientError."""
    response = excinfo.value.response
    return (
        response["Error"]["Code"],
        response["Error"].get("Message", ""),
        response["ResponseMetadata"]["HTTPStatusCode"],
    )


#: DynamoDB puts some ValidationExceptions inside this envelope and not others,
#: by operation and by region (paritysuite/dynamodb-conformance, 2026 captures
#: in four regions); either form of the same message is DynamoDB's.
ENVELOPE = "1 validation error detected: "


def same_message(got: str, expected: str) -> bool:
    return got == expected or got == ENVELOPE + expected


def assert_error(
    excinfo: pytest.ExceptionInfo[ClientError], code: str, message: str | None,
    status: int = 400,
) -> None:
    """The ClientError is DynamoDB's (code, message, HTTP status)."""
    got_code, got_message, got_status = error_of(excinfo)
    assert (got_code, got_status) == (code, status), got_message
    if message is not None:
        assert same_message(got_message, message), (got_message, message)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """The documentation's blocks: how many ran, and which are marked as not
    runnable, and why (tests/test_docs_examples.py records them)."""
    documents = [
        value
        for report in terminalreporter.stats.get("passed", [])
        for name, value in getattr(report, "user_properties", ())
        if name == "docs_blocks"
    ]
    if not documents:
        return
    terminalreporter.section("documentation blocks")
    for fresh_clone in (False, True):
        runs = [d for d in documents if bool(d.get("fresh_clone")) == fresh_clone]
        if not runs:
            continue
        ran = sum(d["ran"] for d in runs)
        skipped = [line for d in runs for line in d["skipped"]]
        where = ("README.md followed top to bottom in a fresh clone" if fresh_clone
                 else f"{len(runs)} documents")
        terminalreporter.line(f"{ran} blocks run in {where}, "
                              f"{len(skipped)} marked not runnable:")
        for line in skipped:
            terminalreporter.line(f"  {line}")
