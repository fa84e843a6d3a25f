#!/usr/bin/env bash
# Every fuzz target on the committed, minimized corpus (fuzz/corpus.tar.gz,
# unpacked to fuzz/corpus/<target>): the corpus is replayed, then FUZZ_RUNS
# (default 20000) new inputs are mutated from it with a fixed seed, so the
# run is the same on every machine — a red CI is a reproducible failure, not
# bad luck. A crash or a broken invariant fails the run. Open-ended fuzzing
# (the campaign) is in RELIABILITY.md. New inputs go to a temporary directory, so the committed
# corpus is not modified. Without a nightly toolchain this prints that it
# skipped, and succeeds: the crate itself builds on stable.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
runs="${FUZZ_RUNS:-20000}"

if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    echo "fuzz smoke: skipped (no nightly toolchain on this machine)"
    exit 0
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    echo "== installing cargo-fuzz"
    cargo install cargo-fuzz --locked
fi

if [ ! -d corpus ]; then
    tar xzf corpus.tar.gz
fi

echo "== cargo fuzz build (no sanitizer: safe Rust; libFuzzer's coverage only)"
cargo +nightly fuzz build -O -s none
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for t in $(cargo +nightly fuzz list); do
    # The engine target writes a spill directory per input: a tenth.
    n=$runs
    if [ "$t" = dedup ]; then n=$((runs / 10)); fi
    # The seen-set target writes a store directory per input: a tenth too.
    if [ "$t" = seen_store ]; then n=$((runs / 10)); fi
    mkdir -p "$tmp/$t" "corpus/$t"
    echo "== $t: corpus + ${n} runs, seed 1"
    set +e
    cargo +nightly fuzz run -O -s none "$t" "$tmp/$t" "corpus/$t" -- \
        -seed=1 -runs="$n" -max_len=4096 -print_final_stats=1 > "$tmp/$t.log" 2>&1
    status=$?
    set -e
    grep -E '^stat::(number_of_executed_units|average_exec_per_sec)' "$tmp/$t.log" || true
    if [ "$status" -ne 0 ]; then
        tail -n 40 "$tmp/$t.log"
        echo "fuzz smoke: $t failed (exit $status)" >&2
        exit 1
    fi
done
echo "fuzz smoke: every target replayed its corpus and ran its new inputs without a failure"
