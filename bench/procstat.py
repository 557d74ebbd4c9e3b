"""CPU time and memory of a process and all its descendants, from /proc."""

from __future__ import annotations

import os
from pathlib import Path

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


def _stat_fields(pid: int, tid: int | None = None) -> list[str] | None:
    """Fields of /proc/PID/stat (or of its thread TID's) after the command
    name (field 3 onwards)."""
    try:
        raw = Path(f"/proc/{pid}/stat" if tid is None else
                   f"/proc/{pid}/task/{tid}/stat").read_text()
    except OSError:
        return None
    # the command name is in parentheses and may itself hold spaces or ')'
    return raw[raw.rindex(")") + 2 :].split()


def descendants(root: int) -> list[int]:
    """root and every live process below it."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        fields = _stat_fields(int(entry.name))
        if fields is None:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry.name))
    found = [root]
    i = 0
    while i < len(found):
        found.extend(children.get(found[i], []))
        i += 1
    return found


def cpu_seconds(root: int) -> float:
    """User + system CPU of root, its live descendants and its reaped children.

    /proc/PID/stat counts every thread of a process (java's JIT and GC
    threads, moto's request threads); cutime/cstime count children that were
    waited for. Resolution is one clock tick (usually 10 ms).
    """
    ticks = 0
    for i, pid in enumerate(descendants(root)):
        fields = _stat_fields(pid)
        if fields is None:
            continue
        # fields[0] is field 3 (state): utime is field 14, stime 15, cutime 16, cstime 17
        ticks += int(fields[11]) + int(fields[12])
        if i == 0:
            ticks += int(fields[13]) + int(fields[14])
    return ticks / CLOCK_TICKS


def own_cpu_seconds(pid: int) -> float:
    """User + system CPU of one process (every thread), not its children's."""
    fields = _stat_fields(pid)
    if fields is None:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def thread_cpu_seconds(pid: int) -> dict[int, float]:
    """User + system CPU of each live thread of one process, by thread id
    (the process's first thread has the process's id)."""
    found: dict[int, float] = {}
    try:
        tids = [int(name) for name in os.listdir(f"/proc/{pid}/task")]
    except OSError:
        return found
    for tid in tids:
        fields = _stat_fields(pid, tid)
        if fields is not None:
            found[tid] = (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
    return found


def rss_bytes(root: int) -> int:
    """Resident memory of root and its live descendants."""
    total = 0
    for pid in descendants(root):
        try:
            total += int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE_SIZE
        except (OSError, IndexError, ValueError):
            continue
    return total


def alive(pid: int) -> bool:
    fields = _stat_fields(pid)
    return fields is not None and fields[0] not in ("Z", "X")


def machine_busy_seconds() -> float:
    """CPU time spent by everything on the machine (all cores), from /proc/stat."""
    try:
        first = Path("/proc/stat").read_text().splitlines()[0].split()
    except (OSError, IndexError):
        return 0.0
    # cpu user nice system idle iowait irq softirq steal guest guest_nice
    values = [int(v) for v in first[1:9]]
    busy = sum(values) - values[3] - values[4]
    return busy / CLOCK_TICKS


def load_average() -> float:
    try:
        return float(Path("/proc/loadavg").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0.0
