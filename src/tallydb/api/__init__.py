"""tallydb.api."""
