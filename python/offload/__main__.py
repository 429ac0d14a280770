"""``python -m offload ...``: the ``offload`` command."""

from ._cli import main

main()
