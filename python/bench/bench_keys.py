"""keys_arrow against the canonicalizers Python users call today.

    python python/bench/bench_keys.py bench-data/c1m.txt [--peer-lines 100000]

One thread for everyone (RAYON_NUM_THREADS=1 is set before irinorm is
imported): irinorm's `Normalizer().keys_arrow` over all lines as one Arrow
array; w3lib `canonicalize_url`, courlan `normalize_url` and url-normalize
`url_normalize` over the first --peer-lines lines (they are ~100x slower; the
rate is per line either way), each into a set, as a dedup would. A peer that
raises on a line counts it as rejected, as irinorm does. Prints lines/s and
the ratios, and the CLI's own rate (`irinorm normalize --threads 1`) on the
same lines for comparison.
"""

import argparse
import os
import subprocess
import sys
import time

os.environ["RAYON_NUM_THREADS"] = "1"

import pyarrow as pa  # noqa: E402

import irinorm  # noqa: E402


def rate(n, secs):
    return n / secs if secs > 0 else float("inf")


def peer(name, fn, lines):
    seen = set()
    bad = 0
    t = time.perf_counter()
    for line in lines:
        try:
            seen.add(fn(line))
        except Exception:  # a peer's rejection of a line
            bad += 1
    secs = time.perf_counter() - t
    return name, len(lines), secs, len(seen), bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("path")
    ap.add_argument("--peer-lines", type=int, default=100_000)
    target = os.environ.get("CARGO_TARGET_DIR", "target")
    ap.add_argument("--cli", default=os.path.join(target, "release", "irinorm"))
    a = ap.parse_args()
    with open(a.path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    arr = pa.array(lines, type=pa.string())
    n = irinorm.Normalizer()
    n.keys_arrow(arr.slice(0, 1000))  # warm up (thread pool, IDNA memo)
    t = time.perf_counter()
    canonical, error = n.keys_arrow(arr)
    secs = time.perf_counter() - t
    uniq = len(set(canonical.drop_null().to_pylist()))
    results = [("irinorm keys_arrow", len(lines), secs, uniq, error.null_count)]
    few = lines[: a.peer_lines]
    import w3lib.url
    from courlan import normalize_url
    from url_normalize import url_normalize

    results.append(peer("w3lib canonicalize_url", w3lib.url.canonicalize_url, few))
    results.append(peer("courlan normalize_url", normalize_url, few))
    results.append(peer("url-normalize", url_normalize, few))
    base = rate(results[0][1], results[0][2])
    print(f"{'pipeline':<24} {'lines':>9} {'seconds':>8} {'lines/s':>11} {'irinorm x':>9}")
    for name, cnt, s, _, _ in results:
        r = rate(cnt, s)
        print(f"{name:<24} {cnt:>9} {s:>8.2f} {r:>11,.0f} {base / r:>9.1f}")
    if os.path.exists(a.cli):
        t = time.perf_counter()
        subprocess.run(
            [a.cli, "normalize", "-q", "--threads", "1", a.path, "-o", "/dev/null"],
            check=True,
        )
        s = time.perf_counter() - t
        print(f"{'CLI normalize -j1':<24} {len(lines):>9} {s:>8.2f} {rate(len(lines), s):>11,.0f}"
              f"   keys_arrow / CLI = {base / rate(len(lines), s):.2f}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
