"""One boto3 session for every client the toolkit makes.

botocore then loads DynamoDB's service model once per process, not once per
client (most of the ~0.7 s a new client costs). Sessions are not
thread-safe, so clients are made under :data:`lock`.
"""

from __future__ import annotations

import threading
from typing import Any

__all__ = ["MAX_CONNECTIONS", "lock", "shared"]

#: How many requests may be in flight at once (the HTTP pool and the async
#: driver's thread pool are sized together).
MAX_CONNECTIONS = 32

lock = threading.Lock()
_session: Any = None


def shared() -> Any:
    """The process's boto3 session (made on first use); call with :data:`lock` held."""
    global _session
    if _session is None:
        import boto3

        _session = boto3.session.Session()
    return _session
