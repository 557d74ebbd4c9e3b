"""Who may drive a server that asks for no signature: not any web page.

Without credentials, anything that reaches the port may read and write, so
browsers are held to the server's own origin (and those allowed with
``--cors-origin``): a page elsewhere gets 403 and changes nothing. A page
on a name that its owner points at 127.0.0.1 (DNS rebinding) is the
server's own origin to the browser, so the ``Host`` a request was sent to
must be this machine's: an IP address, ``localhost``, the name given to
``--host``, or a host of an allowed origin. On a server listening on
loopback this holds for every request (``HostGuard``: a set lookup for the
names clients use); on one listening on every interface (``--insecure-no-auth``)
only for a browser's request (one with ``Origin`` or ``Sec-Fetch-Site``),
so that a container may reach it by its service name. With credentials,
every request is signed and CORS stays open, as DynamoDB's is; the
console's own paths still refuse a page of another site (``cross_site_refusal``).

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
    #: Check Host on every request, not only a browser's (no credentials and
    #: listening on loopback only: no other machine can be a client).
    every_host: bool = True

    @classmethod
    def build(cls, open: bool, origins: Iterable[str], listen_host: str) -> OriginPolicy:
        allowed = frozenset(normal_origin(o) for o in origins)
        hosts = {urlsplit(o).hostname or "" for o in allowed}
        if listen_host in WILDCARDS:
            hosts |= {socket.gethostname().lower(), socket.getfqdn().lower()}
        else:
            hosts.add(_host_name(listen_host))
        return cls(open, allowed, frozenset(hosts - {""}),
                   every_host=not open and is_loopback(listen_host))

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


def is_loopback(host: str) -> bool:
    """Whether a listening address (or name) is this machine's loopback."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def host_refusal(host: str) -> str:
    return (
        f"Host '{host}' is not a name of this server (a guard against DNS rebinding); "
        "use localhost or an IP address, or start the server with --host NAME"
    )


class HostGuard:
    """The Host check of every request to a server on loopback without
    credentials: a set lookup for a Host value seen allowed before (clients
    send the same one every time), the policy's rule for a new one."""

    #: Host values remembered (each allowed one until the set is full).
    LIMIT = 256

    def __init__(self, policy: OriginPolicy) -> None:
        self.policy = policy
        self.allowed: set[bytes] = set()

    def refusal(self, host: bytes | None) -> str | None:
        """Why a request sent to ``host`` must be refused, or None (no Host:
        not a browser's request, which always names one)."""
        if host is None or host in self.allowed:
            return None
        text = host.decode("latin-1")
        if not self.policy.allows_host(text):
            return host_refusal(text)
        if len(self.allowed) < self.LIMIT:
            self.allowed.add(host)
        return None


def cross_origin_refusal(
    policy: OriginPolicy, origin: str | None, fetch_site: str | None, host: str | None
) -> str | None:
    """Why a request must be refused (answer 403, do nothing), or None.

    ``origin``, ``fetch_site`` and ``host`` are the request's ``Origin``,
    ``Sec-Fetch-Site`` and ``Host`` headers (None when absent)."""
    if policy.open or (origin is None and fetch_site is None):
        return None
    if host is not None and not policy.allows_host(host):
        return host_refusal(host)
    return cross_site_refusal(policy, origin, fetch_site, host)


def cross_site_refusal(
    policy: OriginPolicy, origin: str | None, fetch_site: str | None, host: str | None
) -> str | None:
    """Why a browser's request from a page of another site must be refused,
    or None: the rule for the console's own paths whatever the credentials."""
    why = ("the console is for its own origin" if policy.open
           else "this server has no credentials")
    if origin is not None:
        if policy.allows_origin(origin, host):
            return None
        return (
            f"Cross-origin request from '{origin}' refused: {why}; allow the page with "
            "--cors-origin ORIGIN" + ("" if policy.open else
                                      " or start the server with --credentials")
        )
    if fetch_site is not None and fetch_site.strip().lower() in _FOREIGN_SITES:
        return (
            f"Cross-site request refused (Sec-Fetch-Site: {fetch_site}): {why}; allow the page "
            "with --cors-origin ORIGIN"
        )
    return None
