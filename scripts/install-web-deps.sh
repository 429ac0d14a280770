#!/usr/bin/env bash
# Installs what building and serving the web page needs on a fresh Debian machine (run as root,
# or with sudo available); with --test, also what its tests need. Every step checks the
# installed version first, so a second run costs seconds.
#
#   clang-22, llvm-22 (Debian)       a C compiler and archiver for wasm32 (libzstd in the workers)
#   llvm-22-dev, wasi-libc,           LLVM's demangler header and the WASI C and C++ headers it is
#   libc++-22-dev-wasm32 (Debian)     compiled against for wasm32 (build.rs)
#   rustup target wasm32-unknown-unknown
#   trunk 0.21.14                     cargo install --locked (about 6 minutes, once)
#   wasm-bindgen-cli 0.2.130          cargo install, not --locked: its lock file names a
#                                     dependency version the registry mirror here lacks
#   binaryen 132 (wasm-opt)           npm, into tools/web/node_modules (Debian's binaryen and
#                                     the wasm-opt crate cannot read what Rust 1.95 emits)
#   --test: chromium, chromium-driver (Debian) and e2e/'s npm packages (playwright-core, which
#           drives Debian's Chromium: no browser is downloaded); for the other engines,
#           firefox-esr, webkit2gtk-driver (WebKitWebDriver and MiniBrowser) and xvfb (Debian),
#           geckodriver 0.37.1 (cargo install --locked, about 2 minutes, once) and
#           selenium-webdriver (npm, in e2e/; run with SE_OFFLINE=true, so its Selenium Manager
#           downloads no driver or browser)
#
# The Makefile puts tools/web/node_modules/.bin and ~/.cargo/bin first on PATH.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
TRUNK_VERSION=0.21.14
WASM_BINDGEN_VERSION=0.2.130
BINARYEN_VERSION=132
GECKODRIVER_VERSION=0.37.1
export PATH="$ROOT/tools/web/node_modules/.bin:$HOME/.cargo/bin:$PATH"

WANT_TEST=""
[ "${1:-}" = "--test" ] && WANT_TEST=1

# Debian packages: node and npm for the build hooks and tools; clang-22 and llvm-22, which
# compile libzstd (zstd-sys) for the workers' wasm32 (.cargo/config.toml names them); Chromium
# for the tests.
missing=()
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
[ -x /usr/lib/llvm-22/bin/clang ] || missing+=(clang-22)
[ -x /usr/lib/llvm-22/bin/llvm-ar ] || missing+=(llvm-22)
# The WASI C and C++ headers LLVM's demangler is compiled against for wasm32 (build.rs).
[ -f /usr/include/wasm32-wasi/stdlib.h ] || missing+=(wasi-libc)
[ -f /usr/lib/llvm-22/include/wasm32-wasi/c++/v1/__config ] || missing+=(libc++-22-dev-wasm32)
[ -f /usr/lib/llvm-22/include/llvm/Demangle/ItaniumDemangle.h ] || missing+=(llvm-22-dev)
if [ -n "$WANT_TEST" ]; then
  [ -x /usr/bin/chromium ] || missing+=(chromium)
  [ -x /usr/bin/chromedriver ] || missing+=(chromium-driver)
  [ -x /usr/bin/firefox-esr ] || missing+=(firefox-esr)
  [ -x /usr/bin/WebKitWebDriver ] || missing+=(webkit2gtk-driver)
  [ -x /usr/bin/xvfb-run ] || missing+=(xvfb)
  command -v xauth >/dev/null || missing+=(xauth)
fi
[ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}"

need_cargo
need_rust_target wasm32-unknown-unknown

if [ "$(trunk --version 2>/dev/null)" != "trunk $TRUNK_VERSION" ]; then
  say "installing trunk $TRUNK_VERSION (cargo install, several minutes)"
  cargo install --locked "trunk@$TRUNK_VERSION"
fi
if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $WASM_BINDGEN_VERSION" ] ||
   [ "$(wasm-bindgen-test-runner --version 2>/dev/null)" != "wasm-bindgen-test-runner $WASM_BINDGEN_VERSION" ]; then
  say "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION"
  cargo install --force "wasm-bindgen-cli@$WASM_BINDGEN_VERSION"
fi

if [ -n "$WANT_TEST" ] && [ "$(geckodriver --version 2>/dev/null | head -n1 | cut -d' ' -f1-2)" != "geckodriver $GECKODRIVER_VERSION" ]; then
  say "installing geckodriver $GECKODRIVER_VERSION (cargo install, a few minutes)"
  cargo install --locked "geckodriver@$GECKODRIVER_VERSION"
fi

# npm packages, pinned by the committed package-lock.json files.
npm_ci() { # npm_ci DIR PACKAGE VERSION: npm ci in DIR unless PACKAGE is already at VERSION
  local dir=$1 pkg=$2 version=$3 have
  have=$(node -p "try { require('$ROOT/$dir/node_modules/$pkg/package.json').version } catch { '' }")
  if [ "$have" != "$version" ]; then
    say "installing npm $pkg $version into $dir/node_modules"
    (cd "$ROOT/$dir" && npm ci --no-audit --no-fund --loglevel=error)
  fi
}
npm_ci tools/web binaryen "$BINARYEN_VERSION.0.0"
wasm-opt --version | grep -q "version $BINARYEN_VERSION\b" || { say "wasm-opt on PATH is not version $BINARYEN_VERSION" >&2; exit 1; }
if [ -n "$WANT_TEST" ]; then
  for pkg in playwright-core selenium-webdriver; do
    npm_ci e2e "$pkg" "$(node -p "require('$ROOT/e2e/package.json').devDependencies['$pkg']")"
  done
fi

say "ok ($(trunk --version), $(wasm-bindgen --version), $(wasm-opt --version | cut -d' ' -f1-3), node $(node --version)$([ -n "$WANT_TEST" ] && echo ", $(/usr/bin/chromium --version 2>/dev/null | cut -d' ' -f1-2), $(firefox-esr --version 2>/dev/null | sed 's/^Mozilla //'), $(geckodriver --version | head -n1), WebKitGTK $(dpkg-query -W -f='${Version}' libwebkit2gtk-4.1-0 2>/dev/null)"))"
