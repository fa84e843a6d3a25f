#!/usr/bin/env bash
# Web mode vs strict mode: `irinorm dedup --threads 1`, end to end.
#
#   cargo build --release --bin irinorm --example gen_corpus --example pipelines
#   scripts/bench_web.sh [RUNS]
#
# Corpora (written to bench-data/ if absent):
# * real2m.txt — 2,000,000 lines drawn uniformly with repeats (Python's
#   random.Random(1).choice) from the non-blank lines of data/kasztp.txt,
#   data/node_files.txt and data/isaacs_files.txt (BOM removed): the real
#   lists at crawl scale;
# * c2m.txt — `gen_corpus --lines 2000000 --seed 1`, the generated crawl.
# Per corpus: strict and web alternated RUNS times (default 5), the median
# CPU time (user + sys, /usr/bin/time) and wall time of each; then the url
# and ada pipelines of examples/pipelines.rs (parse → href → HashSet, best
# of 3 in one process) on the same file, as ns/line.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${IRINORM:-./target/release/irinorm}
P=${PIPELINES:-./target/release/examples/pipelines}
RUNS=${1:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p bench-data
[ -f bench-data/c2m.txt ] ||
  ./target/release/examples/gen_corpus --lines 2000000 --seed 1 -o bench-data/c2m.txt
[ -f bench-data/real2m.txt ] || python3 - <<'PY'
import random
lines = []
for f in ["kasztp", "node_files", "isaacs_files"]:
    t = open(f"data/{f}.txt", "rb").read()
    t = t[3:] if t.startswith(b"\xef\xbb\xbf") else t
    lines += [l for l in t.split(b"\n") if l.strip()]
r = random.Random(1)
with open("bench-data/real2m.txt", "wb") as o:
    for _ in range(2000000):
        o.write(r.choice(lines) + b"\n")
PY

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
printf '%-12s %9s %9s %9s %9s %8s %8s %10s %10s\n' corpus strict_cpu web_cpu strict_wall web_wall \
  "web/str" "web/str" url_ns ada_ns
printf '%-12s %9s %9s %9s %9s %8s %8s\n' "" s s s s cpu wall
for f in real2m c2m; do
  : > "$tmp/strict"; : > "$tmp/web"
  for _ in $(seq "$RUNS"); do
    for m in strict web; do
      /usr/bin/time -o "$tmp/t" -f '%U %S %e' "$B" dedup -q --threads 1 --mode $m \
        "bench-data/$f.txt" -o /dev/null
      awk '{print $1 + $2, $3}' "$tmp/t" >> "$tmp/$m"
    done
  done
  sc=$(cut -d' ' -f1 "$tmp/strict" | median); wc_=$(cut -d' ' -f1 "$tmp/web" | median)
  sw=$(cut -d' ' -f2 "$tmp/strict" | median); ww=$(cut -d' ' -f2 "$tmp/web" | median)
  u=$("$P" url "bench-data/$f.txt" all 3 | sed -E 's/.* ([0-9.]+) ns\/line.*/\1/')
  a=$("$P" ada "bench-data/$f.txt" all 3 | sed -E 's/.* ([0-9.]+) ns\/line.*/\1/')
  printf '%-12s %9.2f %9.2f %9.2f %9.2f %8.2f %8.2f %10s %10s\n' "$f" "$sc" "$wc_" "$sw" "$ww" \
    "$(echo "$wc_ / $sc" | bc -l)" "$(echo "$ww / $sw" | bc -l)" "$u" "$a"
done
