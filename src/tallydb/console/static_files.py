"""The console's files, read from the package once, at start.

Each file is kept with its bytes, its content type and an ETag (the first
16 hex digits of its SHA-256), so a request costs a dict lookup: the page
revalidates (``Cache-Control: no-cache``) and gets 304 while a file is
unchanged. Only files inside the package's ``static`` folder can be named:
the table is built by walking that folder, so ``..`` or a directory is
simply not in it.
"""

from __future__ import annotations

import hashlib
import mimetypes
from dataclasses import dataclass
from importlib import resources
from importlib.abc import Traversable

#: Types the browser must get exactly (ES modules refuse anything but a
#: JavaScript type); the rest come from ``mimetypes``.
_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".txt": "text/plain; charset=utf-8",
    ".map": "application/json",
}


@dataclass(frozen=True)
class StaticFile:
    body: bytes
    content_type: bytes
    etag: bytes


def _content_type(name: str) -> bytes:
    suffix = name[name.rfind("."):].lower() if "." in name else ""
    known = _TYPES.get(suffix) or mimetypes.guess_type(name)[0] or "application/octet-stream"
    return known.encode()


def _walk(folder: Traversable, prefix: str) -> dict[str, StaticFile]:
    files: dict[str, StaticFile] = {}
    for entry in folder.iterdir():
        name = prefix + entry.name
        if entry.is_dir():
            files.update(_walk(entry, name + "/"))
        elif entry.is_file() and not entry.name.startswith("."):
            body = entry.read_bytes()
            etag = b'"' + hashlib.sha256(body).hexdigest()[:16].encode() + b'"'
            files[name] = StaticFile(body, _content_type(entry.name), etag)
    return files


def load_static() -> dict[str, StaticFile]:
    """Every file of the console's static folder, by its path in it
    (``index.html``, ``js/api.js``)."""
    folder = resources.files("tallydb.console") / "static"
    if not folder.is_dir():
        return {}
    return _walk(folder, "")
