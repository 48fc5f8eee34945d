"""cmake --install: the installed package finds its installed libraries by itself."""
import os
import subprocess
import sys

import pytest


def test_installed_package_runs(tmp_path):
    build, pydir = os.environ.get("CROWD_BUILD_DIR"), os.environ.get("CROWD_INSTALL_PYTHONDIR")
    if not build or not pydir:
        pytest.skip("CROWD_BUILD_DIR / CROWD_INSTALL_PYTHONDIR unset (ctest sets them)")
    if not os.environ.get("CROWD_LOADERS_LIBRARY"):
        pytest.skip("libcrowd_loaders is not built (CROWD_BUILD_TOOLS=OFF): no python -m crowd to install")
    prefix = tmp_path / "prefix"
    r = subprocess.run(["cmake", "--install", build, "--prefix", str(prefix)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    env = {k: v for k, v in os.environ.items()
           if k not in ("CROWD_LIBRARY", "CROWD_LOADERS_LIBRARY", "PYTHONPATH", "LD_LIBRARY_PATH")}
    env["PYTHONPATH"] = str(prefix / pydir)
    code = ("import crowd, sys; e = crowd.Engine(); assert crowd.__file__.startswith(sys.argv[1]), crowd.__file__;"
            "r = e.rig(parameters=[crowd.Parameter('p', 0, 1)]); r.add(3); e.tick(0.1); print(e.simd_name)")
    r = subprocess.run([sys.executable, "-c", code, str(prefix)], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([sys.executable, "-m", "crowd", "run", "--frames", "2"], capture_output=True, text=True,
                       env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "instances           10000" in r.stdout and "checksum" in r.stdout
