#!/usr/bin/env python3
"""Rewrite the Criterion results table of BENCHMARKS.md from the last run.

    cargo bench --bench throughput            # or with IRINORM_BENCH_CORPUS=...
    python3 scripts/bench_report.py           # rewrites BENCHMARKS.md
    python3 scripts/bench_report.py --print   # prints the table instead

It reads what `cargo bench --bench throughput` left in Criterion's directory:
`<criterion>/<group>/<bench>/new/estimates.json` (the median time of one
iteration, in ns) and `new/benchmark.json` (the bytes of the group's corpus,
`Throughput::Bytes`). The Criterion directory is, as Criterion chooses it,
`$CRITERION_HOME`, else `$CARGO_TARGET_DIR/criterion`, else
`target/criterion` under the repository (`--criterion DIR` overrides).

The table goes between the lines `<!-- results:begin -->` and
`<!-- results:end -->` of BENCHMARKS.md: throughput per bench in MB/s
(10^6 bytes of the corpus file per second), the ratios of irinorm's engine
to the peers measured in the same run, the machine (nproc, CPU model and
the vector extensions the parser uses) and the git commit of the
repository. The `generated` group is named after `$IRINORM_BENCH_CORPUS`
when it is set (`--corpus NAME` overrides), since Criterion does not record
which file it was.
"""

import argparse
import datetime
import json
import os
import re
import subprocess
import sys

BEGIN = "<!-- results:begin -->"
END = "<!-- results:end -->"

# Groups in the order `benches/throughput.rs` runs them; others found on
# disk (a renamed group) follow in name order.
GROUPS = ["kasztp", "node_files", "cc_bases", "generated"]

# (bench, column title) in table order.
BENCHES = [
    ("url_pipeline", "url"),
    ("ada_pipeline", "ada"),
    ("naive_hashset", "naive"),
    ("irinorm_keys_t1", "key + set"),
    ("irinorm_dedup_t1", "t1"),
    ("irinorm_dedup_t2", "t2"),
    ("irinorm_dedup_mem_t1", "mem t1"),
    ("irinorm_dedup_mem_t2", "mem t2"),
    ("irinorm_dedup_keys_t1", "keys t1"),
]

# (title, numerator bench, denominator bench): a ratio of times, so "t1 vs
# ada" = ada's time / t1's time (how many times faster t1 is).
RATIOS = [
    ("t1 vs ada", "ada_pipeline", "irinorm_dedup_t1"),
    ("t1 vs url", "url_pipeline", "irinorm_dedup_t1"),
    ("t1 vs naive", "naive_hashset", "irinorm_dedup_t1"),
    ("t2 / t1", "irinorm_dedup_t1", "irinorm_dedup_t2"),
    ("mem t1 vs ada", "ada_pipeline", "irinorm_dedup_mem_t1"),
    ("mem t2 / mem t1", "irinorm_dedup_mem_t1", "irinorm_dedup_mem_t2"),
    ("keys t1 vs ada", "ada_pipeline", "irinorm_dedup_keys_t1"),
]

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def criterion_dir(arg):
    if arg:
        return arg
    if os.environ.get("CRITERION_HOME"):
        return os.environ["CRITERION_HOME"]
    target = os.environ.get("CARGO_TARGET_DIR")
    if target:
        # A relative one is taken from the bench's working directory,
        # which cargo sets to the package root: the repository.
        return os.path.join(REPO, target, "criterion")
    return os.path.join(REPO, "target", "criterion")


def read_bench(group_dir, bench):
    """(median ns, corpus bytes or None, mtime) of one bench, or None."""
    new = os.path.join(group_dir, bench, "new")
    est = os.path.join(new, "estimates.json")
    if not os.path.isfile(est):
        return None
    with open(est) as f:
        median = json.load(f)["median"]["point_estimate"]
    nbytes = None
    meta = os.path.join(new, "benchmark.json")
    if os.path.isfile(meta):
        with open(meta) as f:
            tp = json.load(f).get("throughput") or {}
        nbytes = tp.get("Bytes") or tp.get("BytesDecimal")
    return median, nbytes, os.path.getmtime(est)


def collect(root):
    if not os.path.isdir(root):
        sys.exit(f"bench_report: no Criterion results in {root} (run `cargo bench --bench throughput` first)")
    found = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)) and d != "report")
    groups = [g for g in GROUPS if g in found] + [g for g in found if g not in GROUPS]
    results = {}
    for g in groups:
        benches = {}
        for bench, _ in BENCHES:
            got = read_bench(os.path.join(root, g), bench)
            if got:
                benches[bench] = got
        if benches:
            results[g] = benches
    if not results:
        sys.exit(f"bench_report: no results of the throughput bench in {root}")
    return results


