# What the install scripts, scripts/fuzz.sh and the fixture generators share; sourced by bash:
#
#   . "$(dirname "${BASH_SOURCE[0]}")/lib.sh"          (from a script in scripts/)
#
# Sourcing it defines the variables and functions below and runs nothing else. Every function
# checks before it acts, so that a second run of a script costs seconds.
#
#   ROOT                the repository's root
#   SUDO                `sudo` when not root and sudo is there, else empty (CI runs as root)
#   NVIDIA_TOOLS_DIR    where scripts/install-nvidia.sh puts the NVIDIA toolchain from PyPI
#                       (default .tools/nvidia, gitignored; the tests read the same variable)
#   NVIDIA_CUDA_DIR     the unpacked toolkit in it: bin/nvcc, bin/cuobjdump, nvvm/bin/cicc
#
#   say MESSAGE...                  prints "<script>: MESSAGE"
#   apt_install PACKAGE...          installs Debian packages (one `apt-get update` per run)
#   need_cargo                      exits, saying so, when cargo is not installed
#   need_rust_target TARGET         adds a Rust target unless rustup has it
#   need_rust_components NAME...    adds rustup components (rustfmt, clippy) it lacks
#   need_rust_toolchain NAME        installs a rustup toolchain (nightly) it lacks
#   pip_download DEST REQUIREMENT [PIP OPTION...]
#                                   `pip download --no-deps --only-binary=:all:` of one pinned
#                                   wheel into DEST
#   unzip_wheel WHEEL DEST [MEMBER...]
#                                   unpacks a wheel (or some of its members) into DEST

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SUDO=""
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null; then SUDO=sudo; fi
NVIDIA_TOOLS_DIR=${NVIDIA_TOOLS_DIR:-$ROOT/.tools/nvidia}
NVIDIA_CUDA_DIR=$NVIDIA_TOOLS_DIR/root/nvidia/cu13

say() {
  echo "$(basename "$0" .sh): $*"
}

LIB_APT_UPDATED=""
apt_install() {
  say "installing $* from Debian"
  if [ -z "$LIB_APT_UPDATED" ]; then
    $SUDO apt-get update -qq
    LIB_APT_UPDATED=1
  fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}

need_cargo() {
  if ! command -v cargo >/dev/null; then
    say "cargo is missing: install Rust (https://rustup.rs) first" >&2
    exit 1
  fi
}

need_rust_target() {
  if command -v rustup >/dev/null && ! rustup target list --installed | grep -qx "$1"; then
    say "adding the $1 Rust target"
    rustup target add "$1"
  fi
}

need_rust_components() {
  local component
  for component in "$@"; do
    if command -v rustup >/dev/null && ! rustup component list --installed | grep -q "^$component"; then
      say "adding the Rust component $component"
      rustup component add "$component"
    fi
  done
}

need_rust_toolchain() {
  if ! rustup toolchain list | grep -q "^$1"; then
    say "installing the $1 Rust toolchain"
    rustup toolchain install "$1" --profile minimal
  fi
}

pip_download() {
  local dest=$1 requirement=$2
  shift 2
  python3 -m pip download --quiet --no-deps --only-binary=:all: "$@" --dest "$dest" "$requirement"
}

unzip_wheel() {
  local wheel=$1 dest=$2
  shift 2
  unzip -qo "$wheel" "$@" -d "$dest"
}
