"""The DynamoDB JSON 1.0 protocol over HTTP/1.1, in front of the engine.

Thin by design (see DESIGN.md): HTTP parsing, SigV4, CRC32, DynamoDB's error
shapes and routing by ``X-Amz-Target``; every behaviour lives in ``api``.
Modules: ``protocol`` (a connection), ``routing`` (what a request is),
``batch`` (group commit), ``http`` (responses), ``auth`` (SigV4), ``app``
(listening and shutting down).
"""

from tallydb.server.app import Config, ConfigError, Server, run, serve

__all__ = ["Config", "ConfigError", "Server", "run", "serve"]
