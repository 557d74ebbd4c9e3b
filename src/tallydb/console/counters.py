"""The counters view: the numeric attributes that changed most over the
last minute, with their rates, in bounded memory.

Fed with the live hub's coalesced changes (each item's first old image and
latest new image per frame, so a frame's increments to one counter are one
difference), while a console page listens. Within the current second each
(table, item, attribute) that changed is summed in a dict of at most
``SECOND_KEYS`` entries (a new one past that waits for the next second);
at each second's end the ``TOP_PER_SECOND`` that moved most enter the
tracked set, each with a ring of ``WINDOW`` per-second amounts, and the set
keeps the ``TRACKED`` that moved most in the window. Rates are floats (a
view of speed); the values shown are the exact numbers last written.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable, Iterable
from typing import Any

from tallydb.engine.feed import Change

WINDOW = 60
SECOND_KEYS = 4096
TOP_PER_SECOND = 32
TRACKED = 64
SHOWN = 20

Item = dict[str, Any]
#: A counter's identity: table, item key (as storage encodes it), attribute.
CounterId = tuple[str, bytes, bytes, str]


class _Moved:
    """One counter in the current second: how far it moved, in how many commits."""

    __slots__ = ("amount", "change", "commits", "net")

    def __init__(self, change: Change) -> None:
        self.change = change  # the latest, for the item's keys and value
        self.amount = 0.0  # the sum of the absolute differences
        self.net = 0.0
        self.commits = 0


class _Tracked:
    __slots__ = ("amounts", "commits", "keys", "net", "value")

    def __init__(self, keys: Item) -> None:
        self.keys = keys
        self.amounts = [0.0] * WINDOW
        self.net = [0.0] * WINDOW
        self.commits = [0] * WINDOW
        self.value = ""


def _number(value: Any) -> float | None:
    if type(value) is dict and "N" in value:
        try:
            return float(value["N"])
        except (TypeError, ValueError):
            return None
    return None


class Counters:
    """``record`` the coalesced changes of a frame; ``top()`` gives the view."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self._second = int(clock())
        self._current: dict[CounterId, _Moved] = {}
        self._tracked: dict[CounterId, _Tracked] = {}

    def record(self, frame: Iterable[tuple[Item | None, Change, int]]) -> None:
        """Each item's image before the frame, its latest change and how
        many commits it had in the frame."""
        now = int(self.clock())
        if now != self._second:
            self._roll(now)
        current = self._current
        for before, change, commits in frame:
            after = change.new
            if after is None:
                continue
            for name, value in after.items():
                new = _number(value)
                if new is None:
                    continue
                old = _number(before.get(name)) if before is not None else None
                difference = new - (old if old is not None else 0.0)
                if not difference:
                    continue
                key = (change.table, change.hk, change.rk, name)
                moved = current.get(key)
                if moved is None:
                    if len(current) >= SECOND_KEYS:
                        continue
                    moved = current[key] = _Moved(change)
                moved.change = change
                moved.amount += abs(difference)
                moved.net += difference
                moved.commits += commits

    def _roll(self, now: int) -> None:
        second = self._second
        slot = second % WINDOW
        tracked = self._tracked
        for key, moved in heapq.nlargest(TOP_PER_SECOND, self._current.items(),
                                         key=lambda kv: kv[1].amount):
            entry = tracked.get(key)
            if entry is None:
                entry = tracked[key] = _Tracked(moved.change.keys)
            entry.amounts[slot] += moved.amount
            entry.net[slot] += moved.net
            entry.commits[slot] += moved.commits
            assert moved.change.new is not None
            entry.value = moved.change.new[key[3]]["N"]
        for passed in range(second + 1, min(now, second + WINDOW) + 1):
            cleared = passed % WINDOW
            for entry in tracked.values():
                entry.amounts[cleared] = entry.net[cleared] = 0.0
                entry.commits[cleared] = 0
        keep = [(k, e) for k, e in tracked.items() if any(e.commits)]
        if len(keep) > TRACKED:
            keep = heapq.nlargest(TRACKED, keep, key=lambda kv: sum(kv[1].amounts))
        self._tracked = dict(keep)
        self._current = {}
        self._second = now

    def top(self, limit: int = SHOWN) -> list[dict[str, Any]]:
        """The counters that moved most in the last ``WINDOW`` seconds (the
        current one not yet counted), most first: table, keys, attribute,
        value (the last written), rate (its change a second, net), moved
        (the sum of its changes' sizes) and commits."""
        now = int(self.clock())
        if now != self._second:
            self._roll(now)
        ranked = heapq.nlargest(limit, self._tracked.items(), key=lambda kv: sum(kv[1].amounts))
        return [{
            "table": key[0], "keys": entry.keys, "attribute": key[3], "value": entry.value,
            "rate": round(sum(entry.net) / WINDOW, 3), "moved": round(sum(entry.amounts), 3),
            "commits": sum(entry.commits),
        } for key, entry in ranked if sum(entry.commits)]
