"""Every code block of the README and of docs/ runs as written, in order, and
prints what the document says it prints (sybil parses the Markdown).

Each document gets a fresh directory to run in and, when a block needs one,
its own ``tallydb serve`` (in memory, on a free port). What the blocks say
about the server's address, ``http://127.0.0.1:8000``, is read as that
server's; ``tallydb`` is on the PATH and ``$TALLYDB_ENDPOINT`` names it. That
is all that differs from running them by hand.

* A ``tallydb serve ...`` command in a shell block starts that server, with
  the command's own options (and ``--port 0``), for the blocks after it; it
  runs until the document ends, as the reader's runs until Ctrl+C. It must
  come before anything has used the server.

* ``python`` blocks share one namespace per document. A ``print(...)`` whose
  line ends in ``# text`` must print ``text``. A block of pytest tests that
  take the plugin's fixtures (``def test_...(tallydb_...)``) is also run by
  pytest itself, as the reader would run it (after the document's earlier
  such blocks, whose names it may use), and each of its tests must pass.
* ``sh`` blocks run command by command with bash. Lines ``# text`` right after
  a command are what it prints (standard output), line for line; an expected
  output starting ``tallydb: `` is an error line: the command must fail and
  print it on standard error. Other comments are explanations.
* ``toml`` blocks are credentials files: ``tallydb serve --credentials`` must
  read them.
* ``json`` blocks (requests, answers, files) must be JSON.
* A block marked ``<!-- skip: next "why" -->`` is not run, and says why; the
  summary at the end of the run counts the blocks run and lists those marked.
  Every block in a language that runs (python, sh, bash, toml, json) is one
  or the other. ``text`` blocks (output, layouts) and diagrams are not code.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import SkipTest

import pytest
from sybil import Example, Sybil
from sybil.parsers.markdown import CodeBlockParser, SkipParser

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: Languages whose blocks are code: each runs, or is marked as not runnable.
CODE = ("python", "sh", "bash", "toml", "json")
DOCUMENTED_ENDPOINT = "http://127.0.0.1:8000"
PRINTED = re.compile(r"^\s*print\(.*\)\s+# (.*)$")
FENCE = re.compile(r"^ {0,3}```([\w-]*)\s*$")
INVISIBLE = re.compile(r"^<!-- invisible-code-block: (?:python|sh|toml)$", re.M)
BIN = Path(sys.executable).parent
SERVE = re.compile(r"^tallydb\s+serve(?:\s|$)")
#: A pytest test asking for one of the plugin's fixtures.
FIXTURE_TEST = re.compile(r"^(?:async )?def (test_\w*)\([^)]*\btallydb_\w+", re.M)


@dataclass
class Run:
    """One document's run: where it runs, its server, what ran."""

    directory: Path
    stack: contextlib.ExitStack
    url: str | None = None
    ran: int = 0
    #: The python blocks so far that are pytest tests on the plugin's fixtures.
    test_blocks: list[str] = field(default_factory=list)

    def endpoint(self) -> str:
        """The document's own server, started on first use."""
        if self.url is None:
            self.serve([])
        assert self.url is not None
        return self.url

    def serve(self, options: list[str]) -> None:
        """Start the document's server with ``tallydb serve``'s ``options``
        (in memory unless they name ``--data``)."""
        from tallydb.testing import Server

        assert self.url is None, "the document's server is already running"
        in_memory = "--data" not in options
        extra = tuple(o for o in options if o != "--in-memory")
        server = Server(None if in_memory else self.directory / "tallydb-data",
                        in_memory=in_memory, extra_args=extra)
        self.stack.enter_context(server.start())
        self.url = str(server.url)

    def environment(self) -> dict[str, str]:
        env = dict(os.environ)
        env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
        env["TALLYDB_ENDPOINT"] = self.endpoint()
        env.pop("TALLYDB_DATA", None)
        return env

    def local(self, text: str) -> str:
        if DOCUMENTED_ENDPOINT in text:
            return text.replace(DOCUMENTED_ENDPOINT, self.endpoint())
        return text


