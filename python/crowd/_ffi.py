"""ctypes declarations of crowd.h (the manual; this file only mirrors it) and the library search.

The library is found, in order: $CROWD_LIBRARY (a path), the installed layout written by
`cmake --install` (_config.py beside this file), then the system's loader (libcrowd.so.0).
"""
import ctypes as C
import os

_here = os.path.dirname(os.path.abspath(__file__))


def _find(env, attr, fallback):
    path = os.environ.get(env)
    if path:
        return path
    try:
        from . import _config  # written at install
        cand = os.path.normpath(os.path.join(_here, _config.LIBRARY_DIR, getattr(_config, attr)))
        if os.path.exists(cand):
            return cand
    except ImportError:
        pass
    return fallback


def load_library():
    return C.CDLL(_find("CROWD_LIBRARY", "SONAME", "libcrowd.so.0"))


def load_loaders():
    """The crowd command's readers (scene, clip, run world), for `python -m crowd`."""
    return C.CDLL(_find("CROWD_LOADERS_LIBRARY", "LOADERS_SONAME", "libcrowd_loaders.so.0"))


u32, u64, f32, i32, b8 = C.c_uint32, C.c_uint64, C.c_float, C.c_int, C.c_bool
cstr, vp = C.c_char_p, C.c_void_p
P = C.POINTER

ALLOC_FN = C.CFUNCTYPE(vp, C.c_size_t, C.c_size_t, vp)
FREE_FN = C.CFUNCTYPE(None, vp, vp)
LOG_FN = C.CFUNCTYPE(None, i32, cstr, vp)

LANDMARKS = 33
BONES = 15
LIMBS = 4
MAX_CHANNELS = 16


class Allocator(C.Structure):
    _fields_ = [("alloc", ALLOC_FN), ("free", FREE_FN), ("user", vp)]


class Logger(C.Structure):
    _fields_ = [("log", LOG_FN), ("user", vp)]


class EngineDesc(C.Structure):
    _fields_ = [("seed", u64), ("initial_capacity", u32), ("simd", i32), ("threads", u32),
                ("allocator", Allocator), ("logger", Logger), ("first_instance_id", u64)]


class Rig(C.Structure):
    _fields_ = [("id", u32)]


class Instance(C.Structure):
    _fields_ = [("id", u64)]


class ParameterDesc(C.Structure):
    _fields_ = [("id", cstr), ("min", f32), ("max", f32), ("default_value", f32), ("repeat", b8)]


class LookParameterDesc(C.Structure):
    _fields_ = [("id", cstr), ("axis", i32), ("factor", f32)]


class LookDesc(C.Structure):
    _fields_ = [("parameters", P(LookParameterDesc)), ("parameter_count", u32), ("damping", f32),
                ("max_speed", f32), ("blend", i32)]


class HarmonicParameterDesc(C.Structure):
    _fields_ = [("id", cstr), ("channel", u32), ("direction", i32), ("origin", f32), ("range", f32),
                ("duration", f32)]


class HarmonicDesc(C.Structure):
    _fields_ = [("parameters", P(HarmonicParameterDesc)), ("parameter_count", u32),
                ("channel_timescales", P(f32)), ("channel_count", u32), ("blend", i32)]


class BlinkDesc(C.Structure):
    _fields_ = [("parameters", P(cstr)), ("parameter_count", u32), ("model", i32), ("blend", i32),
                ("mean", f32), ("max_deviation", f32), ("timescale", f32)]


class Quat(C.Structure):
    _fields_ = [("x", f32), ("y", f32), ("z", f32), ("w", f32)]


class LimbsDesc(C.Structure):
    _fields_ = [("frame", i32), ("axis_fix", i32), ("custom_fix", P(Quat)), ("bind_landmarks", P(f32)),
                ("bind_rotations", P(Quat)), ("fallback", i32), ("fallback_sign", f32 * LIMBS),
                ("visibility_threshold", f32), ("hold_half_life", f32), ("reacquire_half_life", f32),
                ("bend_min", f32), ("bend_full", f32), ("smoothing", b8), ("min_cutoff", f32),
                ("beta", f32), ("d_cutoff", f32), ("outputs", i32), ("arm_image_bend", f32)]


