"""A compiled module's constants are ``Final`` (setup.py's rule).

mypyc reads a module-level name that is not ``Final`` by looking it up in
the module's dict at every use; a ``Final`` one is a C static. This test
reads the source of every module in setup.py's ``COMPILED`` list and names
each module-level value bound once, never rebound (``global``), that is
neither ``Final`` nor a type alias nor one of ``REPLACED`` below.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Values replaced from outside their module, so they must stay looked up by
#: name: tests shrink the store's overlay and chunks to reach its freezes
#: and flushes with a few rows, and the checkpointer's thresholds.
REPLACED = {
    "OVERLAY_ROWS", "OVERLAY_ROWS_CACHED", "FLUSH_CHUNK", "MERGED_ROWS", "FLUSH_RETRY",
    "CLEAN_BYTES",
}
_TYPE_HEADS = {"dict", "list", "tuple", "set", "frozenset", "Mapping", "Callable", "Sequence",
               "type", "Iterable", "Iterator"}


def compiled_modules() -> list[Path]:
    setup = (ROOT / "setup.py").read_text()
    listing = setup.split("COMPILED = [", 1)[1].split("]", 1)[0]
    return [ROOT / name for name in re.findall(r'"(src/tallydb/[^"]+\.py)"', listing)]


def _is_type_alias(value: ast.expr) -> bool:
    if isinstance(value, ast.Subscript):
        return isinstance(value.value, ast.Name) and value.value.id in _TYPE_HEADS
    return isinstance(value, ast.BinOp) and isinstance(value.op, ast.BitOr)


def not_final(source: str) -> list[str]:
    """The module-level names of ``source`` the rule says should be Final."""
    tree = ast.parse(source)
    rebound = {name for node in ast.walk(tree) if isinstance(node, ast.Global)
               for name in node.names}
    bindings: dict[str, int] = {}
    candidates: list[tuple[str, ast.stmt]] = []
    for node in tree.body:
        for target in (node.targets if isinstance(node, ast.Assign)
                       else [node.target] if isinstance(node, ast.AnnAssign) else []):
            for name in ast.walk(target):
                if isinstance(name, ast.Name):
                    bindings[name.id] = bindings.get(name.id, 0) + 1
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(
                node.targets[0], ast.Name):
            candidates.append((node.targets[0].id, node))
        elif isinstance(node, ast.AnnAssign) and node.value is not None and isinstance(
                node.target, ast.Name):
            candidates.append((node.target.id, node))
        elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Tuple):
            candidates.extend((name.id, node) for name in node.targets[0].elts
                              if isinstance(name, ast.Name))
    missing = []
    for name, node in candidates:
        if bindings.get(name) != 1 or name in rebound or name in REPLACED or name == "__all__":
            continue
        if isinstance(node, ast.AnnAssign):
            if "Final" in ast.unparse(node.annotation):
                continue
        elif isinstance(node, ast.Assign) and _is_type_alias(node.value):
            continue
        missing.append(name)
    return missing


def test_the_rule_names_what_it_should() -> None:
    source = (
        "from typing import Final\n"
        "A: Final = 1\nB = 2\nC: int = 3\nD, E = 4, 5\nItem = dict[str, int]\n"
        "V = str | None\nOVERLAY_ROWS = 512\n_n = 0\ndef f():\n    global _n\n    _n += 1\n"
    )
    assert not_final(source) == ["B", "C", "D", "E"]


def test_every_compiled_modules_constants_are_final() -> None:
    modules = compiled_modules()
    assert len(modules) > 30  # (the list was found)
    missing = {str(path.relative_to(ROOT)): names for path in modules
               if (names := not_final(path.read_text()))}
    assert missing == {}
