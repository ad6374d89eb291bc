#!/usr/bin/env python3
"""Import circles between the crate's modules.

Each file under src/ is a node named by its module path (src/layout/view.rs -> layout::view,
src/layout/mod.rs -> layout). An edge a -> b means a's code (tests excluded: everything from
a `#[cfg(test)]` line on) names b through `use crate::...`, `crate::...::` or `super::...`
paths. Two levels are checked: the top-level modules (layout, tensor, kernels, ...; edges
inside one module ignored), and the files inside each module. Prints every strongly connected
component of more than one node and exits 1 if there is any.
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")


def module_of(path):
    rel = os.path.relpath(path, ROOT)[:-3].split(os.sep)
    if rel[-1] in ("mod", "lib"):
        rel = rel[:-1]
    return rel


def strip(text):
    text = re.sub(r"//[^\n]*", "", text)  # comments and docs
    cut = text.find("#[cfg(test)]")
    return text if cut < 0 else text[:cut]


def paths(text, me):
    """Module paths named in the code, resolved against module `me` (a list)."""
    out = set()
    uses = re.findall(r"\buse\s+([^;]+);", text)
    names = re.findall(r"\b((?:crate|super)(?:::[A-Za-z_][A-Za-z0-9_]*)+)", text)
    for u in uses + names:
        u = re.sub(r"\s+", "", u)
        for piece in expand(u):
            parts = piece.split("::")
            if parts[0] == "crate":
                base = []
                parts = parts[1:]
            elif parts[0] == "super":
                base = list(me)
                while parts and parts[0] == "super":
                    base = base[:-1]
                    parts = parts[1:]
            else:
                continue
            out.add(tuple(base + parts))
    return out


def expand(u):
    """`a::{b, c::{d}}` -> [`a::b`, `a::c::d`]."""
    m = re.match(r"^(.*?)::\{(.*)\}$", u)
    if not m:
        return [u]
    head, body = m.group(1), m.group(2)
    items, depth, cur = [], 0, ""
    for ch in body:
        if ch == "," and depth == 0:
            items.append(cur)
            cur = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        cur += ch
    items.append(cur)
    res = []
    for it in items:
        if not it or it == "self":
            res.append(head)
        else:
            res.extend(expand(head + "::" + it))
    return res


def sccs(graph):
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
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
            out.append(comp)

    sys.setrecursionlimit(10000)
    for v in list(graph):
        if v not in index:
            visit(v)
    return out


def main():
    files = {}
    for d, _, fs in os.walk(ROOT):
        for f in fs:
            if f.endswith(".rs"):
                p = os.path.join(d, f)
                files[tuple(module_of(p))] = p
    mods = set(files)

    def owner(path):
        """The longest known module that is a prefix of `path`."""
        for k in range(len(path), 0, -1):
            if path[:k] in mods:
                return path[:k]
        return None

    edges = {m: set() for m in mods}
    for m, p in files.items():
        with open(p, encoding="utf-8") as fh:
            text = strip(fh.read())
        for path in paths(text, list(m)):
            o = owner(path)
            if o is not None and o != m and o != m[: len(o)]:
                # A module's own ancestors (its parent's re-exports) are not edges.
                edges[m].add(o)
    bad = []
    top = {}
    for a, bs in edges.items():
        if not a:
            continue
        for b in bs:
            if b and a[0] != b[0]:
                top.setdefault(a[0], set()).add(b[0])
    for comp in sccs(top):
        if len(comp) > 1:
            bad.append("top-level modules: " + " <-> ".join(sorted(comp)))
    groups = {}
    for a, bs in edges.items():
        for b in bs:
            if a and b and a[0] == b[0]:
                groups.setdefault(a[0], {}).setdefault("::".join(a), set()).add("::".join(b))
    for g, graph in sorted(groups.items()):
        for comp in sccs(graph):
            if len(comp) > 1:
                bad.append(f"inside {g}: " + " <-> ".join(sorted(comp)))
    for line in bad:
        print("import circle:", line)
    print(f"import_cycles: {len(files)} files, {len(bad)} circle(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
