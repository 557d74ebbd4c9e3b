"""tallydb's version, where every layer may read it (the server's health
answer, the console's info, ``tallydb --version``)."""

__version__ = "0.1.0"
