"""A loopback HTTP proxy that loses answers: it forwards each request to the
real endpoint and relays the answer, except that for the requests it is told
to drop it waits for the endpoint's answer (so the write is applied) and then
closes the client's connection without sending it: a network blip or a
crash between the store's commit and the reply."""

from __future__ import annotations

import socket
import threading
from urllib.parse import urlsplit


def _read_message(sock: socket.socket, buffer: bytearray) -> bytes | None:
    """One HTTP/1.1 message with a Content-Length body; None at EOF."""
    while b"\r\n\r\n" not in buffer:
        data = sock.recv(65536)
        if not data:
            return None
        buffer += data
    head_end = buffer.index(b"\r\n\r\n") + 4
    length = 0
    for line in bytes(buffer[:head_end]).split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(buffer) < head_end + length:
        data = sock.recv(65536)
        if not data:
            return None
        buffer += data
    message = bytes(buffer[: head_end + length])
    del buffer[: head_end + length]
    return message


class DroppingProxy:
    """``DroppingProxy(upstream_url, drop=b"UpdateItem", times=1)``: the
    first ``times`` requests whose bytes contain ``drop`` lose their answer
    (``times=None``: all of them). ``seen`` counts those requests."""

    def __init__(self, upstream: str, drop: bytes, times: int | None = 1) -> None:
        parts = urlsplit(upstream)
        self.upstream = (parts.hostname or "127.0.0.1", parts.port or 80)
        self.drop = drop
        self.left = times
        self.seen = 0
        self._lock = threading.Lock()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._relay, args=(client,), daemon=True).start()

    def _should_drop(self, request: bytes) -> bool:
        if self.drop not in request:
            return False
        with self._lock:
            self.seen += 1
            if self.left is None:
                return True
            if self.left > 0:
                self.left -= 1
                return True
            return False

    def _relay(self, client: socket.socket) -> None:
        upstream = socket.create_connection(self.upstream, timeout=30)
        from_client, from_upstream = bytearray(), bytearray()
        try:
            while True:
                request = _read_message(client, from_client)
                if request is None:
                    return
                dropping = self._should_drop(request)
                upstream.sendall(request)
                answer = _read_message(upstream, from_upstream)
                if answer is None or dropping:
                    return
                client.sendall(answer)
        except OSError:
            return
        finally:
            client.close()
            upstream.close()

    def close(self) -> None:
        self._closed = True
        self._listener.close()
