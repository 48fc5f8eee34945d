"""The generated bindings: in step with crowd.h, complete, and laid out as the C compiler lays out.

ctest runs this (test `bindings`); by hand: /usr/bin/python3 -m pytest bindings
"""
import ctypes
import importlib.util
import os
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import coverage  # noqa: E402
import generate  # noqa: E402


def load_generated():
    spec = importlib.util.spec_from_file_location("crowd_generated", os.path.join(generate.ROOT, generate.OUTPUTS[0]))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_generated_files_are_what_the_header_gives(tmp_path):
    assert generate.main(["--out", str(tmp_path)]) == 0
    for rel in generate.OUTPUTS:
        with open(os.path.join(generate.ROOT, rel), encoding="utf-8") as committed:
            assert (tmp_path / rel).read_text(encoding="utf-8") == committed.read(), (
                f"{rel} is stale: run /usr/bin/python3 bindings/generate.py and commit the result")


def test_every_function_enum_value_and_struct_is_bound_or_listed(capsys):
    code = coverage.main()
    out = capsys.readouterr()
    assert code == 0, out.err


def test_unbound_list_lines_are_checked(tmp_path):
    bad = tmp_path / "unbound.txt"
    bad.write_text("perl crowd_tick no reason\n")
    with pytest.raises(ValueError, match="unbound.txt:1"):
        coverage.read_unbound(str(bad))


def test_every_declaration_of_the_header_is_read():
    h = generate.read_header()
    with open(os.path.join(generate.ROOT, generate.HEADER), encoding="utf-8") as f:
        text = f.read()
    # independent count: each CROWD_API at the start of a line declares one function
    declared = [line for line in text.splitlines() if line.startswith("CROWD_API ")]
    assert len(h.functions) == len(declared) > 0
    typedefs = text.count("typedef enum") + text.count("typedef struct")
    assert len(h.enums) + len(h.structs) + len(h.opaque) == typedefs


def test_an_unreadable_declaration_is_an_error_not_an_omission(tmp_path):
    root = tmp_path / "src"
    (root / "engine" / "include").mkdir(parents=True)
    with open(os.path.join(generate.ROOT, generate.HEADER), encoding="utf-8") as f:
        text = f.read()
    odd = text.replace("#ifdef __cplusplus\n}", "CROWD_API int (*crowd_odd(void))(int);\n#ifdef __cplusplus\n}")
    assert odd != text
    (root / generate.HEADER).write_text(odd)
    with pytest.raises(generate.HeaderError):
        generate.generate(str(root))


def _layout_program(h):
    """C that prints, from the compiler, every struct's size and fields' offsets and sizes, and
    every enum member's value and every integer #define, one `name value` a line."""
    lines = ['#include <stddef.h>', '#include <stdio.h>', '#include "crowd.h"', "int main(void) {"]
    for cname, fields in h.structs.items():
        lines.append(f'    printf("sizeof {cname} %zu\\n", sizeof({cname}));')
        for fname, _ in fields:
            lines.append(f'    printf("offsetof {cname}.{fname} %zu\\n", offsetof({cname}, {fname}));')
            lines.append(f'    printf("sizeof {cname}.{fname} %zu\\n", sizeof((({cname} *)0)->{fname}));')
    for items in h.enums.values():
        for name, _ in items:
            lines.append(f'    printf("value {name} %lld\\n", (long long){name});')
    for name in h.defines:
        lines.append(f'    printf("value {name} %lld\\n", (long long)({name}));')
    lines += ["    return 0;", "}"]
    return "\n".join(lines) + "\n"


