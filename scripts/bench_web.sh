#!/usr/bin/env bash
# Web mode vs strict mode, end to end on the bundled data/ (issue 11).
#
#   cargo build --release && scripts/bench_web.sh [RUNS] [COPIES]
#
# Each corpus is the data/ file repeated COPIES times (default 10, so a run
# takes long enough to time), kasztp's BOM kept once. Per mode:
# `irinorm normalize -q -j 1 --mode MODE FILE > /dev/null` (one worker
# thread), the two modes alternated, best of RUNS (default 5) by wall time
# and by CPU time (user + sys, /usr/bin/time), which moves less when other
# jobs share the machine. The CC csv is keyed with its per-row base
# (`--input-format csv --column relative --base-column base`).
set -euo pipefail
cd "$(dirname "$0")/.."
B=${IRINORM:-./target/release/irinorm}
RUNS=${1:-5}
COPIES=${2:-10}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# best "wall cpu" of RUNS runs of the command
best() {
  local bw=999 bc=999 w c
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -o "$tmp/t" -f '%e %U %S' "$@" >/dev/null 2>&1
    read -r w c < <(awk '{print $1, $2 + $3}' "$tmp/t")
    bw=$(echo "if ($w < $bw) $w else $bw" | bc -l)
    bc=$(echo "if ($c < $bc) $c else $bc" | bc -l)
  done
  echo "$bw $bc"
}

printf '%-20s %9s %6s %6s %6s %6s %8s %8s\n' corpus MB wall_s cpu_s wall_s cpu_s "web/str" "web/str"
printf '%-20s %9s %13s %13s %8s %8s\n' "" "" strict web wall cpu
run() {
  local name=$1 file=$2; shift 2
  local mb s w
  mb=$(echo "$(stat -c %s "$file") / 1000000" | bc -l)
  s=$(best "$B" normalize -q -j 1 --mode strict "$@" "$file")
  w=$(best "$B" normalize -q -j 1 --mode web "$@" "$file")
  set -- $s $w
  printf '%-20s %9.2f %6.2f %6.2f %6.2f %6.2f %8.2f %8.2f\n' "$name" "$mb" "$1" "$2" "$3" "$4" \
    "$(echo "$3 / $1" | bc -l)" "$(echo "$4 / $2" | bc -l)"
}
for f in kasztp node_files isaacs_files; do
  for _ in $(seq "$COPIES"); do sed '1s/^\xEF\xBB\xBF//' "data/$f.txt"; echo; done > "$tmp/$f.txt"
  run "$f x$COPIES" "$tmp/$f.txt"
done
{ head -1 data/relative_urls_cc_10k.csv
  for _ in $(seq "$COPIES"); do tail -n +2 data/relative_urls_cc_10k.csv; done; } > "$tmp/cc.csv"
run "cc_10k x$COPIES (base)" "$tmp/cc.csv" --input-format csv --column relative --base-column base