def cpu_model():
    model, flags = "unknown CPU", set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                key = key.strip()
                if key == "model name" and model == "unknown CPU":
                    model = " ".join(value.split())
                elif key == "flags" and not flags:
                    flags = set(value.split())
    except OSError:
        pass
    # The extensions that choose the parser's and the rewrite's paths.
    ext = [e for e in ("avx2", "bmi2", "avx512bw", "avx512vbmi2") if e in flags]
    return model, ext


def git(*args):
    try:
        out = subprocess.run(["git", "-C", REPO, *args], capture_output=True, text=True, check=True)
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def commit():
    """The commit the benchmark ran on, in backticks, and whether the tree
    differed from it (this file's own output, BENCHMARKS.md, aside)."""
    sha = git("rev-parse", "--short", "HEAD") or "unknown"
    dirty = git("status", "--porcelain", "--untracked-files=no", "--", ".", ":!BENCHMARKS.md")
    return f"`{sha}`" + (" (with uncommitted changes)" if dirty else "")


def mb_per_s(ns, nbytes):
    return nbytes * 1e3 / ns if nbytes else None


def fmt_rate(x):
    if x is None:
        return "—"
    return f"{x:,.0f}" if x >= 100 else f"{x:.1f}"


def render(results, corpus_name):
    model, ext = cpu_model()
    last = max(m for b in results.values() for (_, _, m) in b.values())
    when = datetime.datetime.fromtimestamp(last).strftime("%Y-%m-%d")
    names = {g: g for g in results}
    if "generated" in names and corpus_name:
        names["generated"] = f"generated (`{corpus_name}`)"

    out = []
    out.append(
        f"Criterion medians of `cargo bench --bench throughput`, run of {when} at "
        f"commit {commit()}; {os.cpu_count()} CPUs (`nproc`), {model}"
        + (f" ({', '.join(ext)})" if ext else "")
        + ". Written by `scripts/bench_report.py`."
    )
    out.append("")
    out.append("Throughput, MB/s (10⁶ bytes of the corpus file per second; higher is faster):")
    out.append("")
    cols = [t for b, t in BENCHES]
    out.append("| corpus | MB | " + " | ".join(cols) + " |")
    out.append("|---|---|" + "---|" * len(cols))
    for g, benches in results.items():
        nbytes = next((nb for (_, nb, _) in benches.values() if nb), None)
        mb = f"{nbytes / 1e6:.2f}" if nbytes else "—"
        cells = []
        for bench, _ in BENCHES:
            got = benches.get(bench)
            cells.append(fmt_rate(mb_per_s(got[0], got[1] or nbytes)) if got else "—")
        out.append(f"| {names[g]} | {mb} | " + " | ".join(cells) + " |")
    out.append("")
    out.append("Ratios of times in the same run (how many times faster the first is):")
    out.append("")
    out.append("| corpus | " + " | ".join(t for t, _, _ in RATIOS) + " |")
    out.append("|---|" + "---|" * len(RATIOS))
    for g, benches in results.items():
        cells = []
        for _, num, den in RATIOS:
            if num in benches and den in benches:
                cells.append(f"{benches[num][0] / benches[den][0]:.2f}×")
            else:
                cells.append("—")
        out.append(f"| {names[g]} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def replace_between_markers(text, block):
    pattern = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.S)
    if len(pattern.findall(text)) != 1:
        sys.exit(f"bench_report: expected one {BEGIN} … {END} pair in the file")
    return pattern.sub(lambda _: f"{BEGIN}\n{block}{END}", text)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--print", action="store_true", help="print the table instead of rewriting the file")
    p.add_argument("--criterion", help="Criterion's output directory (default: as Criterion chooses it)")
    p.add_argument("--file", default=os.path.join(REPO, "BENCHMARKS.md"), help="the file to rewrite")
    p.add_argument("--corpus", help="name of the generated group's corpus (default: $IRINORM_BENCH_CORPUS)")
    a = p.parse_args()

    corpus = a.corpus
    if corpus is None and os.environ.get("IRINORM_BENCH_CORPUS"):
        corpus = os.path.basename(os.environ["IRINORM_BENCH_CORPUS"])
    block = render(collect(criterion_dir(a.criterion)), corpus)
    if a.print:
        sys.stdout.write(block)
        return
    with open(a.file) as f:
        text = f.read()
    new = replace_between_markers(text, block)
    with open(a.file, "w") as f:
        f.write(new)
    print(f"bench_report: {a.file} rewritten", file=sys.stderr)


if __name__ == "__main__":
    main()