def test_structs_enums_and_constants_match_the_c_compiler(tmp_path):
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler (set CC)")
    h = generate.read_header()
    src = tmp_path / "layout.c"
    src.write_text(_layout_program(h))
    exe = tmp_path / "layout"
    r = subprocess.run([cc, "-std=c11", "-I", os.path.join(generate.ROOT, "engine", "include"), str(src), "-o", str(exe)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    facts = dict(line.rsplit(" ", 1) for line in subprocess.run([str(exe)], capture_output=True, text=True,
                                                                check=True).stdout.splitlines())
    g = load_generated()
    checked = 0
    for cname, cls in g.STRUCTS.items():
        assert ctypes.sizeof(cls) == int(facts[f"sizeof {cname}"]), cname
        for fname, _ in cls._fields_:
            field = getattr(cls, fname)
            assert field.offset == int(facts[f"offsetof {cname}.{fname}"]), f"{cname}.{fname}"
            assert field.size == int(facts[f"sizeof {cname}.{fname}"]), f"{cname}.{fname}"
            checked += 1
    for cname, cls in g.ENUMS.items():
        members, sentinel, prefix = generate.split_enum(h.enums[cname])
        assert len(cls) == len(members)
        for m in cls:
            assert int(m) == int(facts[f"value {prefix}{m.name}"]), f"{prefix}{m.name}"
            checked += 1
        if sentinel:
            assert getattr(g, sentinel[0][len("CROWD_"):]) == int(facts[f"value {sentinel[0]}"])
    for name in h.defines:
        assert getattr(g, name[len("CROWD_"):]) == int(facts[f"value {name}"]), name
    assert checked > 200


def test_signatures_name_every_function_the_library_exports():
    """Each prototype names a symbol of libcrowd (when the test run points at one)."""
    path = os.environ.get("CROWD_LIBRARY")
    if not path:
        pytest.skip("CROWD_LIBRARY unset (ctest sets it)")
    lib = ctypes.CDLL(path)
    g = load_generated()
    for name in g.SIGNATURES:
        assert hasattr(lib, name), name


def test_a_setting_added_to_the_header_reaches_the_npm_package_and_is_flagged_for_python(tmp_path):
    """What a merge that adds a limbs setting does: regenerating puts it in the module's table,
    the types and Python's dataclass (with the C library's default); the committed package lacks
    it until then."""
    root = tmp_path / "src"
    (root / "engine" / "include").mkdir(parents=True)
    with open(os.path.join(generate.ROOT, generate.HEADER), encoding="utf-8") as f:
        text = f.read()
    grown = text.replace("    crowd_limb_outputs outputs;", "    float knee_twist_limit;\n    crowd_limb_outputs outputs;", 1)
    assert grown != text
    (root / generate.HEADER).write_text(grown)
    files = generate.generate(str(root))
    assert '{"limbs", "knee_twist_limit", offsetof(crowd_limbs_desc, knee_twist_limit), CW_FLOAT}' in files[
        "web/src/crowd_settings.h"]
    assert "  knee_twist_limit?: number;" in files["web/src/crowd_enums.d.ts"]
    assert '"knee_twist_limit": "float"' in files["python/crowd/_generated.py"]
    assert "    knee_twist_limit: float = _LIMBS.knee_twist_limit\n" in files["python/crowd/_descs.py"]
    result = coverage.survey(str(root))
    assert result["web"]["settings"]["limbs.knee_twist_limit"] is True
    assert result["python"]["settings"]["limbs.knee_twist_limit"] is False
    assert result["python"]["settings"]["limbs.bend_min"] is True


def test_crowd_d_ts_spells_no_c_desc_field():
    """Issue 32's goal: the npm package's desc keys that mirror a crowd.h desc field (under its C
    name or the JavaScript name JS_DESCS gives it) come from the generator; crowd.d.ts hand-types
    only the keys no C field has (parsed Cubism JSON: model3, files, json, list; lod, which groups
    crowd_rig_desc's lod_interval and lod_every_tick as the generated LodDesc)."""
    import re
    h = generate.read_header()
    mirrored = {name for fields in h.structs.values() for name, _ in fields}
    mirrored |= {ch["name"] for row in generate.JS_DESCS for ch in row[4].values() if "name" in ch}
    with open(os.path.join(generate.ROOT, "web", "src", "crowd.d.ts"), encoding="utf-8") as f:
        text = f.read()
    descs = text[text.index("export declare function readPose("):text.index("export declare function live2dFiles(")]
    descs = re.sub(r"/\*.*?\*/|//[^\n]*", "", descs, flags=re.S)
    keys = set(re.findall(r"\b([a-z_0-9]+)\??: ", descs.split("\n", 1)[1]))
    assert keys & mirrored == set(), "crowd.d.ts types C desc fields by hand: generate them (JS_DESCS)"
    assert keys == {"model3", "files", "json", "list", "lod"}
