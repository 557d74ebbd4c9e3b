"""Who may drive a server that asks for no signature: not any web page.

Without credentials, anything that reaches the port may read and write, so
browsers are held to the server's own origin (and those allowed with
``--cors-origin``): a page elsewhere gets 403 and changes nothing. A page
on a name that its owner points at 127.0.0.1 (DNS rebinding) is the
server's own origin to the browser, so the ``Host`` a browser's request was
sent to must be this machine's: an IP address, ``localhost``, the name given
to ``--host``, or a host of an allowed origin. A browser's request is one
with ``Origin`` or ``Sec-Fetch-Site`` (every current browser sends one or
the other); other clients (SDKs, curl, a container reached by its service
name) may use any name. With credentials, every request is signed and CORS
stays open, as DynamoDB's is.

``cross_origin_refusal`` is the one rule; the data plane and the console's
own endpoints both call it.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

#: Sec-Fetch-Site values that say a page of another origin sent the request.
_FOREIGN_SITES = frozenset({"cross-site", "same-site"})
WILDCARDS = frozenset({"0.0.0.0", "::", ""})


def normal_origin(origin: str) -> str:
    """``scheme://host[:port]`` lower-cased, as browsers send ``Origin``;
    ValueError for anything else."""
    parts = urlsplit(origin.strip().lower())
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/"):
        raise ValueError(f"an origin looks like http://host:port, not {origin!r}")
    return f"{parts.scheme}://{parts.netloc}"


def _host_name(host: str) -> str:
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


@dataclass(frozen=True)
class OriginPolicy:
    """What ``cross_origin_refusal`` lets through."""

    open: bool = False  # credentials are configured: every request is signed
    origins: frozenset[str] = frozenset()  # normal_origin() of each --cors-origin
    hosts: frozenset[str] = field(default_factory=frozenset)  # names besides localhost, IPs

    @classmethod
    def build(cls, open: bool, origins: Iterable[str], listen_host: str) -> OriginPolicy:
        allowed = frozenset(normal_origin(o) for o in origins)
        hosts = {urlsplit(o).hostname or "" for o in allowed}
        if listen_host in WILDCARDS:
            hosts |= {socket.gethostname().lower(), socket.getfqdn().lower()}
        else:
            hosts.add(_host_name(listen_host))
        return cls(open, allowed, frozenset(hosts - {""}))

    def allows_host(self, host: str) -> bool:
        name = _host_name(host)
        if name == "localhost" or name.endswith(".localhost") or name in self.hosts:
            return True
        try:
            ipaddress.ip_address(name)
        except ValueError:
            return False
        return True

    def allows_origin(self, origin: str, host: str | None) -> bool:
        origin = origin.strip().lower()
        if origin in self.origins:
            return True
        return host is not None and origin in (f"http://{host.lower()}", f"https://{host.lower()}")


def cross_origin_refusal(
    policy: OriginPolicy, origin: str | None, fetch_site: str | None, host: str | None
) -> str | None:
    """Why a request must be refused (answer 403, do nothing), or None.

    ``origin``, ``fetch_site`` and ``host`` are the request's ``Origin``,
    ``Sec-Fetch-Site`` and ``Host`` headers (None when absent)."""
    if policy.open or (origin is None and fetch_site is None):
        return None
    if host is not None and not policy.allows_host(host):
        return (
            f"Host '{host}' is not a name of this server (a guard against DNS rebinding); "
            "use localhost or an IP address, or start the server with --host NAME"
        )
    if origin is not None:
        if policy.allows_origin(origin, host):
            return None
        return (
            f"Cross-origin request from '{origin}' refused: this server has no credentials; "
            "allow the page with --cors-origin ORIGIN or start the server with --credentials"
        )
    if fetch_site is not None and fetch_site.strip().lower() in _FOREIGN_SITES:
        return (
            f"Cross-site request refused (Sec-Fetch-Site: {fetch_site}): this server has no "
            "credentials; allow the page with --cors-origin ORIGIN"
        )
    return None
