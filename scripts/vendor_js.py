"""Refresh the console's vendored JavaScript from the npm registry.

The page's libraries go under ``src/tallydb/console/static/vendor/``; the
browser tests' own (axe-core, which checks the page's accessibility) under
``tests/console/vendor/``, each folder with its ``VENDORED.json``.

For each library below: read its version's metadata from the registry, fetch
the tarball, check it against the registry's ``dist.integrity`` (SHA-512),
extract the listed module files and the licence, and write them under
``src/tallydb/console/static/vendor/`` as ``<name>-<version>.js`` (or a
``<name>-<version>/`` folder when the module imports siblings), the licence as
``LICENSES/<name>-<version>.txt`` (plus the licence of any package built
into the file). Relative imports without an extension (``from './fetch'``,
which a bundler resolves and a browser does not) get ``.js``; source-map
comments are dropped, the maps are not shipped. ``VENDORED.json`` records each version and
the sha256 of every file written. No Node needed.

    python scripts/vendor_js.py            # the pinned versions below
    python scripts/vendor_js.py --latest   # the registry's latest of each
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import io
import json
import re
import shutil
import sys
import tarfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path

REGISTRY = "https://registry.npmjs.org"
ROOT = Path(__file__).resolve().parent.parent
VENDOR = ROOT / "src/tallydb/console/static/vendor"
TEST_VENDOR = ROOT / "tests/console/vendor"


@dataclass(frozen=True)
class Library:
    package: str  # npm name
    name: str  # file stem under vendor/
    version: str
    files: tuple[str, ...]  # paths inside the package
    licence: str = "LICENSE"
    bundled: tuple[tuple[str, str], ...] = ()  # (package, version) built into the file
    licences: tuple[str, ...] = ()  # further licence files (of code bundled in it)
    folder: Path = VENDOR  # where it goes: the page's, or the tests'


LIBRARIES = (
    # preact, its hooks and htm in one ES module: JSX-like templates without a build.
    Library("htm", "htm-preact", "3.1.1", ("preact/standalone.module.js",),
            bundled=(("preact", "10.2.0"),)),
    # SigV4 signing for fetch with WebCrypto.
    Library("aws4fetch", "aws4fetch", "1.0.20", ("dist/aws4fetch.esm.mjs",)),
    # Server-sent events over fetch, so requests can carry a signature.
    Library(
        "@microsoft/fetch-event-source",
        "fetch-event-source",
        "2.0.1",
        ("lib/esm/index.js", "lib/esm/fetch.js", "lib/esm/parse.js"),
    ),
    # The counter chart and the operational view's charts: small, fast time series.
    Library("uplot", "uplot", "1.6.32", ("dist/uPlot.esm.js", "dist/uPlot.min.css")),
    # The browser tests' accessibility checks (not served to the page).
    Library("axe-core", "axe-core", "4.14.1", ("axe.min.js",),
            licences=("LICENSE-3RD-PARTY.txt",), folder=TEST_VENDOR),
)


def fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=60) as response:
        return bytes(response.read())


def metadata(package: str, version: str) -> dict[str, object]:
    encoded = package.replace("/", "%2F")
    return dict(json.loads(fetch(f"{REGISTRY}/{encoded}/{version}")))


def check_integrity(tarball: bytes, integrity: str) -> None:
    algorithm, _, expected = integrity.partition("-")
    if algorithm != "sha512":
        raise SystemExit(f"unexpected integrity algorithm {algorithm!r}")
    got = base64.b64encode(hashlib.sha512(tarball).digest()).decode()
    if got != expected:
        raise SystemExit(f"integrity mismatch: registry {expected}, tarball {got}")


RELATIVE_IMPORT = re.compile(r"""(from\s+['"])(\.{1,2}/[^'"]+?)(?<!\.js)(['"])""")
SOURCE_MAP = re.compile(rb"\n?//# sourceMappingURL=\S+\s*$")


def browser_ready(source: bytes) -> bytes:
    text = SOURCE_MAP.sub(b"\n", source).decode()
    return RELATIVE_IMPORT.sub(r"\1\2.js\3", text).encode()


def tarball_files(package: str, version: str, paths: tuple[str, ...]) -> dict[str, object]:
    """Fetch ``package@version``, check its integrity, return its version, dist, files."""
    meta = metadata(package, version)
    dist = meta["dist"]
    assert isinstance(dist, dict)
    tarball = fetch(str(dist["tarball"]))
    check_integrity(tarball, str(dist["integrity"]))
    files: dict[str, bytes] = {}
    with tarfile.open(fileobj=io.BytesIO(tarball), mode="r:gz") as archive:
        for path in paths:
            extracted = archive.extractfile(f"package/{path}")
            if extracted is None:
                raise SystemExit(f"{package}@{meta['version']}: no file {path}")
            files[path] = extracted.read()
    return {"version": str(meta["version"]), "dist": dist, "files": files}


def vendor(lib: Library, latest: bool) -> dict[str, object]:
    got = tarball_files(lib.package, "latest" if latest else lib.version,
                        (*lib.files, lib.licence, *lib.licences))
    version = str(got["version"])
    dist = got["dist"]
    assert isinstance(dist, dict)
    files = got["files"]
    assert isinstance(files, dict)
    sources = {path: browser_ready(files[path]) if path.endswith(".js") else files[path]
               for path in lib.files}
    licence = files[lib.licence]
    written: dict[str, bytes] = {}
    if len(sources) == 1:
        written[f"{lib.name}-{version}.js"] = next(iter(sources.values()))
    else:
        for path, body in sources.items():
            written[f"{lib.name}-{version}/{Path(path).name}"] = body
    written[f"LICENSES/{lib.name}-{version}.txt"] = licence
    for extra in lib.licences:
        written[f"LICENSES/{lib.name}-{version}-{Path(extra).stem}.txt"] = files[extra]
    for package, package_version in lib.bundled:
        bundled = tarball_files(package, package_version, ("LICENSE",))
        bundled_files = bundled["files"]
        assert isinstance(bundled_files, dict)
        written[f"LICENSES/{package}-{bundled['version']}.txt"] = bundled_files["LICENSE"]
    for relative, body in written.items():
        target = lib.folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(body)
    return {
        "package": lib.package,
        "version": version,
        "tarball": dist["tarball"],
        "integrity": dist["integrity"],
        "files": {rel: hashlib.sha256(body).hexdigest() for rel, body in written.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latest", action="store_true",
                        help="take each package's latest version, not the pinned one")
    args = parser.parse_args()
    for folder in {lib.folder for lib in LIBRARIES}:
        if folder.exists():
            shutil.rmtree(folder)
        records = [vendor(lib, args.latest) for lib in LIBRARIES if lib.folder == folder]
        (folder / "VENDORED.json").write_text(json.dumps(records, indent=2) + "\n")
        for record in records:
            print(f"{record['package']}@{record['version']} -> {folder}", file=sys.stderr)


if __name__ == "__main__":
    main()
