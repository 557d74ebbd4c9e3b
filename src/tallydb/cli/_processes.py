"""Which process holds something (Linux's /proc): a data directory's lock,
a listening port; for the one line that says it is taken, and by whom."""

from __future__ import annotations

from pathlib import Path

__all__ = ["lock_holder", "port_holder", "process"]

PROC = Path("/proc")
#: /proc/net/tcp's state of a listening socket.
LISTEN = "0A"


def process(pid: str) -> str:
    """``"process 1234 (tallydb serve --port 8000)"``, or ``"process 1234"``
    when its command line cannot be read."""
    try:
        raw = (PROC / pid / "cmdline").read_bytes()
    except OSError:
        return f"process {pid}"
    words = [w.decode(errors="replace") for w in raw.split(b"\0") if w]
    if words and Path(words[0]).name.startswith("python"):
        words = words[1:]
    if words[:2] == ["-m", "tallydb"]:
        words = ["tallydb", *words[2:]]
    elif words:
        words[0] = Path(words[0]).name
    return f"process {pid} ({' '.join(words)})" if words else f"process {pid}"


def lock_holder(lock_file: Path) -> str | None:
    """Which process holds the flock on ``lock_file``, or None if unknown."""
    try:
        inode = lock_file.stat().st_ino
        locks = (PROC / "locks").read_text()
    except OSError:
        return None
    for line in locks.splitlines():
        fields = line.split()
        # "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"
        if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5].endswith(f":{inode}"):
            return process(fields[4])
    return None


def _listening_inodes(port: int) -> set[str]:
    inodes: set[str] = set()
    for table in ("tcp", "tcp6"):
        try:
            lines = (PROC / "net" / table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            # "0: 0100007F:1F40 00000000:0000 0A ... uid timeout inode"
            fields = line.split()
            if (len(fields) >= 10 and fields[3] == LISTEN
                    and int(fields[1].rsplit(":", 1)[1], 16) == port):
                inodes.add(fields[9])
    return inodes


def port_holder(port: int) -> str | None:
    """Which process listens on TCP ``port``, or None if it cannot be seen
    (another user's process, or no /proc)."""
    inodes = _listening_inodes(port)
    if not inodes:
        return None
    wanted = {f"socket:[{inode}]" for inode in inodes}
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            for fd in (entry / "fd").iterdir():
                if fd.readlink().as_posix() in wanted:
                    return process(entry.name)
        except OSError:
            continue
    return None
