"""The ``offload`` command installed with the wheel: the same command line as the binary,
run in this process by the native module."""

import os
import sys

from . import _offload


def main() -> None:
    # `offload doctor` reads the environment this command is installed in, activated or not.
    os.environ.setdefault("OFFLOAD_PYTHON", sys.executable)
    sys.exit(_offload.run_cli(["offload"] + sys.argv[1:]))


if __name__ == "__main__":
    main()
