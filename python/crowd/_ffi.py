"""The library search, and the ctypes declarations of libcrowd_loaders (python -m crowd).

crowd.h's own declarations are generated into _generated.py (bindings/generate.py). The library
is found, in order: $CROWD_LIBRARY (a path), the installed layout written by `cmake --install`
(_config.py beside this file), the library `pip install` puts beside this file, then the system's
loader (libcrowd.so.0).
"""
import ctypes as C
import os
from typing import Any, Dict, Tuple

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
    """The crowd command's readers (scene, clip, run world), for `python -m crowd`."""
    return C.CDLL(_find("CROWD_LOADERS_LIBRARY", "LOADERS_SONAME", "libcrowd_loaders.so.0"))


u32, u64, f32, i32, b8 = C.c_uint32, C.c_uint64, C.c_float, C.c_int, C.c_bool
cstr, vp = C.c_char_p, C.c_void_p
P = C.POINTER

# crowd.h's structures, callbacks and prototypes: generated (bindings/generate.py), not mirrored
from ._generated import (SIGNATURES, Allocator, Logger, EngineDesc, Rig, Instance, ParameterDesc,  # noqa: E402
                         LookParameterDesc, LookDesc, HarmonicParameterDesc, HarmonicDesc, BlinkDesc, Quat,
                         LimbsDesc, FaceMappingDesc, FaceDesc, RigDesc, AddDesc)
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

LOADER_SIGNATURES = {
    "crowd_loaders_sizeof": (C.c_size_t, [cstr]),
    "crowd_loaders_scene_load": (i32, [cstr, P(vp)]),
    "crowd_loaders_scene_free": (None, [vp]),
    "crowd_loaders_scene_path": (cstr, [vp]),
    "crowd_loaders_scene_frames": (u32, [vp]),
    "crowd_loaders_scene_dt": (f32, [vp]),
    "crowd_loaders_scene_seed": (u64, [vp]),
    "crowd_loaders_scene_override": (None, [vp, i32, u32, i32, f32, i32, u64]),
    "crowd_loaders_scene_check_bones": (i32, [vp]),
    "crowd_loaders_world_create": (i32, [vp, i32, u32, P(vp)]),
    "crowd_loaders_world_destroy": (None, [vp]),
    "crowd_loaders_world_engine": (vp, [vp]),
    "crowd_loaders_world_instance_count": (u32, [vp]),
    "crowd_loaders_world_prepare_frame": (None, [vp, u32, f32]),
    "crowd_loaders_world_checksum": (u64, [vp]),
    "crowd_loaders_clip_load": (i32, [cstr, P(vp)]),
    "crowd_loaders_clip_free": (None, [vp]),
    "crowd_loaders_clip_rows": (u32, [vp]),
    "crowd_loaders_clip_times": (P(C.c_double), [vp]),
    "crowd_loaders_clip_landmarks": (FP, [vp]),
    "crowd_loaders_clip_lines": (P(u32), [vp]),
    "crowd_loaders_clip_path": (cstr, [vp]),
    "crowd_loaders_error": (i32, [i32, cstr]),
    "crowd_loaders_tick_loop": (C.c_double, [vp, f32, u32]),
    "crowd_loaders_world_save": (i32, [vp, u32, cstr]),
    "crowd_loaders_world_resume": (i32, [vp, cstr, P(u32)]),
    "crowd_loaders_trace_open": (i32, [i32, cstr, P(vp)]),
    "crowd_loaders_trace_close": (i32, [vp, i32]),
    "crowd_loaders_world_write_traces": (None, [vp, u32, vp, vp]),
}


def declare(lib: C.CDLL, signatures: Dict[str, Tuple[Any, Any]]) -> C.CDLL:
    for name, (res, args) in signatures.items():
        f = getattr(lib, name)
        f.restype = res
        f.argtypes = args
    return lib
