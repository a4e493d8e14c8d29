"""``python -m escpush``: the command line of :mod:`escpush.cli`."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
