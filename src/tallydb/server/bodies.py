"""The bytes of request bodies still arriving, held within one server-wide budget.

A request's body is reserved against the budget once its head is complete
(its whole ``Content-Length``; a chunked body as each chunk arrives) and
released when the request is complete or abandoned, so the bodies every
connection holds together never pass ``--max-body-memory``; past it a
request is answered 503 before its body is read. Large bodies (over
``SMALL`` bytes) may fill only ``LARGE_SHARE`` of the budget (or one
request of the largest size, if that is more): what is left
is for small ones, so clients stalling large bodies cannot turn every
other client's small request away.

Freed body bytes go back to the allocator, which does not hand them back to
the OS by itself (a heap of many 4 KB chunks stays mapped); once enough have
come and gone the watchdog's tick asks glibc to return the free pages
(``malloc_trim``), so the memory a burst of large bodies took is released
when they end, not kept until the process exits.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable
from typing import Final

#: Body bytes released before the heap is trimmed again.
TRIM_AFTER: Final = 16 << 20
SMALL: Final = 64 * 1024  # a body of at most this many bytes is small
LARGE_SHARE: Final = 7 / 8  # of the budget, what large bodies may hold together


def _malloc_trim() -> Callable[[], None] | None:
    """glibc's ``malloc_trim(0)``, or None where the C library has none (musl, macOS)."""
    name = ctypes.util.find_library("c")
    try:
        trim = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError, TypeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return lambda: trim(0)


_TRIM: Final = _malloc_trim()


class BodyBudget:
    """How many body bytes the server holds, within ``limit``."""

    def __init__(self, limit: int, largest: int = 0) -> None:
        self.limit = limit
        #: (but never less than one request of the ``largest`` allowed)
        self.large_limit = max(int(limit * LARGE_SHARE), min(limit, largest))
        self.held = 0
        #: released since the heap was last trimmed (``release``; the
        #: connection's everyday small body does its steps inline)
        self.freed = 0

    def reserve(self, size: int, body: int = 0) -> bool:
        """Hold ``size`` more bytes of a body of ``body`` bytes (so far;
        ``size`` if not given), unless that would pass the limit: for a large
        body, its share of the limit."""
        held = self.held + size
        if held > (self.limit if max(size, body) <= SMALL else self.large_limit):
            return False
        self.held = held
        return True

    def release(self, size: int) -> None:
        self.held -= size
        self.freed += size

    def trim(self) -> None:
        """Return free memory to the OS once many body bytes have been released."""
        if self.freed >= TRIM_AFTER:
            self.freed = 0
            trim_heap()


def trim_heap() -> None:
    """Hand the allocator's free pages back to the OS (where the C library can)."""
    if _TRIM is not None:
        _TRIM()
