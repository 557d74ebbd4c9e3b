"""The servers under test: how to find, start, pin, probe and stop each one."""

from __future__ import annotations

import contextlib
import http.client
import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from bench import procstat
from bench.dynamo import auth_headers

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
PEERS = BENCH_DIR / ".peers"
DYNALITE_CLI = PEERS / "node_modules" / "dynalite" / "cli.js"
DDB_LOCAL_DIR = PEERS / "node_modules" / "amplify-dynamodb-simulator" / "emulator"
PYTHON = sys.executable

# every process this module started and has not stopped yet: killed at exit
_LIVE: dict[int, subprocess.Popen[bytes]] = {}


class ServerUnavailable(Exception):
    """The server cannot be started here; the message says why (it is reported)."""


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _version_of_npm(package_dir: Path) -> str | None:
    try:
        return str(json.loads((package_dir / "package.json").read_text())["version"])
    except (OSError, ValueError, KeyError):
        return None


def _ddb_local_version() -> str | None:
    readme = DDB_LOCAL_DIR / "README.txt"
    try:
        for line in readme.read_text(errors="replace").splitlines():
            line = line.strip()
            if line.startswith("20") and "(" in line:
                return line[line.index("(") + 1 : line.index(")")]
    except (OSError, ValueError):
        return None
    return None


def _command_version(cmd: list[str]) -> str | None:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = (out.stdout + out.stderr).strip().splitlines()
    return text[0] if text else None


@dataclass(frozen=True)
class ServerSpec:
    """One entry of the comparison.

    argv(port, workdir) gives the command line; workdir is a fresh temp folder
    for the server's data. check() returns the reason it cannot run, or None.
    """

    name: str
    label: str
    argv: Callable[[int, Path], list[str]]
    check: Callable[[], str | None]
    version: Callable[[], str | None]
    cwd: Path | None = None
    noop: bool = False  # answers {} to everything: no tables, no correctness checks
    tallydb: bool = False
    start_timeout: float = 60.0


def _need_module(module: str, hint: str) -> Callable[[], str | None]:
    def check() -> str | None:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        return None if found else f"Python module {module} not importable ({hint})"

    return check


def _need_node_dynalite() -> str | None:
    if shutil.which("node") is None:
        return "node not found"
    if not DYNALITE_CLI.exists():
        return f"{DYNALITE_CLI.relative_to(REPO)} missing (run bench/setup.sh)"
    return None


def _need_ddb_local() -> str | None:
    if shutil.which("java") is None:
        return "java not found (apt-get install openjdk-17-jre-headless)"
    if not (DDB_LOCAL_DIR / "DynamoDBLocal.jar").exists():
        return (
            f"{(DDB_LOCAL_DIR / 'DynamoDBLocal.jar').relative_to(REPO)} missing "
            "(run bench/setup.sh)"
        )
    return None


def _tallydb_version() -> str | None:
    return _command_version([PYTHON, "-c", "import tallydb; print(tallydb.__version__)"])


def _tallydb(*flags: str, data: bool = True) -> Callable[[int, Path], list[str]]:
    """tallydb serve; with data=True a fresh --data folder in the server's temp dir."""

    def argv(port: int, workdir: Path) -> list[str]:
        cmd = [PYTHON, "-m", "tallydb", "serve", "--host", "127.0.0.1", "--port", str(port)]
        if data:
            cmd += ["--data", str(workdir / "data")]
        return [*cmd, *flags]

    return argv


def _dynalite(on_disk: bool) -> Callable[[int, Path], list[str]]:
    def argv(port: int, workdir: Path) -> list[str]:
        cmd = [
            "node", str(DYNALITE_CLI), "--host", "127.0.0.1", "--port", str(port),
            "--createTableMs", "0", "--deleteTableMs", "0", "--updateTableMs", "0",
        ]  # fmt: skip
        return [*cmd, "--path", str(workdir / "leveldb")] if on_disk else cmd

    return argv


