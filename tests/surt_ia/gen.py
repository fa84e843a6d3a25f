#!/usr/bin/env python3
"""Expected `surt-ia` keys, computed with the `surt` package 0.3.1 (PyPI).

Run from the repository root, in a venv with `pip install surt==0.3.1`:

    python3 tests/surt_ia/gen.py > /dev/null   # writes tests/surt_ia/*.out.gz

For each bundled sample `data/NAME.txt` (and the hand-written
`tests/surt_ia/edge_cases.txt`) it writes `tests/surt_ia/NAME.out.gz`:
one line per input line (file read as bytes, a leading UTF-8 BOM dropped,
split on LF, a trailing CR kept as part of the line, a final empty item
dropped), holding `surt.surt(line_bytes)` or `!ERR <ExceptionName>` when the
package raises. gzip with mtime 0, so reruns are byte-identical.
"""
import gzip
import sys

import surt

assert surt.__name__ == "surt"
SAMPLES = ["data/kasztp.txt", "data/node_files.txt", "data/isaacs_files.txt",
           "tests/surt_ia/edge_cases.txt"]


def lines(path):
    data = open(path, "rb").read()
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    items = data.split(b"\n")
    if items and items[-1] == b"":
        items.pop()
    return items


def key(line):
    try:
        return surt.surt(line)
    except Exception as e:  # the package raises on bad ports, empty URLs
        return b"!ERR " + type(e).__name__.encode()


for path in SAMPLES:
    name = path.rsplit("/", 1)[1][:-4]
    out = b"".join(key(l) + b"\n" for l in lines(path))
    with open(f"tests/surt_ia/{name}.out.gz", "wb") as f:
        with gzip.GzipFile(fileobj=f, mode="wb", mtime=0, filename="") as g:
            g.write(out)
    print(name, out.count(b"\n"), file=sys.stderr)
