"""tallydb.expressions."""