def _checkout(directory: Path) -> None:
    """``directory`` as a checkout after ``make serve``: its ``.venv`` is this one."""
    venv = directory / ".venv"
    if not venv.exists():
        venv.symlink_to(BIN.parent, target_is_directory=True)


def _run_of(example: Example) -> Run:
    run: Run = example.namespace["__docs_run__"]
    return run


def _where(example: Example) -> str:
    path = Path(example.path)
    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
    return f"{shown}:{example.line}"


def python_block(example: Example) -> None:
    run = _run_of(example)
    source = run.local(str(example.parsed))
    expected = [m.group(1).strip() for line in source.splitlines() if (m := PRINTED.match(line))]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = compile(source, _where(example), "exec", dont_inherit=True)
        exec(code, example.namespace)
    if expected:
        assert out.getvalue().splitlines() == expected, f"{_where(example)} printed otherwise"
    tests = FIXTURE_TEST.findall(source)
    if tests:
        _pytest_runs(example, source, tests)
    run.ran += 1


def _pytest_runs(example: Example, source: str, tests: list[str]) -> None:
    """Run the block's tests with pytest in a project of their own, the
    plugin loaded as installed, and check that each passed. The file holds
    the document's earlier test blocks first, so the block may use their
    names; their tests passed in their own runs and are not run again."""
    run = _run_of(example)
    run.test_blocks.append(source)
    project = run.directory / f"pytest_{example.line}"
    project.mkdir()
    (project / "test_block.py").write_text("\n\n".join(run.test_blocks))
    env = run.environment()
    env.pop("TALLYDB_ENDPOINT")  # the plugin's own throwaway server, as for the reader
    # Without the plugins this suite installs beside tallydb (xdist; and
    # hypothesis's, which imports all of hypothesis at the end of every run):
    # the reader's project has tallydb's plugin, not necessarily theirs.
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
         "-p", "no:hypothesispytest",
         "-rA", *(f"test_block.py::{test}" for test in dict.fromkeys(tests))],
        cwd=project, env=env, capture_output=True, text=True, timeout=300, check=False)
    passed = set(re.findall(r"^PASSED test_block\.py::(\w+)", done.stdout, re.M))
    assert done.returncode == 0 and set(tests) <= passed, (
        f"{_where(example)}: pytest ran its tests otherwise:\n{done.stdout[-3000:]}")


def _commands(source: str) -> Iterator[tuple[str, list[str]]]:
    """Each command of a shell block (continuation lines joined) with the
    ``# output`` lines right after it."""
    lines = source.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        command = line
        while command.rstrip().endswith("\\") and i < len(lines):
            command += "\n" + lines[i]
            i += 1
        output: list[str] = []
        while i < len(lines) and lines[i].startswith("# "):
            output.append(lines[i][2:])
            i += 1
        yield command, output


def shell_block(example: Example) -> None:
    run = _run_of(example)
    for command, output in _commands(run.local(str(example.parsed))):
        if SERVE.match(command):
            assert not output, f"{_where(example)}: a server prints its banner, not {output}"
            run.serve(shlex.split(command, comments=True)[2:])
            continue
        done = subprocess.run(
            ["bash", "-c", command], cwd=run.directory, env=run.environment(),
            capture_output=True, text=True, timeout=240, stdin=subprocess.DEVNULL,
        )
        shown = f"{_where(example)}: {command!r}\nstdout: {done.stdout}\nstderr: {done.stderr}"
        if output and output[0].startswith("tallydb: "):
            assert done.returncode != 0, f"expected to fail: {shown}"
            assert done.stderr.splitlines() == output, shown
            continue
        assert done.returncode == 0, shown
        if output:
            assert done.stdout.splitlines() == output, shown
    run.ran += 1


