"""The toolkit: what ``import tallydb`` gives a Python developer.

Tables, models, counters, the update and condition builders, batches,
transactions, extensions and change readers, each written once as a plan of
standard DynamoDB requests (:mod:`tallydb.toolkit.transport`) and run
blocking (``tallydb.Table``) or awaited (``tallydb.aio.Table``), on any
endpoint or on the embedded engine. The public names are re-exported by
:mod:`tallydb` and :mod:`tallydb.aio`.
"""
