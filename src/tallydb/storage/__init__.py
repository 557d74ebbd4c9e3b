"""Where items live: a catalog of tables and, per table, items by key.

One writer at a time (whoever holds the store's lock) applies writes in
arrival order inside one SQLite transaction; callers decide how many requests
share that transaction (the server commits a whole event-loop turn at once:
group commit). Nothing here knows DynamoDB's rules: keys arrive already
encoded as order-preserving bytes, items as wire-form dicts.
"""

from tallydb.storage.sqlite import Store, StoreInUseError, Sync, TableRecord, Transaction

__all__ = ["Store", "StoreInUseError", "Sync", "TableRecord", "Transaction"]