def _ddb_local(on_disk: bool) -> Callable[[int, Path], list[str]]:
    def argv(port: int, workdir: Path) -> list[str]:
        cmd = [
            "java", f"-Djava.library.path={DDB_LOCAL_DIR / 'DynamoDBLocal_lib'}",
            "-jar", str(DDB_LOCAL_DIR / "DynamoDBLocal.jar"),
            "-sharedDb", "-disableTelemetry", "-port", str(port),
        ]  # fmt: skip
        return [*cmd, "-dbPath", str(workdir)] if on_disk else [*cmd, "-inMemory"]

    return argv


def _moto(port: int, workdir: Path) -> list[str]:
    return [PYTHON, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)]


def _noop(port: int, workdir: Path) -> list[str]:
    return [PYTHON, "-m", "bench.noop_server", "--host", "127.0.0.1", "--port", str(port)]


def _java_version() -> str | None:
    v = _command_version(["java", "-version"])
    return f"{_ddb_local_version()} on {v}" if v else _ddb_local_version()


def _node_dynalite_version() -> str | None:
    return f"{_version_of_npm(DYNALITE_CLI.parent)} on node {_command_version(['node', '-v'])}"


def _moto_version() -> str | None:
    return _command_version([PYTHON, "-c", "import moto; print(moto.__version__)"])


_TALLYDB_CHECK = _need_module("tallydb.cli", "pip install -e .")

SPECS: dict[str, ServerSpec] = {
    s.name: s
    for s in [
        ServerSpec(
            "tallydb", "tallydb (default durability)", _tallydb(), _TALLYDB_CHECK,
            _tallydb_version, cwd=REPO, tallydb=True,
        ),
        ServerSpec(
            "tallydb-sync-full", "tallydb --sync full", _tallydb("--sync", "full"),
            _TALLYDB_CHECK, _tallydb_version, cwd=REPO, tallydb=True,
        ),
        ServerSpec(
            "tallydb-memory", "tallydb --in-memory", _tallydb("--in-memory", data=False),
            _TALLYDB_CHECK, _tallydb_version, cwd=REPO, tallydb=True,
        ),
        ServerSpec(
            "noop", "no-op server (uvloop + httptools, answers {})", _noop,
            _need_module("httptools", "pip install httptools uvloop"),
            lambda: "bench/noop_server.py", cwd=REPO, noop=True,
        ),
        ServerSpec(
            "dynalite-memory", "dynalite (in memory)", _dynalite(False),
            _need_node_dynalite, _node_dynalite_version,
        ),
        ServerSpec(
            "dynalite-disk", "dynalite --path (LevelDB)", _dynalite(True),
            _need_node_dynalite, _node_dynalite_version,
        ),
        ServerSpec(
            "ddblocal-memory", "DynamoDB Local -inMemory", _ddb_local(False),
            _need_ddb_local, _java_version, cwd=DDB_LOCAL_DIR, start_timeout=180,
        ),
        ServerSpec(
            "ddblocal-disk", "DynamoDB Local (SQLite on disk)", _ddb_local(True),
            _need_ddb_local, _java_version, cwd=DDB_LOCAL_DIR, start_timeout=180,
        ),
        ServerSpec(
            "moto", "moto server", _moto, _need_module("moto.server", "pip install 'moto[server]'"),
            _moto_version,
        ),
    ]
}  # fmt: skip

DEFAULT_SERVERS = [
    "tallydb",
    "tallydb-sync-full",
    "noop",
    "dynalite-memory",
    "dynalite-disk",
    "ddblocal-memory",
    "ddblocal-disk",
    "moto",
]


def _listening(url: str) -> bool:
    """True once the server answers an HTTP request (any status below 500)."""
    host, _, port = url.removeprefix("http://").rstrip("/").partition(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=2)
    try:
        conn.request("POST", "/", body=b"{}", headers=auth_headers("ListTables"))
        return conn.getresponse().status < 500
    except OSError:
        return False
    except http.client.HTTPException:
        return False
    finally:
        conn.close()


