"""``python -m train [OPTIONS]``: the ``fort-env train`` command without the console script
(the same options; ``--help`` lists them)."""

import os

os.environ.setdefault("PYTHONHASHSEED", "0")

from train.cli import main  # after the hash seed: the env workers it starts inherit it

main()
