"""Where items live: a catalog of tables and, per table, items by key.

One writer at a time (whoever holds the store's lock) applies writes in
arrival order inside one transaction; callers decide how many requests share
it (the server commits a whole event-loop turn at once: group commit). A
transaction of item writes alone commits by one append to the item log and
its rows reach SQLite later, in bulk; any other commits to SQLite. Nothing
here knows DynamoDB's rules: keys arrive already encoded as order-preserving
bytes, items as wire-form dicts.
"""

from tallydb.engine.storage.ownership import StoreInUseError
from tallydb.engine.storage.sqlite import Store, Sync, TableRecord, Transaction

__all__ = ["Store", "StoreInUseError", "Sync", "TableRecord", "Transaction"]