@dataclass
class RunningServer:
    """A started server: `with RunningServer(spec, cpus) as s: s.url, s.pid`.

    Started in its own session (so its whole process group can be stopped),
    pinned with taskset to `cpus`, its output in a log file of its temp folder.
    """

    spec: ServerSpec
    cpus: str | None = None
    url: str = ""
    pid: int = 0
    startup_seconds: float = 0.0
    argv: list[str] = field(default_factory=list)
    _proc: subprocess.Popen[bytes] | None = None
    _tmp: tempfile.TemporaryDirectory[str] | None = None
    _log: Path | None = None

    def __enter__(self) -> RunningServer:
        reason = self.spec.check()
        if reason:
            raise ServerUnavailable(reason)
        self._tmp = tempfile.TemporaryDirectory(prefix=f"tallydb-bench-{self.spec.name}-")
        workdir = Path(self._tmp.name)
        port = free_port()
        self.argv = self.spec.argv(port, workdir)
        cmd = list(self.argv)
        if self.cpus is not None and shutil.which("taskset"):
            cmd = ["taskset", "-c", self.cpus, *cmd]
        self._log = workdir / "server.log"
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        if self.spec.cwd == REPO:
            env["PYTHONPATH"] = os.pathsep.join(
                p for p in (str(REPO), str(REPO / "src"), env.get("PYTHONPATH")) if p
            )
        started = time.monotonic()
        try:
            with open(self._log, "wb") as log:
                self._proc = subprocess.Popen(
                    cmd,
                    cwd=self.spec.cwd,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                    env=env,
                )
        except OSError as e:
            self._cleanup()
            raise ServerUnavailable(f"cannot start {cmd[0]}: {e}") from e
        _LIVE[self._proc.pid] = self._proc
        self.pid = self._proc.pid
        self.url = f"http://127.0.0.1:{port}"
        try:
            self._wait_ready(started)
        except BaseException:
            self.stop()
            raise
        self.startup_seconds = time.monotonic() - started
        return self

    def _wait_ready(self, started: float) -> None:
        assert self._proc is not None
        deadline = started + self.spec.start_timeout
        while True:
            code = self._proc.poll()
            if code is not None:
                raise ServerUnavailable(f"exited with code {code} at start-up: {self.log_tail()}")
            if _listening(self.url):
                return
            if time.monotonic() > deadline:
                raise ServerUnavailable(
                    f"not answering after {self.spec.start_timeout:.0f} s: {self.log_tail()}"
                )
            time.sleep(0.05)

    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def log_tail(self, chars: int = 600) -> str:
        if self._log is None or not self._log.exists():
            return ""
        text = self._log.read_text(errors="replace").strip()
        return " | ".join(text[-chars:].splitlines())

    def stop(self) -> None:
        proc = self._proc
        if proc is not None:
            _stop_process(proc)
            _LIVE.pop(proc.pid, None)
            self._proc = None
        self._cleanup()

    def _cleanup(self) -> None:
        if self._tmp is not None:
            with contextlib.suppress(OSError):
                self._tmp.cleanup()
            self._tmp = None

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def _stop_process(proc: subprocess.Popen[bytes], grace: float = 5.0) -> None:
    """SIGTERM the server's process group, SIGKILL it after `grace` seconds."""
    if proc.poll() is not None:
        return
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, sig)
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def stop_all() -> None:
    """Stop every server still running (atexit and signal handlers call this)."""
    for proc in list(_LIVE.values()):
        _stop_process(proc, grace=2.0)
    _LIVE.clear()


@dataclass
class ExternalServer:
    """A server someone else started (--url): measured, never started or stopped."""

    url: str
    pid: int = 0

    def alive(self) -> bool:
        return self.pid == 0 or procstat.alive(self.pid)

    def log_tail(self, chars: int = 600) -> str:
        return ""
