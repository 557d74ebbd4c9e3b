"""tallydb.server."""
