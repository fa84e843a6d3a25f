#!/usr/bin/env python3
"""The library's dependency graph: import cycles and the layer order.

Reads every `src/**/*.rs` of the library (not `src/bin/`), finds the paths it
names (`crate::a::b`, `super::x`, `use crate::{a::{b, c}}`), resolves each to
the file that *defines* the item (following `pub use` re-exports of a
`mod.rs`), and checks:

1. no cycle between files (a module's `mod.rs` re-exporting its children is
   not an edge back from them; a child naming an item defined in its parent
   is);
2. no cycle between the top-level modules;
3. the top-level modules depend only on lower layers (LAYERS below).

`python3 scripts/layers.py` prints the violations and exits 1 if any;
`--graph` prints the module-level edges. `.ci/run` runs it.
"""

import os
import re
import sys
from collections import defaultdict

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")

# Each layer may use only layers after it. A module not listed is an error.
LAYERS = [
    {"batch"},
    {"learn"},
    {"ladder"},
    {"convert", "resolve", "surt", "surt_ia", "web", "cdx", "preprocess", "decode",
     "archive", "check"},
    {"iri", "host"},
    {"pct", "chars", "simd", "scheme", "error"},
]


def module_of(path):
    rel = os.path.relpath(path, ROOT)[:-3].split(os.sep)
    if rel[-1] in ("mod", "lib"):
        rel = rel[:-1]
    return tuple(rel)


def files():
    out = {}
    for dirpath, dirnames, names in os.walk(ROOT):
        if os.path.relpath(dirpath, ROOT).split(os.sep)[0] == "bin":
            continue
        for n in names:
            if n.endswith(".rs"):
                p = os.path.join(dirpath, n)
                out[module_of(p)] = p
    return out


COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
STRING = re.compile(r'"(?:\\.|[^"\\])*"')


def strip(text):
    # Test modules are not part of the dependency graph of the library.
    text = COMMENT.sub("", text)
    text = STRING.sub('""', text)
    m = re.search(r"#\[cfg\(test\)\]\s*mod\s+tests\s*\{", text)
    if m:
        text = text[: m.start()]
    return text


def expand(text, i):
    """Paths of a `{...}` group starting at text[i] == '{'."""
    depth, j = 0, i
    while j < len(text):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                break
        j += 1
    body = text[i + 1 : j]
    items, depth, cur = [], 0, ""
    for ch in body:
        if ch == "," and depth == 0:
            items.append(cur)
            cur = ""
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        cur += ch
    items.append(cur)
    paths = []
    for it in items:
        it = it.strip()
        if not it:
            continue
        k = it.find("{")
        if k >= 0:
            head = it[:k].rstrip(":").strip()
            for sub in expand(it, k):
                paths.append(([head] if head else []) + sub if head else sub)
        else:
            it = re.split(r"\s+as\s+", it)[0].strip()
            paths.append([s for s in it.split("::") if s])
    return [[s for p in path for s in (p.split("::") if isinstance(p, str) else [p]) if s] for path in paths]


PATH = re.compile(r"\b(crate|super(?:::super)*|self)::((?:[A-Za-z_][A-Za-z0-9_]*::)*)(\{|[A-Za-z_][A-Za-z0-9_]*)")


def refs(mod, is_mod_rs, text):
    """Absolute paths (tuples of segments) named in `text`."""
    out = []
    for m in PATH.finditer(text):
        root, mid, last = m.group(1), m.group(2), m.group(3)
        if root == "crate":
            base = []
        elif root == "self":
            base = list(mod) if is_mod_rs else list(mod[:-1])
            base = list(mod)
        else:
            ups = root.count("super")
            here = list(mod)
            base = here[: len(here) - ups] if len(here) >= ups else []
        mid = [s for s in mid.split("::") if s]
        if last == "{":
            for sub in expand(text, m.end() - 1):
                out.append(tuple(base + mid + sub))
        else:
            out.append(tuple(base + mid + [last]))
    return out


