"""tallydb: a local, DynamoDB-compatible store built for atomic counters."""

__version__ = "0.1.0"
