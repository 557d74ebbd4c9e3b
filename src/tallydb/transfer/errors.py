"""What every part of an export or import shares: its error, its progress callback."""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["Progress", "TransferError", "no_progress"]

#: Called with the number of items done so far.
Progress = Callable[[int], None]


class TransferError(Exception):
    """An export or import that cannot go on: the message says why."""


def no_progress(_done: int) -> None:
    """The progress callback that shows nothing."""
