"""The binding's tests. ctest runs them with CROWD_LIBRARY, CROWD_LOADERS_LIBRARY and CROWD_CLI
pointing into the build tree (python/CMakeLists.txt); by hand:
    CROWD_LIBRARY=build/engine/libcrowd.so.0 CROWD_LOADERS_LIBRARY=build/python/libcrowd_loaders.so.0 \\
    CROWD_CLI=build/tools/crowd PYTHONPATH=python /usr/bin/python3 -m pytest python/tests
"""
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.dirname(HERE)
SOURCE_DIR = os.path.dirname(PYTHON_DIR)
SIMD_TARGETS = ("scalar", "sse2", "avx2", "avx512")


def shared_data():
    d = os.environ.get("CROWD_SHARED_DATA", os.path.join(SOURCE_DIR, "..", "shared", "data"))
    return d if os.path.isdir(d) else None


@pytest.fixture
def cli():
    path = os.environ.get("CROWD_CLI")
    if not path or not os.path.exists(path):
        pytest.skip("the crowd program is not built (CROWD_CLI unset): nothing to compare with")
    return path


def run_python(args, **kw):
    """python -m crowd ARGS with this interpreter and the test environment."""
    env = dict(os.environ)
    env["PYTHONPATH"] = PYTHON_DIR + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, **kw)


@pytest.fixture
def engine():
    import crowd
    with crowd.Engine(seed=7) as e:
        yield e
