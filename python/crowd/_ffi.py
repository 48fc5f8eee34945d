"""The library search, and the ctypes declarations of libcrowd_loaders (python -m crowd): the io
library's crowd_io_* functions (io/include/crowd_io.h) and two helpers of the package's own.

crowd.h's own declarations are generated into _generated.py (bindings/generate.py). The library
is found, in order: $CROWD_LIBRARY (a path), the installed layout written by `cmake --install`
(_config.py beside this file), the library `pip install` puts beside this file, then the system's
loader (libcrowd.so.0).
"""
import ctypes as C
import os
from typing import Any, Dict, Optional, Tuple

_here = os.path.dirname(os.path.abspath(__file__))


def _find(env: str, attr: str, fallback: str) -> str:
    path = os.environ.get(env)
    if path:
        return path
    try:
        from . import _config  # type: ignore[attr-defined]  # written at install
        cand = os.path.normpath(os.path.join(_here, _config.LIBRARY_DIR, getattr(_config, attr)))
        if os.path.exists(cand):
            return cand
    except ImportError:
        pass
    beside = os.path.join(_here, fallback)  # pip install ./python ships the library in the package
    if os.path.exists(beside):
        return beside
    return fallback


def load_library() -> C.CDLL:
    return C.CDLL(_find("CROWD_LIBRARY", "SONAME", "libcrowd.so.0"))


def load_loaders() -> C.CDLL:
    """The io library (crowd_io.h: scene, clip, run world, traces), for `python -m crowd`."""
    return C.CDLL(_find("CROWD_LOADERS_LIBRARY", "LOADERS_SONAME", "libcrowd_loaders.so.0"))


u32, u64, f32, i32, b8 = C.c_uint32, C.c_uint64, C.c_float, C.c_int, C.c_bool
cstr, vp = C.c_char_p, C.c_void_p
P = C.POINTER

# crowd.h's structures, callbacks and prototypes: generated (bindings/generate.py), not mirrored
from ._generated import (SIGNATURES, Allocator, Logger, EngineDesc, Rig, Instance, ParameterDesc,  # noqa: E402
                         LookParameterDesc, LookDesc, HarmonicParameterDesc, HarmonicDesc, BlinkDesc, Quat,
                         LimbsDesc, FaceMappingDesc, FaceDesc, RigDesc, AddDesc, FingersDesc, PhysicsDesc,
                         LipsyncDesc, PoseDesc, PosePartDesc, PoseGroupDesc, ExpressionDesc, ExpressionItemDesc,
                         ExpressionParameterDesc, MotionDesc, MotionClip, MotionStartDesc, MotionStatus, MotionEvent)
from . import _generated as _g  # noqa: E402

ALLOC_FN = _g.AllocatorAllocFn
FREE_FN = _g.AllocatorFreeFn
LOG_FN = _g.LoggerLogFn

LANDMARKS = _g.LANDMARK_COUNT
BONES = _g.BONE_COUNT
LIMBS = _g.LIMB_COUNT
MAX_CHANNELS = _g.MAX_CHANNELS

FP = P(f32)
IP = vp  # crowd_instance arrays: passed as the address of a uint64 NumPy array (same layout)

# libcrowd_loaders: crowd_io.h's functions (generated from the header, as crowd.h's are) and the
# package's two helpers of its own (python/loaders/crowd_loaders.c)
LOADER_SIGNATURES: Dict[str, Tuple[Any, Any]] = {
    **_g.IO_SIGNATURES,
    "crowd_loaders_sizeof": (C.c_size_t, [cstr]),
    "crowd_loaders_tick_loop": (C.c_double, [vp, f32, u32]),
}


def declare(lib: C.CDLL, signatures: Dict[str, Tuple[Any, Any]]) -> C.CDLL:
    for name, (res, args) in signatures.items():
        f = getattr(lib, name)
        f.restype = res
        f.argtypes = args
    return lib


_library: Optional[C.CDLL] = None


def library() -> C.CDLL:
    """libcrowd with crowd.h's prototypes, loaded once (the package and its generated descs share it)."""
    global _library
    if _library is None:
        _library = declare(load_library(), SIGNATURES)
    return _library
