#!/usr/bin/env python3
"""The include graph of crowd's C sources: its layers point one way, and it has no circle.

Layers, from the bottom (a file may include its own layer's files and lower ones only):
  simd/                      the cv_ vector layer
  engine/                    the engine (engine/include: its public headers)
  io/cubism_data.h           plain structs of the Live2D files (a leaf: it includes nothing of ours)
  bench/                     the workloads library and the per-object references
  io/                        the io library (io/include/crowd_io.h: its public header)
  tools/                     the crowd command: one file per command, and their flag parsing
  python/, web/              the bindings: crowd.h and crowd_io.h only
Above engine/, only the engine's public headers (engine/include) are reached, except by bench/
(which measures the engine from inside); above io/, only io/'s own headers (the commands) or its
public header (the bindings).

A circle is looked for between modules, a module being a source and its header (x.c and x.h):
clip.c including landmark_json.h while landmark_json.c includes clip.h is one. A header of no
source of its own (internal.h, json_type.h) is no module: an include of it counts as the
includes of the modules it reaches.

A header of two modes (a part under #ifdef MODE, MODE defined by another file: the kernel
headers' stage part under CROWDI_STAGES, which kernels/stages.h defines) is included once per
source: a file that defines MODE must reach each such header only after its #define (reached
before, through any chain of includes, its include guard would drop the other part), and no
file includes one header twice. The generated crowdi_stage_list.h counts as the kernel header
of every controller of engine/controllers.h's CROWDI_CONTROLLER_LIST.

With --objects FILE.o ... the same is asked of the link graph of those object files (A -> B when
A uses a symbol B defines, read with nm): a circle there is two files calling each other (run.c
and mpi_run.c were one: each used the other's functions through commands.h and mpi_run.h).

usage: check_structure.py [SOURCE_ROOT] [--graph]      (exit 0 when it holds, 1 with the reasons)
       check_structure.py --objects FILE.o ...
"""
import os
import re
import subprocess
import sys

FOLDERS = ["simd", "engine", "io", "bench", "tools", "python", "web/src"]
LAYERS = [  # (rank, predicate on the path relative to the root), first match wins
    (0, lambda p: p.startswith("simd/")),
    (1, lambda p: p.startswith("engine/")),
    (2, lambda p: p == "io/cubism_data.h"),
    (3, lambda p: p.startswith("bench/")),
    (4, lambda p: p.startswith("io/")),
    (5, lambda p: p.startswith("tools/")),
    (6, lambda p: p.startswith("python/") or p.startswith("web/")),
]
PUBLIC = {"engine/include/crowd.h", "io/include/crowd_io.h"}
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
IFDEF = re.compile(r'^\s*#\s*(?:ifdef|if\s+defined\s*\(?)\s*([A-Za-z_]\w*)', re.M)
DEFINE = re.compile(r'^\s*#\s*define\s+([A-Za-z_]\w*)', re.M)
# generated headers: the name, and the tree's headers it includes (from the file it is made of)
GENERATED = {"crowdi_stage_list.h": lambda root, files: [
    f"engine/kernels/{name}.h" for name in re.findall(
        r"X\([A-Z0-9_]+, ([a-z0-9_]+)\)",
        (re.search(r"#define CROWDI_CONTROLLER_LIST\(X\)[^#]*", read(root, "engine/controllers.h")) or [""])[0])
    if f"engine/kernels/{name}.h" in files]}


def read(root, path):
    try:
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as h:
            return h.read()
    except OSError:
        return ""


def layer(path):
    for rank, test in LAYERS:
        if test(path):
            return rank
    raise ValueError(path)


def sources(root):
    out = []
    for folder in FOLDERS:
        for dirpath, dirs, files in os.walk(os.path.join(root, folder)):
            dirs[:] = [d for d in dirs if d not in ("node_modules", "tests", "test", "build")]
            for f in files:
                if f.endswith((".c", ".h", ".cc")):
                    out.append(os.path.relpath(os.path.join(dirpath, f), root))
    return sorted(out)


def resolve(files, includer, name):
    """The file an #include "name" reaches: beside the includer first, else the one file of that
    path suffix in the tree (None: generated or outside the tree)."""
    beside = os.path.normpath(os.path.join(os.path.dirname(includer), name))
    if beside in files:
        return beside
    hits = [f for f in files if f == name or f.endswith("/" + name)]
    if len(hits) > 1:  # prefer the includer's own top folder
        top = includer.split("/")[0]
        hits = [h for h in hits if h.split("/")[0] == top] or hits
    return hits[0] if len(hits) == 1 else None


def module(path):
    return os.path.splitext(path)[0]


