"""Builds libcrowd (and libcrowd_loaders, the crowd command's readers `python -m crowd` uses) with
CMake from the source tree around this folder, and puts them inside the package, where
crowd/_ffi.py finds them with no environment variable. The metadata is in pyproject.toml.

CROWD_BUILD_DIR=<a configured build tree> reuses that tree (only the two libraries are brought up
to date there) instead of configuring one under setuptools' build folder; CROWD_CMAKE_ARGS adds
options to a fresh configure.
"""
import glob
import os
import shlex
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.realpath(__file__))
ROOT = os.path.dirname(HERE)
LIBRARIES = {"crowd_shared": "libcrowd.so.0", "crowd_loaders": "libcrowd_loaders.so.0"}


def _run(cmd):
    print("crowd setup.py:", " ".join(shlex.quote(c) for c in cmd), flush=True)
    subprocess.run(cmd, check=True)


class BuildWithLibcrowd(build_py):
    def run(self):
        super().run()
        if not os.path.exists(os.path.join(ROOT, "engine", "include", "crowd.h")):
            raise SystemExit(f"crowd setup.py: {ROOT} is not the crowd source tree (engine/include/crowd.h "
                             "is missing): install from the tree's python/ folder")
        build = os.environ.get("CROWD_BUILD_DIR")
        if not build:
            build = os.path.join(os.path.abspath(self.build_lib), "..", "crowd-cmake")
            _run(["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release", "-DCROWD_BUILD_TESTS=OFF",
                  "-DCROWD_BUILD_BENCH=OFF", *shlex.split(os.environ.get("CROWD_CMAKE_ARGS", ""))])
        jobs = str(os.cpu_count() or 2)
        _run(["cmake", "--build", build, "-j", jobs, "--target", *LIBRARIES])
        package = os.path.join(self.build_lib, "crowd")
        for target, soname in LIBRARIES.items():
            found = [p for p in glob.glob(os.path.join(build, "**", soname), recursive=True) if os.path.isfile(p)]
            if not found:
                raise SystemExit(f"crowd setup.py: {soname} ({target}) is not in {build} after the build")
            shutil.copy2(os.path.realpath(found[0]), os.path.join(package, soname))


class WithNativeLibraries(Distribution):
    """The wheel holds libraries for this platform: tag it so (not py3-none-any)."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildWithLibcrowd}, distclass=WithNativeLibraries)