def toml_block(example: Example) -> None:
    from tallydb.server import credentials

    path = _run_of(example).directory / "keys.toml"
    path.write_text(str(example.parsed))
    assert dict(credentials.load(path)), f"{_where(example)} holds no key"
    _run_of(example).ran += 1


def json_block(example: Example) -> None:
    """A JSON block (a request, an answer, a file): it must be JSON."""
    try:
        json.loads(str(example.parsed))
    except ValueError as e:
        raise AssertionError(f"{_where(example)} is not JSON: {e}") from None
    _run_of(example).ran += 1


SYBIL = Sybil(
    parsers=[
        CodeBlockParser(language="python", evaluator=python_block),
        CodeBlockParser(language="sh", evaluator=shell_block),
        CodeBlockParser(language="bash", evaluator=shell_block),
        CodeBlockParser(language="toml", evaluator=toml_block),
        CodeBlockParser(language="json", evaluator=json_block),
        SkipParser(),
    ],
)


def _code_blocks(path: Path) -> int:
    """How many blocks of ``path`` are in a language that runs: fenced ones,
    and sybil's ``<!-- invisible-code-block: python`` (set-up a reader
    needs no copy of, run all the same)."""
    text = path.read_text()
    count = len(INVISIBLE.findall(text))
    inside = False
    for line in text.splitlines():
        match = FENCE.match(line)
        if match is None:
            continue
        if not inside and match.group(1) in CODE:
            count += 1
        inside = not inside
    return count


def _run_document(
    path: Path, directory: Path, record_property: Any, *, fresh_clone: bool = False
) -> None:
    """Every block of ``path``, in order, in ``directory`` (see the module);
    ``fresh_clone``: the run is the README's, followed in a fresh clone (the
    summary shows it apart, not as a second README)."""
    document = SYBIL.parse(path)
    with contextlib.ExitStack() as stack:
        run = Run(directory, stack)
        _checkout(directory)
        document.namespace["__docs_run__"] = run
        skipped: list[str] = []
        for example in document.examples():
            try:
                example.evaluate()
            except SkipTest as reason:
                skipped.append(f"{_where(example)}: {reason}")
        ran = run.ran
    record_property("docs_blocks", {"document": path.name, "ran": ran, "skipped": skipped,
                                    "fresh_clone": fresh_clone})
    assert ran + len(skipped) == _code_blocks(path), (
        f"{path.name}: {_code_blocks(path)} code blocks, {ran} ran and {len(skipped)} are "
        "marked: a block in a language that runs is in neither")


@pytest.mark.timeout(1200)  # a document runs dozens of commands, each a new process
@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_block_runs_as_written(
    path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, record_property: Any,
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TALLYDB_DATA", raising=False)
    _run_document(path, tmp_path, record_property)


@pytest.mark.timeout(1200)
def test_the_readme_top_to_bottom_on_a_fresh_clone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, record_property: Any,
) -> None:
    """A fresh clone, the README followed from its top, in the checkout: its
    set-up commands aside (marked: ``make serve`` is this run's own server,
    ``.venv`` this environment), every command prints what the README says,
    with the clone's own code."""
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout, or no git: nothing to clone")
    clone = tmp_path / "tallydb"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True, timeout=300)
    # The clone's code compiled once, as the reader's first command writes its
    # bytecode: where none is written (PYTHONDONTWRITEBYTECODE), each of the
    # walk-through's dozens of processes would compile what it imports again.
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(clone / "src")],
                   check=True, timeout=300, stdout=subprocess.DEVNULL)
    monkeypatch.chdir(clone)
    monkeypatch.delenv("TALLYDB_DATA", raising=False)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        [str(clone / "src"), *filter(None, [os.environ.get("PYTHONPATH")])]))
    _run_document(clone / "README.md", clone, record_property, fresh_clone=True)
    assert (clone / "videos-export").is_dir()  # made by the walk-through, in the checkout
