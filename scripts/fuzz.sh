#!/usr/bin/env bash
# Runs every fuzz target for FUZZ_SECONDS (default 600) each, seeded from the fixtures, with
# libFuzzer's memory and time limits. Findings are copied to tests/fuzz_regressions/<target>/,
# which `make test` replays on stable (tests/fuzz_replay.rs). FUZZ_TARGETS picks targets.
set -eu
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
SECONDS_PER_TARGET=${FUZZ_SECONDS:-600}
TARGETS=${FUZZ_TARGETS:-"offload_binary bundle text_bundle compressed ids archive host explore nv_fatbin msgpack amdgpu cubin spirv bitcode ptx package kpack disasm"}

need_cargo
need_rust_toolchain nightly
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked
fi

status=0
for target in $TARGETS; do
    corpus=fuzz/corpus/$target
    mkdir -p "$corpus" "fuzz/artifacts/$target" "tests/fuzz_regressions/$target"
    # Earlier findings are already kept in tests/fuzz_regressions/: report only new ones.
    rm -f fuzz/artifacts/"$target"/*
    # Seeds: every fixture (cheap to copy again; libFuzzer skips duplicates).
    for f in tests/fixtures/* tests/fixtures/nvidia/* tests/images/*; do
        [ -f "$f" ] || continue
        case "$f" in *.md|*.sh|*.txt|*.hip|*.h|*.c|*.cu|*/SHA256SUMS) continue ;; esac
        cp "$f" "$corpus/seed-$(basename "$f")"
    done
    echo "== fuzzing $target for ${SECONDS_PER_TARGET}s"
    if ! cargo +nightly fuzz run "$target" "$corpus" -- \
        -max_total_time="$SECONDS_PER_TARGET" -rss_limit_mb=2048 -timeout=10 -max_len=1048576 \
        -print_final_stats=1 2>"fuzz/$target.log"; then
        status=1
        echo "!! $target found a problem; see fuzz/$target.log"
    fi
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "fuzz/$target.log" || true
    for finding in fuzz/artifacts/"$target"/*; do
        [ -f "$finding" ] || continue
        cp "$finding" "tests/fuzz_regressions/$target/"
        echo "!! kept $(basename "$finding") in tests/fuzz_regressions/$target/"
    done
done
exit $status
