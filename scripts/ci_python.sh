#!/usr/bin/env bash
# The Python package's tests, as CI runs them: a fresh venv with pinned
# requirements, the abi3 wheel built by maturin and installed into it, then
# pytest over python/tests (API, Arrow, parity with the CLI on data/, docs
# examples, Polars, DuckDB, and PySpark in local[2]). Fails when a test fails
# or when no test ran.
set -euo pipefail
cd "$(dirname "$0")/.."

venv="${IRINORM_CI_VENV:-target/ci-venv}"
wheels="target/ci-wheels"

if ! command -v java >/dev/null 2>&1; then
    echo "== java not found: installing Debian's headless JRE"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless
fi

echo "== python venv ($venv) with python/requirements-ci.txt"
python3 -m venv --clear "$venv"
"$venv/bin/pip" install -q -r python/requirements-ci.txt

echo "== maturin build (abi3 wheel)"
rm -rf "$wheels"
"$venv/bin/maturin" build --release -q -m python/Cargo.toml -o "$wheels" -i "$venv/bin/python"
"$venv/bin/pip" install -q --force-reinstall --no-deps "$wheels"/irinorm-*.whl

echo "== the CLI the parity tests compare with"
cargo build -q --bin irinorm
# Where cargo put it: ./target, or $CARGO_TARGET_DIR (or a configured
# build.target-dir), as cargo itself reports.
target_dir=$(cargo metadata --format-version 1 --no-deps |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
export IRINORM_BIN="$target_dir/debug/irinorm"

echo "== pytest python/tests"
set +e
"$venv/bin/python" -m pytest python/tests -q -p no:cacheprovider
status=$?
set -e
if [ "$status" -eq 5 ]; then
    echo "pytest collected no test: that is a failure here" >&2
    exit 1
fi
exit "$status"
