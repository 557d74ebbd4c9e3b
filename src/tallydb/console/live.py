"""The console's live view: the change feed as server-sent events.

One ``LiveHub`` per server listens to the engine's change feed while at
least one page does (and for ``LINGER`` seconds after the last leaves, so
the hot-keys window survives a reload). The feed's listener only appends to
a list, so the writer pays a list extend per commit; everything else runs
on the event loop every ``FRAME`` seconds:

- the changes since the last frame, coalesced per item (its latest image
  and how many commits it had), go to each page as one ``changes`` event
  whose ``id`` is the last change's sequence number;
- once a second, the hot-keys panel (``hotkeys.HotKeys``) as a ``hotkeys``
  event, the counters view (``counters.Counters``: the numeric attributes
  that moved most) as a ``counters`` event, and the operational view's
  seconds that ended (``metrics.Metrics``) as a ``metrics`` event (a new
  page gets the whole window first); every ``HEARTBEAT`` seconds a comment
  keeps proxies from closing an idle stream.

While it listens, the hub's ``Metrics`` is handed to whoever asked to be
told (``on_listening``: the server, which then records each request it
answers); once the last page has gone and ``LINGER`` passed, it is taken
back, and the server records nothing.

A page that does not read its stream is never waited for: while the
socket's write buffer holds more than ``MAX_BUFFERED`` bytes its frames are
dropped, and once it drains it gets a ``resync`` event (re-read what you
show); a stream that does not drain for the server's idle timeout is reset
(``server/protocol.py``). A reconnecting page's ``Last-Event-ID`` replays the frames it missed
from a small ring, or gets ``resync`` when they are gone. A stream lasts at
most ``LIFETIME`` seconds; the page reconnects (and resumes) by itself.

What a stream can make the server hold is bounded in bytes: an item image
whose JSON is over ``INLINE_IMAGE`` bytes is sent as a reference (the
change without ``new``, with ``"ref": true``; the page reads the item
with GetItem), a frame over ``MAX_FRAME`` bytes is sent as ``resync``
instead, the ring keeps at most ``RING_BYTES`` (and ``RING`` frames), and it
is dropped when the last page leaves.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, Protocol

import orjson

from tallydb.console.counters import Counters
from tallydb.console.metrics import Metrics
from tallydb.engine.feed import INSERT, MODIFY, REMOVE, Change, ChangeFeed
from tallydb.engine.hotkeys import HotKeys

FRAME = 0.1
HOTKEYS_EVERY = 1.0
HEARTBEAT = 15.0
LIFETIME = 30 * 60.0
LINGER = 120.0
MAX_BUFFERED = 256 * 1024
RING = 256  # frames kept for Last-Event-ID, at most
RING_BYTES = 2 << 20  # and at most this many bytes of them
INLINE_IMAGE = 4096  # an item image's JSON over this is sent as a reference
MAX_FRAME = 256 * 1024  # a changes event over this is sent as resync


class Sink(Protocol):
    """Where a stream's bytes go (an asyncio transport)."""

    def write(self, data: bytes) -> None: ...
    def get_write_buffer_size(self) -> int: ...
    def close(self) -> None: ...


def _event(absent_before: bool, new: object) -> str:
    """The eventName of an item's changes taken together."""
    if new is None:
        return REMOVE
    return INSERT if absent_before else MODIFY


def event(name: str, data: Any, seq: int | None = None) -> bytes:
    head = b"event: " + name.encode() + b"\n"
    if seq is not None:
        head += b"id: %d\n" % seq
    return head + b"data: " + orjson.dumps(data) + b"\n\n"


def changes_event(seq: int, entries: Sequence[bytes]) -> bytes:
    """A ``changes`` event of entries already in JSON (``entry``)."""
    return (b"event: changes\nid: %d\ndata: {\"seq\":%d,\"changes\":[%s]}\n\n"
            % (seq, seq, b",".join(entries)))


def entry(change: Change, absent_before: bool, count: int) -> bytes:
    """One item's changes of a frame, in JSON: its image inline, or a
    reference to it when the image is large."""
    new = change.new
    fields: dict[str, Any] = {"table": change.table, "keys": change.keys,
                              "event": _event(absent_before, new), "count": count}
    if new is not None:
        image = orjson.dumps(new)
        if len(image) > INLINE_IMAGE:
            fields["ref"] = True
            return orjson.dumps(fields)
        return orjson.dumps(fields)[:-1] + b',"new":' + image + b"}"
    fields["new"] = None
    return orjson.dumps(fields)


class _Frame(NamedTuple):
    """A ``changes`` event: the changes of seq ``first`` to ``last``,
    coalesced per item, each in JSON, by table; ``data`` as pages that watch
    every table get it (``resync`` when it is over ``MAX_FRAME``)."""

    first: int
    last: int
    by_table: dict[str, list[bytes]]
    data: bytes
    size: int  # bytes held: data and the entries


