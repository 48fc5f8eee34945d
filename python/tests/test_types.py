"""The package's type hints: every function typed, and the whole consistent by mypy's reading
(Debian's `mypy`, which tools/dev installs); py.typed marks the package as typed."""
import os
import subprocess
import sys

import pytest

from conftest import PYTHON_DIR


def test_every_function_is_typed_and_mypy_agrees():
    if os.environ.get("CROWD_UNDER_ASAN"):
        pytest.skip("the plain build's python test reads the same sources (mypy runs no native code)")
    if subprocess.run([sys.executable, "-c", "import mypy"], capture_output=True).returncode:
        pytest.skip("mypy is not installed (Debian: mypy)")
    package = os.path.join(PYTHON_DIR, "crowd")
    files = [os.path.join(package, f) for f in ("__init__.py", "_ffi.py", "_generated.py")]
    r = subprocess.run([sys.executable, "-m", "mypy", "--ignore-missing-imports", "--no-incremental",
                        "--cache-dir", os.devnull, "--disallow-untyped-defs", "--disallow-incomplete-defs", *files],
                       capture_output=True, text=True, cwd=PYTHON_DIR, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr


def test_the_package_says_it_is_typed():
    assert os.path.isfile(os.path.join(PYTHON_DIR, "crowd", "py.typed"))
    with open(os.path.join(PYTHON_DIR, "pyproject.toml"), encoding="utf-8") as f:
        assert "py.typed" in f.read()
