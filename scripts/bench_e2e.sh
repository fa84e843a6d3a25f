#!/usr/bin/env bash
# End-to-end dedup of one URL file: `sort -u` vs `irinorm dedup`.
#
#   scripts/bench_e2e.sh bench-data/corpus-5m.txt [RUNS]
#
# Wall time: median of RUNS (default 3) runs, with hyperfine when installed
# (1 warm-up run), else a plain loop. Peak RSS: one extra run under
# /usr/bin/time. Prints a markdown table on stdout; progress on stderr.
#
# Rows:
#   sort -u (t1)   LC_ALL=C sort -u --parallel=1   (byte-exact dedup, 1 thread)
#   sort -u        LC_ALL=C sort -u                (GNU sort's default threads)
#   irinorm t1/t2  target/release/irinorm dedup --threads N FILE -o OUT
#                  (only if the binary exists, `irinorm dedup --help` lists --threads
#                  and a 2-line probe run writes its -o file;
#                  build it with `cargo build --release`)
# Note that sort -u merges byte-identical lines only, irinorm merges lines
# with equal keys (scheme rung): irinorm does strictly more work.
set -euo pipefail

corpus=${1:?usage: $0 CORPUS [RUNS]}
runs=${2:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${IRINORM_BIN:-$root/target/release/irinorm}
[ -r "$corpus" ] || { echo "cannot read $corpus" >&2; exit 1; }
if [ ! -x /usr/bin/time ]; then
    echo "/usr/bin/time missing: apt-get install -y time" >&2
    exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

bytes=$(wc -c <"$corpus")
lines=$(grep -c '' "$corpus") # counts an unterminated last line too
names=()
cmds=()
names+=("sort -u (t1)"); cmds+=("LC_ALL=C sort -u --parallel=1 '$corpus' -o '$tmp/sort1.txt'")
names+=("sort -u (default threads)"); cmds+=("LC_ALL=C sort -u '$corpus' -o '$tmp/sort.txt'")
# A working dedup: `dedup --help` succeeds and documents --threads (the crate
# skeleton's main() ignores its arguments and exits 0, so the status alone
# proves nothing), and a tiny probe run writes its output file.
probe_ok() {
    "$bin" dedup --help 2>&1 | grep -q -- --threads || return 1
    printf 'http://a.example/\nHTTP://A.example:80/\n' >"$tmp/probe.txt"
    "$bin" dedup --threads 1 "$tmp/probe.txt" -o "$tmp/probe.csv" >/dev/null 2>&1 &&
        [ -s "$tmp/probe.csv" ]
}
if [ -x "$bin" ] && probe_ok; then
    for t in 1 2; do
        names+=("irinorm dedup t$t")
        cmds+=("'$bin' dedup --threads $t '$corpus' -o '$tmp/irinorm$t.csv'")
    done
else
    echo "[bench_e2e] $bin missing or without a working 'dedup --threads N FILE -o OUT' : irinorm rows skipped" >&2
fi

median_wall() { # command -> median wall seconds
    local cmd=$1
    if command -v hyperfine >/dev/null; then
        hyperfine -N --style none --warmup 1 --runs "$runs" \
            --export-json "$tmp/h.json" "bash -c \"$cmd\"" >/dev/null 2>&1 ||
            hyperfine --style none --warmup 1 --runs "$runs" \
                --export-json "$tmp/h.json" "$cmd" >/dev/null
        python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["median"])' "$tmp/h.json"
    else
        local i
        for i in $(seq "$runs"); do
            /usr/bin/time -f '%e' -o "$tmp/t" bash -c "$cmd"
            cat "$tmp/t"
        done | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
    fi
}

peak_rss_kb() {
    /usr/bin/time -v -o "$tmp/v" bash -c "$1" >/dev/null
    awk -F': ' '/Maximum resident set size/ {print $2}' "$tmp/v"
}

echo "[bench_e2e] $corpus: $lines lines, $bytes bytes, $runs runs each, $(nproc) CPUs" >&2
walls=()
rss=()
for i in "${!cmds[@]}"; do
    echo "[bench_e2e] ${names[$i]}: ${cmds[$i]}" >&2
    walls+=("$(median_wall "${cmds[$i]}")")
    rss+=("$(peak_rss_kb "${cmds[$i]}")")
done

echo
echo "Corpus: \`$corpus\` — $lines lines, $(awk -v b="$bytes" 'BEGIN{printf "%.1f", b/1e6}') MB; machine: $(nproc) CPUs; median of $runs runs"
echo
echo "| tool | wall s | MB/s | M lines/s | ns/line | peak RSS MB | speed vs sort -u (t1) |"
echo "|---|---|---|---|---|---|---|"
for i in "${!cmds[@]}"; do
    awk -v n="${names[$i]}" -v w="${walls[$i]}" -v r="${rss[$i]}" -v b="$bytes" \
        -v l="$lines" -v w0="${walls[0]}" 'BEGIN {
        printf "| %s | %.2f | %.1f | %.2f | %.0f | %.0f | %.2fx |\n",
            n, w, b / 1e6 / w, l / 1e6 / w, w * 1e9 / l, r / 1024, w0 / w }'
done
