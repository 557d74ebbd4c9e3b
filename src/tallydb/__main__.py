"""``python -m tallydb``: the same commands as the ``tallydb`` script."""

from tallydb.cli import main

if __name__ == "__main__":
    main()
