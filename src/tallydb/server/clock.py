"""The server's coarse clock."""

from __future__ import annotations


class CoarseClock:
    """The loop's time, moved once a tick by the watchdog (``limits``): what
    a connection times each phase (idle, head, body) from. Compiled, and
    held by each connection, so a request reads a field of it rather than
    an attribute of the server (a class left uncompiled) by name."""

    def __init__(self, now: float) -> None:
        self.now = now
