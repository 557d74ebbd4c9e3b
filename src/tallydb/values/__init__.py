"""tallydb.values."""
