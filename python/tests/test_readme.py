"""The README's Python section runs as written: its shell block (a venv, `pip install ./python`,
the example) in a scratch folder that holds the source tree's python/ (linked) and the section's
Python block as example.py, with no CROWD_LIBRARY or PYTHONPATH: the installed package finds
its own library."""
import os
import re
import subprocess
import sys

import pytest

from conftest import PYTHON_DIR, SOURCE_DIR


def python_section():
    path = os.environ.get("CROWD_README", os.path.join(SOURCE_DIR, "README.md"))
    with open(path, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^## Python\n(.*?)(?=^## )", text, re.S | re.M)
    assert m, "README.md has no '## Python' section"
    return re.findall(r"^```(\w*)\n(.*?)^```", m.group(1), re.S | re.M)


def first_blocks():
    """{kind: the section's first block of that kind} (later blocks are run on their own)."""
    out = {}
    for kind, text in python_section():
        out.setdefault(kind, text)
    return out


def test_readme_python_section_has_the_install_then_the_example():
    kinds = [kind for kind, _ in python_section()][:2]
    assert kinds == ["sh", "python"], "the section starts with the install commands (sh), then the example"


def test_readme_example_runs_from_the_source_tree(tmp_path):
    """The example alone, against this tree's package (the library from ctest's environment)."""
    code = first_blocks()["python"]
    script = tmp_path / "example.py"
    script.write_text(code)
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[0] in ("scalar", "sse2", "avx2", "avx512")


def test_readme_install_commands_run_as_written(tmp_path):
    if os.environ.get("CROWD_UNDER_ASAN"):
        pytest.skip("under ASan the installed library would need the sanitizer runtime preloaded")
    if not os.environ.get("CROWD_BUILD_DIR"):
        pytest.skip("CROWD_BUILD_DIR unset (ctest sets it): a full CMake build inside pip takes minutes")
    if subprocess.run(["/usr/bin/python3", "-c", "import venv, ensurepip, setuptools, wheel"],
                      capture_output=True).returncode:
        pytest.skip("Debian's python3-venv, python3-setuptools or python3-wheel is missing (tools/dev installs them)")
    blocks = first_blocks()
    (tmp_path / "python").symlink_to(PYTHON_DIR)
    (tmp_path / "example.py").write_text(blocks["python"])
    env = {k: v for k, v in os.environ.items()
           if k not in ("CROWD_LIBRARY", "CROWD_LOADERS_LIBRARY", "PYTHONPATH", "LD_LIBRARY_PATH", "VIRTUAL_ENV")}
    env["PIP_NO_INDEX"] = "1"  # offline, as the README promises: nothing may come from an index
    r = subprocess.run(["bash", "-euo", "pipefail", "-c", blocks["sh"]], cwd=tmp_path, capture_output=True,
                       text=True, env=env, timeout=900)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
    assert r.stdout.strip().splitlines()[-1].split()[0] in ("scalar", "sse2", "avx2", "avx512")
    # the package and its libraries are the venv's copies, not the source tree's
    where = subprocess.run(["venv/bin/python", "-c", "import crowd, crowd._ffi as f; print(crowd.__file__);"
                            "print(f._find('CROWD_LIBRARY', 'SONAME', 'libcrowd.so.0'));"
                            "print(f._find('CROWD_LOADERS_LIBRARY', 'LOADERS_SONAME', 'libcrowd_loaders.so.0'))"],
                           cwd=tmp_path, capture_output=True, text=True, env=env, check=True).stdout.split()
    venv = str(tmp_path / "venv")
    assert all(w.startswith(venv) for w in where), where
    r = subprocess.run(["venv/bin/python", "-m", "crowd", "run", "--frames", "2"], cwd=tmp_path, capture_output=True,
                       text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "checksum" in r.stdout


def test_readme_model3_example_runs_on_the_cubism_samples(tmp_path):
    """The section's second Python block (a model3 crowd) as written, in the folder of the
    Cubism samples of the golden traces (../shared/data/cubism/inputs)."""
    from conftest import shared_data
    d = shared_data()
    inputs = os.path.join(d, "cubism", "inputs") if d else None
    if not inputs or not os.path.isdir(os.path.join(inputs, "Haru")):
        pytest.skip("the Cubism samples (../shared/data/cubism/inputs) are absent")
    code = [text for kind, text in python_section() if kind == "python"][1]
    script = tmp_path / "model3_example.py"
    script.write_text(code)
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120, cwd=inputs)
    assert r.returncode == 0, r.stderr
    mouth = [float(x) for x in r.stdout.replace("[", " ").replace("]", " ").split()]
    assert len(mouth) == 3 and all(0 < m <= 1 for m in mouth)  # the voice opened every mouth