class LiveStream:
    """One page's event stream."""

    def __init__(self, hub: LiveHub, tables: frozenset[str] | None, last_seen: int | None
                 ) -> None:
        self.hub = hub
        self.tables = tables
        self.last_seen = last_seen
        self.sink: Sink | None = None
        self.lagging = False
        self.started = 0.0

    def start(self, sink: Sink) -> None:
        """The response head is written: stream from here on."""
        self.sink = sink
        self.started = time.monotonic()
        self.hub.attach(self)

    def stopped(self) -> None:
        """The connection closed."""
        self.hub.detach(self)
        self.sink = None

    def send(self, frame: bytes) -> None:
        """Write ``frame`` unless the page is behind (then drop it and
        remember to tell the page to resync once it catches up)."""
        sink = self.sink
        if sink is None:
            return
        if sink.get_write_buffer_size() > MAX_BUFFERED:
            self.lagging = True
            return
        if self.lagging:
            self.lagging = False
            sink.write(event("resync", {"seq": self.hub.feed.seq}))
        sink.write(frame)

    def send_changes(self, frame: _Frame) -> None:
        """Send ``frame``'s changes of the tables this page watches, if any."""
        tables = self.tables
        if tables is None:
            self.send(frame.data)
            return
        entries = [e for table in tables & frame.by_table.keys() for e in frame.by_table[table]]
        if entries:
            data = changes_event(frame.last, entries)
            self.send(data if len(data) <= MAX_FRAME
                      else event("resync", {"seq": frame.last}))

    def hotkeys_frame(self, top: list[dict[str, Any]]) -> bytes:
        """The hot-keys event, of the tables this page watches only."""
        tables = self.tables
        keys = top if tables is None else [entry for entry in top if entry["table"] in tables]
        return event("hotkeys", {"window": 60, "keys": keys})

    def counters_frame(self, top: list[dict[str, Any]]) -> bytes:
        """The counters event, of the tables this page watches only."""
        tables = self.tables
        shown = top if tables is None else [entry for entry in top if entry["table"] in tables]
        return event("counters", {"window": 60, "counters": shown})

    def metrics_frame(self, seconds: list[tuple[int, dict[str, Any]]], whole: bool) -> bytes:
        """The metrics event (``whole``: the window so far, else the seconds
        that just ended), of the tables this page watches only."""
        tables = self.tables
        shown = [{"t": second, "tables": by_table if tables is None else
                  {name: numbers for name, numbers in by_table.items() if name in tables}}
                 for second, by_table in seconds]
        return event("metrics", {"whole": whole, "seconds": shown})

    def close(self) -> None:
        if self.sink is not None:
            self.sink.close()


