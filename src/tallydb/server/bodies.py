"""The bytes of request bodies still arriving, held within one server-wide budget.

A request's body is reserved against the budget once its head is complete
(its whole ``Content-Length``; a chunked body as each chunk arrives) and
released when the request is complete or abandoned, so the bodies every
connection holds together never pass ``--max-body-memory``; past it a
request is answered 503 before its body is read.

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

#: Body bytes released before the heap is trimmed again.
TRIM_AFTER = 16 << 20


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


_TRIM = _malloc_trim()


class BodyBudget:
    """How many body bytes the server holds, within ``limit``."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.held = 0
        self._freed = 0  # released since the heap was last trimmed

    def reserve(self, size: int) -> bool:
        """Hold ``size`` more bytes, unless that would pass the limit."""
        held = self.held + size
        if held > self.limit:
            return False
        self.held = held
        return True

    def release(self, size: int) -> None:
        self.held -= size
        self._freed += size

    def trim(self) -> None:
        """Return free memory to the OS once many body bytes have been released."""
        if self._freed >= TRIM_AFTER:
            self._freed = 0
            trim_heap()


def trim_heap() -> None:
    """Hand the allocator's free pages back to the OS (where the C library can)."""
    if _TRIM is not None:
        _TRIM()
