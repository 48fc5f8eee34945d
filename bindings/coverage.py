#!/usr/bin/python3
"""What of crowd.h and crowd_io.h the Python package and the npm package reach, and what they leave out.

    /usr/bin/python3 bindings/coverage.py          # the table; exit 1 on anything neither
                                                   # bound nor listed in bindings/unbound.txt
A function counts as bound in Python when the package calls it (`lib.crowd_x` outside the
generated file), in the npm package when crowd.js calls the exported `_crowd_x`, or crowd_web.c
(the module's C side, whose cw_* functions crowd.js calls) calls it; an enum's name and parse
functions (crowd_<enum>_name, crowd_<enum>_parse) in both, whose generated enums carry the names. An enum value counts as bound
when the generated files carry it (Python: _generated.py's IntEnum; npm: crowd_enums.js). A
controller's setting (a scalar field of its desc) counts in Python when the controller's
dataclass has a field of its name, in npm when crowd_web.c takes crowd_settings.h's table. A
struct in Python when the package builds or reads it (`_ffi.Camel`, or a bound function passes or
returns it) or a field of such a struct holds it, in npm when crowd_web.c fills it. A function of
the io library (io/include/crowd_io.h) in Python when the package calls it (`L.crowd_io_x`), in
npm when crowd_web.c does. Everything else must be listed with a reason.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate  # noqa: E402

ROOT = generate.ROOT
UNBOUND = os.path.join(ROOT, "bindings", "unbound.txt")
BINDINGS = ("python", "web")


def _read(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return f.read()


def python_sources():
    folder = os.path.join(ROOT, "python", "crowd")
    return "\n".join(_read(os.path.join("python", "crowd", n)) for n in sorted(os.listdir(folder))
                     if n.endswith(".py") and n != "_generated.py")


def read_unbound(path=UNBOUND):
    """{(binding, name): reason}. Lines: `<python|web> <crowd_name> <reason>`; # comments."""
    out = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip() if line.lstrip().startswith("#") else line.strip()
            if not line:
                continue
            parts = line.split(None, 2)
            if len(parts) < 3 or parts[0] not in BINDINGS:
                raise ValueError(f"bindings/unbound.txt:{n}: expected '<python|web> <name> <reason>', got {line!r}")
            out[(parts[0], parts[1])] = parts[2]
    return out


def survey(root=ROOT):
    """{binding: {"functions": {name: bool}, "enum values": {...}, "structs": {...}}}."""
    h = generate.read_header(root)
    py = python_sources()
    js = _read("web/src/crowd.js")
    web_c = _read("web/src/crowd_web.c")
    gen_py = _read("python/crowd/_generated.py")
    gen_js = _read("web/src/crowd_enums.js")
    result = {b: {"functions": {}, "enum values": {}, "structs": {}, "settings": {}, "io functions": {}}
              for b in BINDINGS}
    for name, (ret, params) in h.functions.items():
        result["python"]["functions"][name] = re.search(rf"\blib\.{name}\b", py) is not None
        result["web"]["functions"][name] = (re.search(rf"\b_{name}\b", js) is not None
                                            or re.search(rf"\b{name}\s*\(", web_c) is not None)
        # an enum's crowd_<enum>_name and _parse: both bindings have its names, generated from
        # the header (Python's IntEnum: Enum[name.upper()], member.name.lower(); npm's name tables)
        named = re.fullmatch(r"(crowd_\w+)_(?:name|parse)", name)
        if named and named.group(1) in h.enums:
            result["python"]["functions"][name] = result["web"]["functions"][name] = True
    # the io library's header: Python calls it through libcrowd_loaders (`L.crowd_io_x`), the
    # WebAssembly module from crowd_web.c
    io_h = _read(os.path.join("io", "include", "crowd_io.h"))
    for name in re.findall(r"CROWD_IO_API\s+[^;]*?\b(crowd_io_\w+)\s*\(", io_h):
        result["python"]["io functions"][name] = re.search(rf"\.{name}\b", py) is not None
        result["web"]["io functions"][name] = re.search(rf"\b{name}\s*\(", web_c) is not None
    for cname, items in h.enums.items():
        members, sentinel, prefix = generate.split_enum(items)
        camel = generate._camel(cname)
        for n, v in members:
            short = n[len(prefix):]
            result["python"]["enum values"][n] = re.search(rf"^    {short} = {v}$", gen_py, re.M) is not None
            if cname in h.listed:
                result["web"]["enum values"][n] = f"'{n}'," in gen_js
            else:
                line = re.search(rf"^export const {camel} = .*$", gen_js, re.M)
                result["web"]["enum values"][n] = bool(line) and f" {short.lower()}: {v}" in line.group(0)
    used_in_signatures = set()
    for name, (ret, params) in h.functions.items():
        if result["python"]["functions"][name]:
            for kind in [ret] + [k for k, _ in params]:
                used_in_signatures.add(generate._unqualified(kind.split("[")[0].replace("*", "")))
    # settings: Python's dataclass of the controller has a field of the setting's name (the
    # marshalling copies every such field, _settings in __init__.py); the npm package passes
    # any setting crowd_settings.h lists by name when crowd.js looks it up in SETTINGS
    web_settings = '#include "crowd_settings.h"' in web_c and re.search(r"\bSETTINGS\[", js) is not None
    for controller, settings in generate.controller_settings(h).items():
        block = re.search(rf"^class {generate._camel('crowd_' + controller)}:\n(.*?)(?=^\S)", py, re.S | re.M)
        for name, _ in settings:
            key = f"{controller}.{name}"
            result["python"]["settings"][key] = bool(block) and re.search(rf"^    {name}:", block.group(1), re.M) is not None
            result["web"]["settings"][key] = web_settings
    reached = set()

    def reach(name):  # a struct and the structs its fields hold or point to
        if name in reached or name not in h.structs:
            return
        reached.add(name)
        for _, kind in h.structs[name]:
            for k in ([kind[1], *kind[2]] if isinstance(kind, tuple) else [kind]):
                reach(generate._unqualified(k.split("[")[0].replace("*", "")))

    for cname in h.structs:
        if re.search(rf"\b_ffi\.{generate._camel(cname)}\b", py) or cname in used_in_signatures:
            reach(cname)
    for cname in h.structs:
        result["python"]["structs"][cname] = cname in reached
        result["web"]["structs"][cname] = re.search(rf"\b{cname}\b", web_c) is not None
    return result


def main():
    unbound = read_unbound()
    result = survey()
    missing, listed_but_bound = [], []
    for binding in BINDINGS:
        for kind, table in result[binding].items():
            bound = sum(table.values())
            listed = sum(1 for n, ok in table.items() if not ok and (binding, n) in unbound)
            print(f"{binding:7} {kind:12} {bound:3} of {len(table):3} bound, {listed:3} listed as unbound")
            for n, ok in table.items():
                if not ok and (binding, n) not in unbound:
                    missing.append(f"{binding}: {n} ({kind[:-1]}) is neither bound nor in bindings/unbound.txt")
                if ok and (binding, n) in unbound:
                    listed_but_bound.append(f"{binding}: {n} is bound but still listed in bindings/unbound.txt")
    known = {n for b in result.values() for t in b.values() for n in t}
    stale = [f"bindings/unbound.txt: {n} ({b}) is not in crowd.h or crowd_io.h" for (b, n) in unbound if n not in known]
    for line in missing + listed_but_bound + stale:
        print(line, file=sys.stderr)
    return 1 if missing or listed_but_bound or stale else 0


if __name__ == "__main__":
    sys.exit(main())
