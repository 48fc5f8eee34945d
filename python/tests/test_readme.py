"""The README's Python section: its first fenced example runs as written."""
import os
import re
import subprocess
import sys

import pytest

from conftest import PYTHON_DIR, SOURCE_DIR


def first_python_example():
    path = os.environ.get("CROWD_README", os.path.join(SOURCE_DIR, "README.md"))
    text = open(path).read()
    m = re.search(r"^## Python\n(.*?)(?=^## )", text, re.S | re.M)
    assert m, "README.md has no '## Python' section"
    block = re.search(r"^```(\w*)\n(.*?)^```", m.group(1), re.S | re.M)
    assert block and block.group(1) == "python", "the section's first fenced block is not Python"
    return block.group(2)


def test_readme_python_example_runs(tmp_path):
    code = first_python_example()
    script = tmp_path / "example.py"
    script.write_text(code)
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[0] in ("scalar", "sse2", "avx2", "avx512")