class LiveHub:
    """The change feed's listener for every open page (see the module doc)."""

    def __init__(self, feed: ChangeFeed, loop: asyncio.AbstractEventLoop,
                 hotkeys: HotKeys | None = None,
                 on_listening: Callable[[Metrics | None], None] | None = None) -> None:
        self.feed = feed
        self.loop = loop
        self.hotkeys = hotkeys if hotkeys is not None else HotKeys()
        self.counters = Counters()
        self.metrics: Metrics | None = None
        self._on_listening = on_listening
        self.streams: set[LiveStream] = set()
        #: the changes since the last frame, per item: [whether the item
        #: was absent before the first, the last change, how many, the
        #: image before the first]
        self._latest: dict[tuple[str, bytes, bytes], list[Any]] = {}
        #: the sequence numbers of the first and last change in _latest
        self._frame_first = self._frame_last = 0
        self._lock = threading.Lock()  # the writer's thread fills _latest, the loop empties it
        self._throttles: list[tuple[str, bytes]] = []
        self._ring: deque[_Frame] = deque()
        self._ring_size = 0  # bytes the ring's frames hold
        #: every change after this sequence number is in the ring or pending
        self._kept_from = 0
        self._unsubscribe: Callable[[], None] | None = None
        self._task: asyncio.Task[None] | None = None
        self._idle_since: float | None = None

    # -- on the writer's thread ----------------------------------------------

    def _listen(self, first: int, changes: Sequence[Change]) -> None:
        """Coalesce at once: an item's earlier images are dropped as its
        next change arrives, so nothing piles up for the collector."""
        with self._lock:
            latest = self._latest
            if not latest:
                self._frame_first = first
            self._frame_last = first + len(changes) - 1
            for change in changes:
                key = (change.record.name, change.hk, change.rk)
                entry = latest.get(key)
                if entry is None:
                    latest[key] = [change.old is None, change, change.writes, change.old]
                else:
                    entry[1] = change
                    entry[2] += change.writes

    def throttled(self, table: str, hk: bytes) -> None:
        """``Limits.on_throttle``: a request on this partition was refused."""
        if self._unsubscribe is not None:
            self._throttles.append((table, hk))

    # -- on the loop -----------------------------------------------------------

    @property
    def listening(self) -> bool:
        return self._unsubscribe is not None

    def open(self, tables: frozenset[str] | None, last_seen: int | None) -> LiveStream:
        """A stream for a page that asked for ``tables`` (None: all), having
        seen changes up to ``last_seen`` (its Last-Event-ID)."""
        if self._unsubscribe is None:
            self._latest = {}
            self._unsubscribe = self.feed.subscribe(self._listen)
            self._drop_ring(self.feed.seq)
            self.counters = Counters()
            self.metrics = Metrics()
            if self._on_listening is not None:
                self._on_listening(self.metrics)
        return LiveStream(self, tables, last_seen)

    def attach(self, stream: LiveStream) -> None:
        self.streams.add(stream)
        self._idle_since = None
        stream.send(event("hello", {"seq": self.feed.seq}))
        if stream.last_seen is not None:
            self._replay(stream, stream.last_seen)
        stream.send(stream.hotkeys_frame(self.hotkeys.top()))
        stream.send(stream.counters_frame(self.counters.top()))
        if self.metrics is not None:
            stream.send(stream.metrics_frame(self.metrics.window(), whole=True))
        if self._task is None:
            self._task = self.loop.create_task(self._run())

    def detach(self, stream: LiveStream) -> None:
        self.streams.discard(stream)
        if not self.streams:
            self._idle_since = time.monotonic()
            self._drop_ring(self._ring[-1].last if self._ring else self._kept_from)

    def _drop_ring(self, seq: int) -> None:
        """Forget the ring: pages resuming from before ``seq`` get ``resync``."""
        self._ring.clear()
        self._ring_size = 0
        self._kept_from = seq

    def _keep(self, frame: _Frame) -> None:
        """Put ``frame`` in the ring, dropping the oldest past its bounds."""
        ring = self._ring
        ring.append(frame)
        self._ring_size += frame.size
        while len(ring) > RING or self._ring_size > RING_BYTES:
            oldest = ring.popleft()
            self._ring_size -= oldest.size
            self._kept_from = oldest.last

    def _replay(self, stream: LiveStream, last_seen: int) -> None:
        """Send the frames after ``last_seen``, or ``resync`` when some of
        the changes after it are no longer in the ring."""
        if last_seen < self._kept_from:
            stream.send(event("resync", {"seq": self.feed.seq}))
            return
        for frame in self._ring:
            if frame.last > last_seen:
                stream.send_changes(frame)

    async def _run(self) -> None:
        last_hotkeys = last_beat = time.monotonic()
        try:
            while True:
                await asyncio.sleep(FRAME)
                self._flush()
                now = time.monotonic()
                if now - last_hotkeys >= HOTKEYS_EVERY:
                    last_hotkeys = now
                    if self.streams:
                        self._each_second()
                if now - last_beat >= HEARTBEAT:
                    last_beat = now
                    for stream in list(self.streams):
                        stream.send(b": heartbeat\n\n")
                for stream in list(self.streams):
                    if now - stream.started > LIFETIME:
                        stream.close()
                if self._idle_since is not None and now - self._idle_since > LINGER:
                    self._stop_listening()
                    return
        finally:
            self._task = None

    def _each_second(self) -> None:
        """The hot keys, the counters and the seconds of metrics that ended."""
        top = self.hotkeys.top()
        counters = self.counters.top()
        seconds = self.metrics.closed() if self.metrics is not None else []
        everything = [event("hotkeys", {"window": 60, "keys": top}),
                      event("counters", {"window": 60, "counters": counters})]
        if seconds:
            everything.append(event("metrics", {"whole": False, "seconds": [
                {"t": second, "tables": by_table} for second, by_table in seconds]}))
        for stream in list(self.streams):
            if stream.tables is None:
                for frame in everything:
                    stream.send(frame)
                continue
            stream.send(stream.hotkeys_frame(top))
            stream.send(stream.counters_frame(counters))
            if seconds:
                stream.send(stream.metrics_frame(seconds, whole=False))

    def _stop_listening(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
            self.metrics = None
            if self._on_listening is not None:
                self._on_listening(None)
        with self._lock:
            self._latest = {}

    def _flush(self) -> None:
        """Send the changes since the last frame, coalesced per item."""
        throttles, self._throttles = self._throttles, []
        for table, hk in throttles:
            self.hotkeys.throttled(table, hk)
        with self._lock:
            latest, self._latest = self._latest, {}
            first, seq = self._frame_first, self._frame_last
        if not latest:
            return
        entries = list(latest.values())
        self.hotkeys.record((change, count) for _, change, count, _ in entries)
        self.counters.record((before, change, count) for _, change, count, before in entries)
        if not self.streams:  # (hot keys only, while the last page's may come back)
            self._kept_from = seq
            return
        by_table: dict[str, list[bytes]] = {}
        size = 0
        for absent, change, count, _ in entries:
            encoded = entry(change, absent, count)
            size += len(encoded)
            by_table.setdefault(change.table, []).append(encoded)
        data = changes_event(seq, [e for table in by_table.values() for e in table])
        if len(data) > MAX_FRAME:
            data = event("resync", {"seq": seq})
        frame = _Frame(first, seq, by_table, data, size + len(data))
        self._keep(frame)
        for stream in list(self.streams):
            stream.send_changes(frame)

    def close(self) -> None:
        for stream in list(self.streams):
            stream.close()
        self._stop_listening()
        if self._task is not None:
            self._task.cancel()
            self._task = None