class RigDesc(C.Structure):
    _fields_ = [("name", cstr), ("parameters", P(ParameterDesc)), ("parameter_count", u32),
                ("look", P(LookDesc)), ("harmonic", P(HarmonicDesc)), ("blink", P(BlinkDesc)),
                ("limbs", P(LimbsDesc)),
                ("face", C.c_void_p)]  # crowd_face_desc: not bound yet, always NULL


class AddDesc(C.Structure):
    _fields_ = [("rig", Rig), ("count", u32), ("blink_start", i32), ("harmonic_phase", i32)]


FP = P(f32)
IP = vp  # crowd_instance arrays: passed as the address of a uint64 NumPy array (same layout)

# name: (restype, argtypes)
SIGNATURES = {
    "crowd_result_text": (cstr, [i32]),
    "crowd_engine_create": (i32, [P(EngineDesc), P(vp)]),
    "crowd_engine_destroy": (None, [vp]),
    "crowd_last_error": (cstr, [vp]),
    "crowd_engine_threads": (u32, [vp]),
    "crowd_simd_target": (i32, [vp]),
    "crowd_simd_name": (cstr, [i32]),
    "crowd_simd_width": (u32, [i32]),
    "crowd_simd_supported": (b8, [i32]),
    "crowd_look_defaults": (LookDesc, []),
    "crowd_harmonic_parameter_defaults": (HarmonicParameterDesc, [cstr]),
    "crowd_harmonic_defaults": (HarmonicDesc, []),
    "crowd_blink_defaults": (BlinkDesc, []),
    "crowd_limbs_defaults": (LimbsDesc, []),
    "crowd_rig_create": (i32, [vp, P(RigDesc), P(Rig)]),
    "crowd_rig_parameter_index": (i32, [vp, Rig, cstr, P(u32)]),
    "crowd_rig_parameter_count": (u32, [vp, Rig]),
    "crowd_rig_instance_count": (u32, [vp, Rig]),
    "crowd_reserve": (i32, [vp, Rig, u32]),
    "crowd_rig_bytes_per_instance": (i32, [vp, Rig, P(C.c_size_t)]),
    "crowd_rig_settings_digest": (i32, [vp, Rig, P(u64)]),
    "crowd_instances_add": (i32, [vp, P(AddDesc), IP]),
    "crowd_instances_remove": (i32, [vp, IP, u32]),
    "crowd_instances_pause": (i32, [vp, IP, u32, b8]),
    "crowd_instance_paused": (i32, [vp, Instance, P(b8)]),
    "crowd_rig_running_count": (u32, [vp, Rig]),
    "crowd_instance_info": (i32, [vp, Instance, P(u64), P(Rig), P(u32)]),
    "crowd_instance_random": (i32, [vp, Instance, u32, vp]),
    "crowd_field_width": (u32, [i32]),
    "crowd_field_name": (cstr, [i32]),
    "crowd_instances_set": (i32, [vp, i32, u32, IP, u32, vp]),
    "crowd_instances_get": (i32, [vp, i32, u32, IP, u32, vp]),
    "crowd_set": (i32, [vp, Instance, i32, u32, vp]),
    "crowd_get": (i32, [vp, Instance, i32, u32, vp]),
    "crowd_set_look_target": (i32, [vp, Instance, f32, f32, f32, b8]),
    "crowd_blink_now": (i32, [vp, IP, u32]),
    "crowd_rig_column": (i32, [vp, Rig, i32, u32, u32, P(FP), P(u32)]),
    "crowd_rig_columns": (i32, [vp, Rig, i32, u32, P(FP), P(u32)]),
    "crowd_rig_handles": (i32, [vp, Rig, P(P(Instance)), P(u32)]),
    "crowd_get_outputs": (i32, [vp, Instance, vp, u32]),
    "crowd_tick": (i32, [vp, f32]),
    "crowd_tick_range": (i32, [vp, f32, Rig, u32, u32]),
    "crowd_bone_name": (cstr, [i32]),
    "crowd_rest_landmarks": (None, [i32, vp]),
    "crowd_rig_rest_pose": (i32, [vp, Rig, vp, vp]),
    "crowd_snapshot_size": (i32, [vp, P(C.c_size_t)]),
    "crowd_snapshot_save": (i32, [vp, vp, C.c_size_t, P(C.c_size_t)]),
    "crowd_snapshot_load": (i32, [vp, vp, C.c_size_t]),
}

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


def declare(lib, signatures):
    for name, (res, args) in signatures.items():
        f = getattr(lib, name)
        f.restype = res
        f.argtypes = args
    return lib
