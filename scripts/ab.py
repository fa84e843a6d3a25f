#!/usr/bin/env python3
"""Side-by-side timings for BENCHMARKS.md: two builds, alternated, medians.

The machine is noisy (2 shared cores): one absolute time says little, so
each figure is the median of runs of the old and the new build taken in
turn (old first on even rounds, new first on odd ones).

    scripts/ab.py pipelines OLD_DIR NEW_DIR PIPELINE FILE [LINES] [--rounds R] [--repeat N]
        `OLD_DIR/pipelines` against `NEW_DIR/pipelines` (the example of
        that name, copied out of two builds): each run is the best of N
        (5) repeats in one process, as `pipelines` prints it (ns/line);
        a small file needs more (40 for the files of `data/`).
    scripts/ab.py cli OLD_BIN NEW_BIN [--rounds R] -- ARGS...
        `BIN ARGS... -o OUT` as a cold process, wall time in ms; OUT is
        removed before each run (renaming over an existing large file costs
        the kernel's freeing of its page cache: BENCHMARKS.md, "Machine and noise").
    scripts/ab.py sort BIN FILE [--rounds R]
        `LC_ALL=C sort -u --parallel=2` against `BIN dedup -j1` and `-j2`.
    scripts/ab.py cpu OLD_BIN NEW_BIN [--rounds R] [--stdin FILE | --feed CMD] -- ARGS...
        `BIN ARGS... -o /dev/null` as a cold process: the CPU time of the
        process and its threads (user + system, from `wait4`) and the wall
        time, in ms. `--stdin FILE` redirects stdin from FILE (`< FILE`);
        `--feed CMD` pipes CMD's output into it (`CMD | BIN ...`), and
        only irinorm's CPU is counted.

Build the two sides with, e.g.,
    git worktree add /tmp/old <commit>
    (cd /tmp/old && cargo build --release --bins --examples)
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time


def alternate(rounds, runs):
    """`runs` is a list of (name, thunk); each round runs every thunk once,
    in turn, starting from a different one each round. Returns name -> list."""
    got = {name: [] for name, _ in runs}
    for i in range(rounds):
        order = runs if i % 2 == 0 else list(reversed(runs))
        for name, thunk in order:
            got[name].append(thunk())
    return got


def report(got, unit):
    for name, xs in got.items():
        print(f"{name:>8}: " + " ".join(f"{x:.1f}" for x in xs))
    meds = {name: statistics.median(xs) for name, xs in got.items()}
    print(" ".join(f"median {n} {m:.1f} {unit}" for n, m in meds.items()))
    return meds


def pipelines(a):
    def run(d):
        def thunk():
            cmd = [os.path.join(d, "pipelines"), a.pipeline, a.file]
            # LINES before REPEAT: without it, "5" would be read as LINES.
            cmd += [str(a.lines) if a.lines else "all", str(a.repeat)]
            out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
            return float(re.findall(r"([0-9.]+) ns/line", out)[-1])
        return thunk

    meds = report(alternate(a.rounds, [("old", run(a.old)), ("new", run(a.new))]), "ns/line")
    print(f"new/old {meds['new'] / meds['old']:.3f}")


def timed(cmd, outs, env=None):
    def thunk():
        for o in outs:
            if os.path.exists(o):
                os.remove(o)
        t = time.perf_counter()
        subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        return (time.perf_counter() - t) * 1000
    return thunk


def cli(a, tmp):
    out = os.path.join(tmp, "out")
    runs = [(n, timed([b] + a.args + ["-o", out], [out])) for n, b in (("old", a.old), ("new", a.new))]
    meds = report(alternate(a.rounds, runs), "ms")
    print(f"new/old {meds['new'] / meds['old']:.3f}")


def cpu(a):
    def run(b):
        def thunk():
            feeder = None
            stdin = open(a.stdin, "rb") if a.stdin else None
            if a.feed:
                feeder = subprocess.Popen(a.feed.split(), stdout=subprocess.PIPE)
                stdin = feeder.stdout
            t = time.perf_counter()
            p = subprocess.Popen(
                [b] + a.args + ["-o", "/dev/null"],
                stdin=stdin,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            if stdin:
                stdin.close()
            _, status, ru = os.wait4(p.pid, 0)
            wall = (time.perf_counter() - t) * 1000
            if feeder:
                feeder.wait()
            if status != 0:
                sys.exit(f"{b} {' '.join(a.args)}: exit status {status}")
            return ((ru.ru_utime + ru.ru_stime) * 1000, wall)
        return thunk

    got = alternate(a.rounds, [("old", run(a.old)), ("new", run(a.new))])
    for i, what in enumerate(("cpu", "wall")):
        meds = report({n: [x[i] for x in xs] for n, xs in got.items()}, f"ms {what}")
        print(f"{what} new/old {meds['new'] / meds['old']:.3f}")


def sort(a, tmp):
    out = os.path.join(tmp, "out")
    env = dict(os.environ, LC_ALL="C")
    runs = [
        ("sort", timed(["sort", "-u", "--parallel=2", a.file, "-o", out], [out], env)),
        ("j1", timed([a.bin, "dedup", "-q", "-j1", a.file, "-o", out], [out])),
        ("j2", timed([a.bin, "dedup", "-q", "-j2", a.file, "-o", out], [out])),
    ]
    meds = report(alternate(a.rounds, runs), "ms")
    print(f"sort/j2 {meds['sort'] / meds['j2']:.2f}x, j1/j2 {meds['j1'] / meds['j2']:.2f}x")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="what", required=True)
    q = sub.add_parser("pipelines")
    q.add_argument("old")
    q.add_argument("new")
    q.add_argument("pipeline")
    q.add_argument("file")
    q.add_argument("lines", nargs="?", type=int)
    q.add_argument("--rounds", type=int, default=5)
    q.add_argument("--repeat", type=int, default=5)
    q = sub.add_parser("cli")
    q.add_argument("old")
    q.add_argument("new")
    q.add_argument("--rounds", type=int, default=9)
    q = sub.add_parser("sort")
    q.add_argument("bin")
    q.add_argument("file")
    q.add_argument("--rounds", type=int, default=7)
    q = sub.add_parser("cpu")
    q.add_argument("old")
    q.add_argument("new")
    q.add_argument("--rounds", type=int, default=15)
    q.add_argument("--stdin")
    q.add_argument("--feed")
    argv = sys.argv[1:]
    rest = []
    if "--" in argv:
        at = argv.index("--")
        argv, rest = argv[:at], argv[at + 1 :]
    a = p.parse_args(argv)
    a.args = rest
    if a.what == "pipelines":
        return pipelines(a)
    if a.what == "cpu":
        return cpu(a)
    with tempfile.TemporaryDirectory() as tmp:
        if a.what == "cli":
            return cli(a, tmp)
        return sort(a, tmp)


if __name__ == "__main__":
    sys.exit(main())
