"""The ``offload`` command installed with the wheel: the same command line as the binary,
run in this process by the native module."""

import sys

from . import _offload


def main() -> None:
    sys.exit(_offload.run_cli(["offload"] + sys.argv[1:]))


if __name__ == "__main__":
    main()
