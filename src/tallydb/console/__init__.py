"""tallydb.console."""