def main():
    fs = files()
    texts = {m: strip(open(p, encoding="utf-8").read()) for m, p in fs.items()}
    # A module with children (`mod.rs`, or `x.rs` beside a folder `x/`).
    mod_rs = {m for m in fs if any(len(o) > len(m) and o[: len(m)] == m for o in fs)}
    # Inline modules declared with #[path] or `mod x {` are part of their file.
    # Re-exports: (module, name) -> absolute path it points to.
    reexports = {}
    for m, t in texts.items():
        for u in re.finditer(r"pub(?:\([a-z]+\))?\s+use\s+([^;]+);", t):
            body = u.group(1).strip()
            src = refs(m, m in mod_rs, body if "::" in body else "")
            if not re.match(r"(crate|super|self)::", body):
                # `pub use child::X` is relative to this module.
                src = refs(m, m in mod_rs, "self::" + body)
            for path in src:
                reexports[(m, path[-1])] = path

    def owner(path, seen=0):
        """The file module that defines the item at `path`."""
        best = None
        for k in range(len(path), 0, -1):
            if tuple(path[:k]) in fs:
                best = tuple(path[:k])
                break
        if best is None:
            return None
        if len(path) > len(best) and seen < 8:
            name = path[len(best)]
            target = reexports.get((best, name))
            if target and tuple(target) != tuple(path[: len(best) + 1]):
                return owner(list(target) + list(path[len(best) + 1 :]), seen + 1)
        return best

    edges = defaultdict(set)
    for m, t in texts.items():
        # A module re-exporting its own children is their facade, not a
        # user of them; any other use of a child's item is an edge.
        if m in mod_rs:
            t = re.sub(r"pub(?:\([a-z]+\))?\s+use\s+(self::)?[^;]+;", "", t)
        children = {o[len(m)] for o in fs if len(o) > len(m) and o[: len(m)] == m}
        named = refs(m, m in mod_rs, t)
        for c in children:
            # `child::item` without a `self::` prefix.
            for r in re.finditer(r"(?<![:\w])" + c + r"::", t):
                named += refs(m, True, "self::" + t[r.start():r.start() + 300].split(";")[0])
        for path in named:
            o = owner(list(path))
            if o is None or o == m or o == ():
                continue
            edges[m].add(o)

    problems = []
    # 1. file cycles (Tarjan)
    problems += [
        "file cycle among: " + ", ".join("::".join(x) or "lib" for x in c)
        for c in cycles(edges)
    ]
    # 2. top-level module cycles and 3. layers
    top = defaultdict(set)
    for a, bs in edges.items():
        for b in bs:
            if a and b and a[0] != b[0]:
                top[a[0]].add(b[0])
    problems += ["module cycle among: " + ", ".join(x for x in c) for c in cycles(top)]
    rank = {name: i for i, layer in enumerate(LAYERS) for name in layer}
    for a in sorted(top):
        if a not in rank:
            problems.append(f"module {a} is in no layer (scripts/layers.py LAYERS)")
            continue
        for b in sorted(top[a]):
            if b not in rank:
                problems.append(f"module {b} is in no layer (scripts/layers.py LAYERS)")
            elif rank[b] <= rank[a]:
                why = "same layer" if rank[b] == rank[a] else "upward"
                if rank[b] < rank[a] or a != b:
                    if rank[b] < rank[a]:
                        problems.append(f"layer: {a} uses {b} ({why})")
    if "--graph" in sys.argv:
        for a in sorted(top):
            print(f"{a} -> {', '.join(sorted(top[a]))}")
        for a in sorted(edges):
            print("  " + "::".join(a), "->", ", ".join("::".join(b) for b in sorted(edges[a])))
    for p in sorted(set(problems)):
        print(p)
    print(f"layers: {len(fs)} files, {sum(len(v) for v in edges.values())} file edges, "
          f"{len(set(problems))} problems")
    return 1 if problems else 0


def cycles(edges):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    nodes = set(edges) | {b for bs in edges.values() for b in bs}

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            strong(v)
    return out


if __name__ == "__main__":
    sys.exit(main())
