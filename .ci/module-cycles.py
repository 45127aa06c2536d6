#!/usr/bin/env python3
"""Module cycles inside each crate of the workspace, from the sources.

Every path a module names (`use crate::a::b`, `crate::a::f()` in a body, `super::x`, `use
crate::{a, b::c}`) is an edge from that module to the module the path reaches. For each module,
its child modules form a graph: A -> B when anything in A's subtree names anything in B's subtree.
A child naming its parent, or the reverse, is not a cycle (a `mod.rs` re-exporting its children,
children naming the parent's types). `#[cfg(test)]` modules are left out, as the compiler leaves
them out of the library. Exit 1 when any crate has a cycle, printing each with the files behind
every edge.

cargo-modules (`cargo modules dependencies --acyclic`) reports cycles between items, and sees only
`use` declarations, not paths written in function bodies; this reads both, at module granularity.

Usage: .ci/module-cycles.py [--known FILE] [CRATE_SRC_DIR ...]   (default: every crate)

With --known FILE (one `cycle in ...` header per line, `#` comments), the cycles listed there are
tolerated while they last: a cycle not in the file fails, and so does a listed cycle that is gone
(remove its line), so the list only shrinks.
"""
import os
import re
import sys
from collections import defaultdict

CRATES = ["schema-core/src", "schema-derive/src", "cli/src", "test-support/src"]


def strip(text):
    """Source without comments, string and char literals (kept as blanks, lines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    out.append("\n" if text[i] == "\n" else "")
                    i += 1
        elif c == "r" and re.match(r'r#*"', text[i:i + 10]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            hashes = re.match(r'r(#*)"', text[i:]).group(1)
            end = text.find('"' + hashes, i + 2 + len(hashes))
            out.append(" ")
            i = n if end < 0 else end + 1 + len(hashes)
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('""')
            i = j + 1
        elif c == "'" and re.match(r"'(\\.|[^\\'])'", text[i:i + 12]) or (c == "'" and re.match(r"'\\u\{[0-9a-fA-F]+\}'", text[i:i + 12])):
            m = re.match(r"'(\\u\{[0-9a-fA-F]+\}|\\.|[^\\'])'", text[i:])
            out.append("' '")
            i += len(m.group(0))
        else:
            out.append(c)
            i += 1
    return "".join(out)


def drop_test_modules(text):
    """Removes `#[cfg(test)] mod NAME { ... }` blocks."""
    while True:
        m = re.search(r"#\[cfg\(test\)\]\s*(pub(\([^)]*\))?\s+)?mod\s+\w+\s*\{", text)
        if not m:
            return text
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        text = text[:m.start()] + text[j:]


def modules(src):
    """{module path (tuple): file} for a crate's source folder."""
    found = {}
    for root, _, files in os.walk(src):
        for f in files:
            if not f.endswith(".rs"):
                continue
            rel = os.path.relpath(os.path.join(root, f), src)
            parts = rel[:-3].split(os.sep)
            if parts[-1] in ("lib", "main", "mod"):
                parts = parts[:-1]
            found[tuple(parts)] = os.path.join(root, f)
    return found


def use_paths(tree, prefix=""):
    """Expands a use-tree (`a::{b, c::d}`) into full paths."""
    tree = tree.strip()
    m = re.match(r"^([\w:]*?)(::)?\{(.*)\}$", tree, re.S)
    if not m:
        return [prefix + tree]
    head = prefix + m.group(1) + ("::" if m.group(1) else "")
    parts, depth, cur = [], 0, ""
    for ch in m.group(3):
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += {"{": 1, "}": -1}.get(ch, 0)
        cur += ch
    parts.append(cur)
    return [p for part in parts if part.strip() for p in use_paths(part, head)]


def references(text):
    paths = []
    for m in re.finditer(r"\buse\s+((?:crate|super|self)\b[^;]*);", text):
        paths += use_paths(re.sub(r"\s+", "", m.group(1)))
    body = re.sub(r"\buse\s+(?:crate|super|self)\b[^;]*;", "", text)
    paths += re.findall(r"\b((?:crate|super)(?:::\w+)+)", body)
    return paths


def resolve(path, here, known):
    parts = path.split("::")
    if parts[0] == "crate":
        base, rest = (), parts[1:]
    else:
        base = here
        while parts and parts[0] in ("super", "self"):
            if parts.pop(0) == "super":
                base = base[:-1]
        rest = parts
    target = base
    for p in rest:
        if target + (p,) in known:
            target = target + (p,)
        else:
            break
    return target


def check(src):
    known = modules(src)
    inline = set()
    edges = defaultdict(lambda: defaultdict(set))
    for module, path in known.items():
        text = drop_test_modules(strip(open(path, encoding="utf-8").read()))
        for ref in references(text):
            target = resolve(ref, module, known)
            common = 0
            while common < min(len(module), len(target)) and module[common] == target[common]:
                common += 1
            if common == len(module) or common == len(target):
                continue  # parent and child
            parent = module[:common]
            edges[parent][module[common]].add((target[common], os.path.relpath(path, src)))
    cycles = []
    for parent, succ in sorted(edges.items()):
        graph = {a: {b for b, _ in bs} for a, bs in succ.items()}
        for comp in sccs(sorted(set(graph) | {b for bs in graph.values() for b in bs}), graph):
            crate = os.path.basename(os.path.dirname(src)) if os.path.basename(src) == "src" else src
            where = "::".join((crate,) + parent)
            lines = [f"cycle in {where}: {' <-> '.join(comp)}"]
            for a in comp:
                for b in sorted(graph.get(a, ())):
                    if b in comp:
                        files = sorted({f for t, f in succ[a] if t == b})
                        lines.append(f"    {a} -> {b}  ({', '.join(files)})")
            cycles.append("\n".join(lines))
    return cycles


def sccs(nodes, succ):
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(succ.get(v, ())):
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
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in nodes:
        if v not in index:
            visit(v)
    return out


def main():
    args = sys.argv[1:]
    known, known_file = None, None
    if args[:1] == ["--known"]:
        known_file = args[1]
        with open(known_file, encoding="utf-8") as f:
            known = {l.strip() for l in f if l.strip() and not l.startswith("#")}
        args = args[2:]
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    srcs = args or [os.path.join(root, c) for c in CRATES]
    found = []
    for src in srcs:
        found += check(os.path.normpath(src))
    for c in found:
        print(c)
    headers = {c.splitlines()[0] for c in found}
    if known is None:
        print(f"{len(found)} module cycles" if found else "no module cycles")
        sys.exit(1 if found else 0)
    new, gone = sorted(headers - known), sorted(known - headers)
    for h in new:
        print(f"error: new module cycle: {h}")
    for h in gone:
        print(f"error: listed cycle is gone, remove its line from {known_file}: {h}")
    print(f"{len(found)} module cycles, {len(headers & known)} of them known, {len(new)} new, {len(gone)} fixed")
    sys.exit(1 if new or gone else 0)


if __name__ == "__main__":
    main()