def circles(edges):
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = n[0]; n[0] += 1; stack.append(start); on.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = n[0]; n[0] += 1; stack.append(w); on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop(); on.discard(w); comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def code_edges(files, edges):
    """The arrows between modules that have a source, through headers that have none."""
    code = {module(f) for f in files if f.endswith((".c", ".cc"))}

    def reach(m, seen):
        for to in edges.get(m, ()):
            if to in seen:
                continue
            seen.add(to)
            if to not in code:
                reach(to, seen)
        return seen

    return {m: {t for t in reach(m, set()) if t in code and t != m} for m in edges if m in code}


def includes(root, files, f, text):
    """(position, included file) of f's includes in order, generated headers expanded."""
    out = []
    for m in INCLUDE.finditer(text):
        name = m.group(1)
        if os.path.basename(name) in GENERATED and resolve(files, f, name) is None:
            out += [(m.start(), to) for to in GENERATED[os.path.basename(name)](root, files)]
        else:
            to = resolve(files, f, name)
            if to is not None and to != f:
                out.append((m.start(), to))
    return out


def mode_problems(texts, incs):
    """Headers of two modes reached in the wrong mode, and headers included twice by one file."""
    problems, defined_in = [], {}
    for f, text in texts.items():
        for m in DEFINE.finditer(text):
            defined_in.setdefault(m.group(1), []).append((f, m.start()))
    modal = {}  # header -> its mode macros (defined by another file)
    for f, text in texts.items():
        if f.endswith(".h"):
            for name in set(IFDEF.findall(text)):
                if any(g != f for g, _ in defined_in.get(name, ())):
                    modal.setdefault(f, set()).add(name)
    for f in sorted(incs):
        seen = [to for _, to in incs[f]]
        for to in sorted({x for x in seen if seen.count(x) > 1}):
            problems.append(f"{f} includes {to} twice")
    for mode in sorted({m for ms in modal.values() for m in ms}):
        for root_file, at in defined_in[mode]:
            visited = {root_file}

            def walk(f, on):
                for pos, to in incs.get(f, ()):
                    state = on or (f == root_file and pos > at)
                    if to in visited:
                        continue
                    visited.add(to)
                    if mode in modal.get(to, ()) and not state:
                        problems.append(f"{root_file} reaches {to} before it defines {mode}: "
                                        f"the header's {mode} part would be dropped (included in two modes)")
                    walk(to, state)

            walk(root_file, False)
    return problems


def check(root):
    files = set(sources(root))
    problems, edges, texts, incs = [], {}, {}, {}
    for f in sorted(files):
        text = texts[f] = read(root, f)
        incs[f] = includes(root, files, f, text)
        for _, to in incs[f]:
            if module(to) != module(f):
                edges.setdefault(module(f), set()).add(module(to))
            src, dst = layer(f), layer(to)
            if dst > src:
                problems.append(f"{f} includes {to}: points up")
            elif src >= 4 and to.startswith("engine/") and to not in PUBLIC:
                problems.append(f"{f} includes {to}: behind the engine's public headers")
            elif src == 6 and layer(to) < 6 and to not in PUBLIC:
                problems.append(f"{f} includes {to}: the bindings use the public headers only")
    for comp in circles(code_edges(files, edges)):
        problems.append("include circle: " + " <-> ".join(comp))
    problems += mode_problems(texts, incs)
    return problems, edges


def link_circles(objects):
    """Circles between object files, each named by its source's path within the build."""
    defined, used = {}, {}
    for o in objects:
        name = o[:-len(".o")] if o.endswith(".o") else o
        out = subprocess.run(["nm", o], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            p = line.split()
            if len(p) == 3 and p[1] in "TDBRC":
                defined[p[2]] = name
            elif len(p) == 2 and p[0] == "U":
                used.setdefault(name, set()).add(p[1])
    edges = {n: {defined[s] for s in u if s in defined and defined[s] != n} for n, u in used.items()}
    return circles(edges), edges


def main(argv):
    if "--objects" in argv:
        # (CMake passes $<TARGET_OBJECTS:...> as one ;-separated argument)
        objects = [o for a in argv[argv.index("--objects") + 1:] for o in a.split(";") if o]
        found, edges = link_circles(objects)
        for comp in found:
            print("link circle: " + " <-> ".join(os.path.basename(c) for c in comp))
        print(f"{len(objects)} objects, {sum(len(v) for v in edges.values())} arrows, {len(found)} circles")
        return 1 if found or not objects else 0
    root = next((a for a in argv[1:] if not a.startswith("--")),
                os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    problems, edges = check(root)
    if "--graph" in argv:
        for m in sorted(edges):
            print(m, "->", " ".join(sorted(edges[m])))
    for p in problems:
        print(p)
    print(f"{len(edges)} modules with includes, {sum(len(v) for v in edges.values())} arrows, "
          f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
