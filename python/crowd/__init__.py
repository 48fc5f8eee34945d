"""crowd: the SIMD-batched crowd animation engine from Python (ctypes over libcrowd.so).

crowd.h is the manual; this package follows it (its declarations are generated from it into
_generated.py by bindings/generate.py):

    with crowd.Engine(seed=1) as engine:
        rig = engine.rig(parameters=[crowd.Parameter("ParamBreath", 0, 1)],
                         harmonic=crowd.Harmonic([crowd.HarmonicParameter("ParamBreath")]))
        avatars = rig.add(1000)                     # NumPy array of handles (uint64)
        out = rig.column("output", 0)               # zero-copy view of the output column
        engine.tick(1 / 60)
        print(out.array[:4])

Columns (Rig.column, Rig.columns) are views on the engine's memory, never copies. Reach the
array through the view (view.array, np.asarray(view), view[...]): each access checks that the
engine is open and that the memory has not moved, and raises crowd.ClosedError or
crowd.StaleViewError instead of touching freed or moved memory. A view goes stale by the
header's rules: after the next call that adds (Rig.add) or reserves (Rig.reserve) instances of
its rig, loads a snapshot (Engine.load) or closes the engine; removing instances (Engine.remove)
also makes the views stale here, because their length changes. Pausing moves rows but keeps
views valid (Rig.handles() tells which row is whose). Views are writable where the C API allows
(inputs, state, pose and root; outputs and bones are read only), and each keeps its engine
alive.

A bare ndarray taken from a view (a = view.array) is not checked again. By default the engine
allocates through this package (allocator="numpy"): such an array keeps the engine's block it
points into alive, so it can go stale but never reads freed memory. With allocator="c" the C
library allocates and a kept bare array must obey the header's rules itself.

Errors from the engine raise a subclass of crowd.Error with .code (the crowd_result), .name
("CROWD_ERR_RANGE") and .message (crowd_last_error(), which names the field).
"""
import ctypes as _C
import dataclasses as _dc
import enum as _enum
import functools as _functools
import math as _math
import operator as _operator
import os
import threading as _threading
from threading import get_ident as _get_ident
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, TypeVar, Union

import numpy as np
import numpy.typing as npt

from . import _ffi

__all__ = [
    "Engine", "Rig", "Column", "Error", "ClosedError", "StaleViewError", "BusyError",
    "Parameter", "LookParameter", "Look", "HarmonicParameter", "Harmonic", "Blink", "Limbs", "Face", "FaceMapping",
    "RigDesc", "LimbFallback", "FaceSource", "FaceCurve", "face_source_name", "face_source_bit",
    "face_rotation_from_matrix", "face_standard_mapping", "face_defaults", "face_mapping_defaults",
    "FACE_SCORE_COUNT", "FACE_SOURCE_COUNT", "FACE_STANDARD_MAPPING_COUNT", "lipsync_rms",
    "Result", "Simd", "Blend", "Axis", "Direction", "BlinkModel", "PoseFrame", "AxisFix", "Fallback", "LimbOutputs", "Limb",
    "Bone", "BlinkStart", "HarmonicPhase", "Field",
    "result_text", "simd_name", "simd_width", "simd_supported", "field_width", "field_name", "bone_name",
    "rest_landmarks", "parameter_defaults", "look_parameter_defaults", "look_defaults", "harmonic_parameter_defaults", "harmonic_defaults", "blink_defaults",
    "limbs_defaults", "Fingers", "Hand", "HandBone", "fingers_defaults", "hand_bone_name", "hand_from_handedness",
    "rest_hand_landmarks", "Live2D", "Model3", "Motion3", "Exp3", "Pose3", "Physics3", "Physics", "LipSync", "Lipsync", "Motion",
    "PosePart", "Pose", "ExpressionParameter", "Expression", "Expressions", "Motions", "WavAudio", "HandTrack",
    "MotionStatus", "MOTION_EVENT_DTYPE", "IoError", "ExpressionBlend", "MotionPriority", "LodInterval", "Controller",
    "HAND_LANDMARK_COUNT", "HAND_BONE_COUNT", "ThreadError", "ReadOnlyError", "RepeatedHandleError", "NotStoredError", "MAX_RIGS", "MAX_PARAMETERS", "MAX_ENTRIES", "LANDMARK_COUNT", "BONE_COUNT", "MAX_CHANNELS", "VERSION",
]

lib = _ffi.declare(_ffi.load_library(), _ffi.SIGNATURES)

# ---------------------------------------------------------------------------------------------
# Constants and enums: crowd.h's, generated (bindings/generate.py writes _generated.py). Wherever
# an enum is taken, its name as a string works too ("avx2", "base", "left_upper_arm"); a plain int
# is passed to the engine as it is.
# ---------------------------------------------------------------------------------------------
from ._generated import (MAX_RIGS, MAX_PARAMETERS, MAX_ENTRIES, MAX_CHANNELS, LANDMARK_COUNT,  # noqa: E402
                         BONE_COUNT, FACE_SCORE_COUNT, FACE_SOURCE_COUNT, FACE_STANDARD_MAPPING_COUNT,
                         Result, Simd, Blend, Axis, Direction, BlinkModel, PoseFrame, AxisFix, LimbFallback,
                         LimbOutputs, Limb, Bone, FaceSource, FaceCurve, BlinkStart, HarmonicPhase, Field,
                         Hand, HandBone, HAND_LANDMARK_COUNT, HAND_BONE_COUNT, ExpressionBlend, MotionPriority,
                         LodInterval, Controller)
from . import _generated  # noqa: E402

Fallback = LimbFallback  # crowd_limb_fallback, by the name this package has always used
VERSION = (_generated.VERSION_MAJOR, _generated.VERSION_MINOR, _generated.VERSION_PATCH)


# Type hints: an enum is taken as its member, its name ("avx2") or its number; handles as one
# handle or anything NumPy makes a uint64 array of; values as anything it makes float32 of.
EnumLike = Union[int, str]
Handles = Union[int, np.integer, npt.ArrayLike]
Floats = npt.ArrayLike
Logger = Callable[[int, str], None]


# Fields a column may be written through (crowd.h §7: the writable ones); the rest are read only.
_MAX_LANDMARK = 1e9  # crowd.h §6, CROWD_FIELD_POSE: coordinates within +-1e9, visibility in [0, 1]
_POSE_LO = np.tile(np.array([-_MAX_LANDMARK] * 3 + [0], np.float32), _ffi.LANDMARKS)
_POSE_HI = np.tile(np.array([_MAX_LANDMARK] * 3 + [1], np.float32), _ffi.LANDMARKS)
_READ_ONLY_FIELDS = frozenset((Field.OUTPUT, Field.BONE_WORLD, Field.BONE_LOCAL))


def _enum_value(cls: Any, value: EnumLike) -> int:
    if isinstance(value, str):
        try:
            return int(cls[value.upper()])
        except KeyError:
            names = ", ".join(m.name.lower() for m in cls)
            raise ValueError(f"{cls.__name__}: unknown name {value!r} (one of {names})") from None
    return _int(value, cls.__name__, 32, signed=True)  # a C enum; the engine judges the value


def _int(value: Any, what: str, bits: int = 32, signed: bool = False) -> int:
    """value as the C integer type of `bits` bits: every integer argument goes through here, so
    none is silently truncated by ctypes (2**32 + 1 would reach the engine as 1). Refused with
    TypeError (not an integer: 2.5, "3") or RangeError (outside the type), naming `what`."""
    try:
        v = _operator.index(value)
    except TypeError:
        raise TypeError(f"{what}: an integer, not {type(value).__name__} {value!r}") from None
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    if not lo <= v <= hi:
        raise RangeError(f"{what}: {v} is outside {lo} .. {hi}")
    return v


def _u64(value: Any, what: str) -> int:
    return _int(value, what, 64)


# ---------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------
class Error(Exception):
    """An engine call failed. code: the crowd_result; name: its C name; message: the engine's
    message (crowd_last_error, naming the field), or the code's text when it has none."""

    code: Optional[int] = None

    def __init__(self, message: str, code: Optional[int] = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code

    @property
    def name(self) -> Optional[str]:
        return "CROWD_" + Result(self.code).name if self.code is not None else None

    @property
    def text(self) -> Optional[str]:
        return result_text(self.code) if self.code is not None else None


class NullError(Error):
    code = Result.ERR_NULL


class HandleError(Error):
    code = Result.ERR_HANDLE


class NotFiniteError(Error, ValueError):
    code = Result.ERR_NOT_FINITE


class RangeError(Error, ValueError):
    code = Result.ERR_RANGE


class UnknownIdError(Error, KeyError):
    code = Result.ERR_UNKNOWN_ID

    def __str__(self) -> str:  # KeyError would quote the message
        return self.message


class DuplicateIdError(Error, ValueError):
    code = Result.ERR_DUPLICATE_ID


class BadEnumError(Error, ValueError):
    code = Result.ERR_BAD_ENUM


class CapacityError(Error):
    code = Result.ERR_CAPACITY


class OutOfMemoryError(Error, MemoryError):
    code = Result.ERR_OUT_OF_MEMORY


class UnsupportedError(Error):
    code = Result.ERR_UNSUPPORTED


class WrongRigError(Error):
    code = Result.ERR_WRONG_RIG


class NoControllerError(Error):
    code = Result.ERR_NO_CONTROLLER


class BadSnapshotError(Error):
    code = Result.ERR_BAD_SNAPSHOT


class ThreadError(Error):
    code = Result.ERR_THREAD


class ReadOnlyError(Error, ValueError):
    code = Result.ERR_READ_ONLY


class RepeatedHandleError(Error, ValueError):
    code = Result.ERR_REPEATED_HANDLE


class NotStoredError(Error, LookupError):
    """The rig's limbs outputs leave that bone rotation out (Limbs.outputs)."""
    code = Result.ERR_NOT_STORED


class ClosedError(Error):
    """The engine was closed: its memory is gone, and so is every view on it."""


class StaleViewError(Error):
    """The view's memory moved or its length changed (crowd.h §1: adding or reserving
    instances of its rig, removing instances, loading a snapshot): take a new view."""


class BusyError(Error, RuntimeError):
    """Refused because of a tick in flight (see Engine): a tick or tick_range over rows another
    thread is ticking now, or any engine call made from inside a tick on the same thread (a
    logger callback), which could only wait for itself."""


_ERRORS = {c.code: c for c in (NullError, HandleError, NotFiniteError, RangeError, UnknownIdError,
                               DuplicateIdError, BadEnumError, CapacityError, OutOfMemoryError,
                               UnsupportedError, WrongRigError, NoControllerError, BadSnapshotError, ThreadError,
                               ReadOnlyError, RepeatedHandleError, NotStoredError)}


def _error(code: int, message: str) -> Error:
    cls = _ERRORS.get(code)
    if cls is None:
        err = Error(message, code)
        return err
    return cls(message)


# ---------------------------------------------------------------------------------------------
# Module functions (crowd.h's getters that take no engine)
# ---------------------------------------------------------------------------------------------
def result_text(code: int) -> str:
    return lib.crowd_result_text(_int(code, "code", 32, signed=True)).decode()


def simd_name(simd: EnumLike) -> Optional[str]:
    s = lib.crowd_simd_name(_enum_value(Simd, simd))
    return s.decode() if s is not None else None


def simd_width(simd: EnumLike) -> int:
    return lib.crowd_simd_width(_enum_value(Simd, simd))


def simd_supported(simd: EnumLike) -> bool:
    return bool(lib.crowd_simd_supported(_enum_value(Simd, simd)))


def field_width(field: EnumLike) -> int:
    return lib.crowd_field_width(_enum_value(Field, field))


def field_name(field: EnumLike) -> Optional[str]:
    s = lib.crowd_field_name(_enum_value(Field, field))
    return s.decode() if s is not None else None


def bone_name(bone: EnumLike) -> Optional[str]:
    s = lib.crowd_bone_name(_enum_value(Bone, bone))
    return s.decode() if s is not None else None


def face_source_name(source: EnumLike) -> Optional[str]:
    """MediaPipe's categoryName of a source ("_neutral", "jawOpen", ...; "headYaw" ...)."""
    s = lib.crowd_face_source_name(_face_source(source))
    return s.decode() if s is not None else None


def face_source_bit(source: EnumLike) -> int:
    """CROWD_FACE_SOURCE_BIT: the source's bit in Face.smoothed_sources as a mask."""
    s = _face_source(source)
    if not 0 <= s < FACE_SOURCE_COUNT:
        raise BadEnumError(f"face_source_bit: source {s} is outside 0 .. {FACE_SOURCE_COUNT - 1}")
    return 1 << s


def face_rotation_from_matrix(matrix: Floats) -> np.ndarray:
    """crowd_face_rotation_from_matrix: the unit quaternion (x, y, z, w), w >= 0, of MediaPipe's
    facialTransformationMatrixes entry (16 floats, column-major, as MediaPipe lists them)."""
    m = np.ascontiguousarray(matrix, dtype=np.float32).reshape(-1)
    if m.size != 16:
        raise ValueError(f"face_rotation_from_matrix: expected 16 floats, got {m.size}")
    q = _ffi.Quat()
    res = lib.crowd_face_rotation_from_matrix(m.ctypes.data, _C.byref(q))
    if res:
        raise _error(res, f"crowd_face_rotation_from_matrix: {result_text(res)}")
    return np.array([q.x, q.y, q.z, q.w], np.float32)


def lipsync_rms(samples: Floats, frames: Optional[int] = None, channels: int = 1) -> float:
    """crowd_lipsync_rms: the lip sync level of one frame's block of audio, as the Cubism
    samples compute it (crowd.h "Lip sync level"): samples holds `frames` frames of `channels`
    interleaved samples in the handler's scale (a float32 array is used as it is; other numbers
    become float32). frames defaults to every whole frame the samples hold; more frames than
    they hold is refused (ValueError), never read past."""
    a = np.ascontiguousarray(samples, dtype=np.float32).reshape(-1)
    c = _int(channels, "channels")
    n = a.size // c if c else 0
    f = n if frames is None else _int(frames, "frames", 64)
    if c and f > n:
        raise ValueError(f"lipsync_rms: {f} frames of {c} channels need {f * c} samples, got {a.size}")
    return float(lib.crowd_lipsync_rms(a.ctypes.data, f, c))


def _face_source(value: EnumLike) -> int:
    """A FaceSource from its enum name ("jaw_open"), MediaPipe's name ("jawOpen") or a number."""
    if isinstance(value, str) and value.upper() not in FaceSource.__members__:
        if value in _FACE_SOURCE_BY_MEDIAPIPE:
            return _FACE_SOURCE_BY_MEDIAPIPE[value]
    return _enum_value(FaceSource, value)


def rest_landmarks(frame: EnumLike = "mediapipe_world") -> np.ndarray:
    """The canonical rest pose (33, 4): x, y, z, visibility in `frame`."""
    out = np.empty((LANDMARK_COUNT, 4), np.float32)
    lib.crowd_rest_landmarks(_enum_value(PoseFrame, frame), out.ctypes.data)
    return out


def hand_bone_name(bone: EnumLike) -> Optional[str]:
    """crowd_hand_bone_name: "hand", "thumb_metacarpal", ... "little_distal"."""
    s = lib.crowd_hand_bone_name(_enum_value(HandBone, bone))
    return s.decode() if s else None


def hand_from_handedness(label: str, mirrored: bool = False) -> Hand:
    """crowd_hand_from_handedness: the slot of a hand MediaPipe labels "Left" or "Right"."""
    if label not in ("Left", "Right"):
        raise ValueError(f"handedness label {label!r}: expected 'Left' or 'Right'")
    return Hand(lib.crowd_hand_from_handedness(label == "Right", bool(mirrored)))


def rest_hand_landmarks(frame: EnumLike = "mediapipe_world", hand: EnumLike = "left") -> np.ndarray:
    """The relaxed rest hand (64,): 21 landmarks x, y, z in `frame`, then presence 1."""
    out = np.empty(3 * HAND_LANDMARK_COUNT + 1, np.float32)
    lib.crowd_rest_hand_landmarks(_enum_value(PoseFrame, frame), _enum_value(Hand, hand), out.ctypes.data)
    return out


# ---------------------------------------------------------------------------------------------
# Descs: dataclasses mirroring crowd.h's, with the C library's own defaults
# ---------------------------------------------------------------------------------------------
_LOOK = lib.crowd_look_defaults()
_HPAR = lib.crowd_harmonic_parameter_defaults(b"")
_HARM = lib.crowd_harmonic_defaults()
_BLINK = lib.crowd_blink_defaults()
_LIMBS = lib.crowd_limbs_defaults()
_FACE = lib.crowd_face_defaults()
_FINGERS = lib.crowd_fingers_defaults()
_FACE_MAP = lib.crowd_face_mapping_defaults(0, b"")
_FACE_SOURCE_BY_MEDIAPIPE = {lib.crowd_face_source_name(int(s)).decode(): int(s) for s in FaceSource}


@_dc.dataclass
class Parameter:
    """crowd_parameter_desc: min <= max, finite; default anywhere (clamped on output)."""
    id: str
    min: float
    max: float
    default: float = 0.0
    repeat: bool = False


@_dc.dataclass
class LookParameter:
    """crowd_look_parameter_desc: parameter `id` receives pos[axis] * factor."""
    id: str
    axis: EnumLike = Axis.X
    factor: float = 0.0


@_dc.dataclass
class Look:
    """crowd_look_desc (defaults: crowd_look_defaults())."""
    parameters: Sequence[LookParameter] = ()
    damping: float = _LOOK.damping
    max_speed: float = _LOOK.max_speed
    blend: EnumLike = Blend(_LOOK.blend)


@_dc.dataclass
class HarmonicParameter:
    """crowd_harmonic_parameter_desc (defaults: crowd_harmonic_parameter_defaults(id))."""
    id: str
    channel: int = _HPAR.channel
    direction: EnumLike = Direction(_HPAR.direction)
    origin: float = _HPAR.origin
    range: float = _HPAR.range
    duration: float = _HPAR.duration


@_dc.dataclass
class Harmonic:
    """crowd_harmonic_desc. channel_timescales None (with no entries): [1]."""
    parameters: Sequence[HarmonicParameter] = ()
    channel_timescales: Optional[Sequence[float]] = None
    blend: EnumLike = Blend(_HARM.blend)


@_dc.dataclass
class Blink:
    """crowd_blink_desc (defaults: crowd_blink_defaults())."""
    parameters: Sequence[str] = ()
    model: EnumLike = BlinkModel(_BLINK.model)
    blend: EnumLike = Blend(_BLINK.blend)
    mean: float = _BLINK.mean
    max_deviation: float = _BLINK.max_deviation
    timescale: float = _BLINK.timescale


@_dc.dataclass
class Limbs:
    """crowd_limbs_desc (defaults: crowd_limbs_defaults()). custom_fix, bind_rotations: (15, 4)
    quaternions x, y, z, w; bind_landmarks: (33, 4)."""
    frame: EnumLike = PoseFrame(_LIMBS.frame)
    axis_fix: EnumLike = AxisFix(_LIMBS.axis_fix)
    custom_fix: Optional[Floats] = None
    bind_landmarks: Optional[Floats] = None
    bind_rotations: Optional[Floats] = None
    fallback: EnumLike = Fallback(_LIMBS.fallback)
    fallback_sign: Sequence[float] = tuple(_LIMBS.fallback_sign)
    visibility_threshold: float = _LIMBS.visibility_threshold
    hold_half_life: float = _LIMBS.hold_half_life
    reacquire_half_life: float = _LIMBS.reacquire_half_life
    bend_min: float = _LIMBS.bend_min
    bend_full: float = _LIMBS.bend_full
    smoothing: bool = bool(_LIMBS.smoothing)
    min_cutoff: float = _LIMBS.min_cutoff
    beta: float = _LIMBS.beta
    d_cutoff: float = _LIMBS.d_cutoff
    outputs: EnumLike = LimbOutputs(_LIMBS.outputs)
    arm_image_bend: float = _LIMBS.arm_image_bend


@_dc.dataclass
class Fingers:
    """crowd_fingers_desc (defaults: crowd_fingers_defaults()). custom_fix, bind_rotations: (32, 4)
    quaternions x, y, z, w (the left hand's 16 bones, then the right's); bind_landmarks: (2, 64)."""
    frame: EnumLike = PoseFrame(_FINGERS.frame)
    mirrored: bool = bool(_FINGERS.mirrored)
    axis_fix: EnumLike = AxisFix(_FINGERS.axis_fix)
    custom_fix: Optional[Floats] = None
    bind_landmarks: Optional[Floats] = None
    bind_rotations: Optional[Floats] = None
    presence_threshold: float = _FINGERS.presence_threshold
    hold_half_life: float = _FINGERS.hold_half_life
    reacquire_half_life: float = _FINGERS.reacquire_half_life
    bend_min: float = _FINGERS.bend_min
    bend_full: float = _FINGERS.bend_full
    smoothing: bool = bool(_FINGERS.smoothing)
    min_cutoff: float = _FINGERS.min_cutoff
    beta: float = _FINGERS.beta
    d_cutoff: float = _FINGERS.d_cutoff
    joint_limits: bool = bool(_FINGERS.joint_limits)
    mcp_min: float = _FINGERS.mcp_min
    mcp_max: float = _FINGERS.mcp_max
    pip_min: float = _FINGERS.pip_min
    pip_max: float = _FINGERS.pip_max
    dip_min: float = _FINGERS.dip_min
    dip_max: float = _FINGERS.dip_max


@_dc.dataclass
class FaceMapping:
    """crowd_face_mapping_desc: source -> parameter `id`, value offset + gain*curve(source).
    source: a FaceSource, its name ("jaw_open", "head_yaw") or MediaPipe's ("jawOpen")."""
    source: EnumLike
    id: str
    gain: float = _FACE_MAP.gain
    offset: float = _FACE_MAP.offset
    curve: EnumLike = FaceCurve(_FACE_MAP.curve)


def face_standard_mapping() -> List[FaceMapping]:
    """crowd_face_standard_mapping(): the entries for the standard Cubism parameters."""
    p = lib.crowd_face_standard_mapping()
    return [FaceMapping(FaceSource(p[k].source), p[k].id.decode(), p[k].gain, p[k].offset, FaceCurve(p[k].curve))
            for k in range(FACE_STANDARD_MAPPING_COUNT)]


@_dc.dataclass
class Face:
    """crowd_face_desc (defaults: crowd_face_defaults(), the standard mapping included).
    smoothed_sources: the sources the One Euro filter smooths, as sources (names or FaceSource)
    or as a mask of face_source_bit()s."""
    mapping: Sequence[FaceMapping] = _dc.field(default_factory=face_standard_mapping)
    blend: EnumLike = Blend(_FACE.blend)
    presence_threshold: float = _FACE.presence_threshold
    handoff_half_life: float = _FACE.handoff_half_life
    smoothed_sources: Union[int, Sequence[EnumLike]] = ()
    min_cutoff: float = _FACE.min_cutoff
    beta: float = _FACE.beta
    d_cutoff: float = _FACE.d_cutoff


@_dc.dataclass
class RigDesc:
    """crowd_rig_desc: a controller is present when its field is set (True: its defaults)."""
    name: Optional[str] = None
    parameters: Sequence[Parameter] = ()
    look: Optional[Look] = None
    harmonic: Optional[Harmonic] = None
    blink: Optional[Blink] = None
    limbs: Optional[Limbs] = None
    face: Optional[Face] = None
    fingers: Optional[Fingers] = None
    physics: Optional["Physics"] = None
    lipsync: Optional["LipSync"] = None
    pose: Optional["Pose"] = None
    expressions: Optional["Expressions"] = None
    motions: Optional["Motions"] = None
    lod_interval: EnumLike = 0  # LodInterval: "1", "2", "4", "8" or the enum; the update interval new instances start with
    lod_every_tick: Union[int, Sequence[EnumLike]] = 0  # controllers (Controller or names) that run every tick, or their bit mask


def parameter_defaults(id: str) -> Parameter:
    """crowd_parameter_defaults(id): min 0, max 1, default 0, no repeat."""
    d = lib.crowd_parameter_defaults(id.encode())
    return Parameter(id, d.min, d.max, d.default_value, bool(d.repeat))


def look_parameter_defaults(id: str) -> LookParameter:
    """crowd_look_parameter_defaults(id): axis x, factor 1 (LookParameter's own factor default
    is 0, as it always was)."""
    d = lib.crowd_look_parameter_defaults(id.encode())
    return LookParameter(id, Axis(d.axis), d.factor)


def look_defaults() -> Look:
    return Look()


def harmonic_parameter_defaults(id: str) -> HarmonicParameter:
    return HarmonicParameter(id)


def harmonic_defaults() -> Harmonic:
    return Harmonic()


def blink_defaults() -> Blink:
    return Blink()


def limbs_defaults() -> Limbs:
    return Limbs()


def face_defaults() -> Face:
    return Face()


def fingers_defaults() -> Fingers:
    return Fingers()


def face_mapping_defaults(source: EnumLike, id: str) -> FaceMapping:
    return FaceMapping(source, id)


def _coerce(cls: Any, value: Any) -> Any:
    """A desc from a dataclass, a dict of its fields, a tuple of its positional fields, or True."""
    if value is None or isinstance(value, cls):
        return value
    if value is True:
        return cls()
    if isinstance(value, dict):
        return cls(**value)
    if isinstance(value, (tuple, list)):
        return cls(*value)
    if isinstance(value, str) and cls in (Parameter, LookParameter, HarmonicParameter):
        raise TypeError(f"{cls.__name__}: give the fields, not only the id {value!r}")
    raise TypeError(f"expected {cls.__name__}, a dict or a tuple, got {type(value).__name__}")


def _quat_array(value: Floats, count: int, what: str, keep: list) -> Any:
    a = np.ascontiguousarray(value, dtype=np.float32).reshape(-1)
    if a.size != count * 4:
        raise ValueError(f"{what}: expected {count} x 4 floats, got {a.size}")
    keep.append(a)
    return _C.cast(a.ctypes.data, _C.POINTER(_ffi.Quat))


def _settings(c_desc: Any, controller: str, values: Any) -> Any:
    """c_desc (the C library's defaults) with every setting of the controller (the scalar fields
    crowd.h gives its desc: _generated.SETTINGS) the dataclass `values` holds; one it does not
    hold keeps the library's default."""
    for name, kind in _generated.SETTINGS[controller].items():
        if not hasattr(values, name):
            continue
        v = getattr(values, name)
        if kind in _generated.ENUMS:
            v = _enum_value(_generated.ENUMS[kind], v)
        elif kind == "bool":
            v = bool(v)
        elif kind in _INTEGER_BITS:
            v = _int(v, f"{controller}.{name}", _INTEGER_BITS[kind])
        setattr(c_desc, name, v)
    return c_desc


_INTEGER_BITS = {"uint32": 32, "uint64": 64}  # the integer kinds of _generated.SETTINGS


def _marshal_rig(desc: RigDesc) -> Tuple[Any, list]:
    """The crowd_rig_desc and everything it points to (kept alive by the returned list)."""
    keep: list = []

    def text(s: Union[str, bytes]) -> bytes:
        b = s.encode() if isinstance(s, str) else s
        keep.append(b)
        return b

    def array(ctype: Any, items: Sequence[Any]) -> Any:
        arr = (ctype * max(len(items), 1))(*items)
        keep.append(arr)
        return arr

    rd = _ffi.RigDesc()
    if desc.name is not None:
        rd.name = text(desc.name)
    params = [_coerce(Parameter, p) for p in desc.parameters]
    rd.parameters = array(_ffi.ParameterDesc, [
        _ffi.ParameterDesc(text(p.id), p.min, p.max, p.default, bool(p.repeat)) for p in params])
    rd.parameter_count = len(params)
    if desc.look is not None:
        lk = _coerce(Look, desc.look)
        lp = [_coerce(LookParameter, p) for p in lk.parameters]
        ld = _settings(lib.crowd_look_defaults(), "look", lk)
        ld.parameters = array(_ffi.LookParameterDesc, [
            _ffi.LookParameterDesc(text(p.id), _enum_value(Axis, p.axis), p.factor) for p in lp])
        ld.parameter_count = len(lp)
        keep.append(ld)
        rd.look = _C.pointer(ld)
    if desc.harmonic is not None:
        hm = _coerce(Harmonic, desc.harmonic)
        hp = [_coerce(HarmonicParameter, p) for p in hm.parameters]
        ts = list(hm.channel_timescales) if hm.channel_timescales is not None else []
        hd = _settings(lib.crowd_harmonic_defaults(), "harmonic", hm)
        hd.parameters = array(_ffi.HarmonicParameterDesc, [
            _ffi.HarmonicParameterDesc(text(p.id), _int(p.channel, f"harmonic.parameters[{k}].channel"),
                                       _enum_value(Direction, p.direction), p.origin, p.range, p.duration)
            for k, p in enumerate(hp)])
        hd.parameter_count = len(hp)
        hd.channel_timescales = array(_ffi.f32, ts) if hm.channel_timescales is not None else None
        hd.channel_count = len(ts)
        keep.append(hd)
        rd.harmonic = _C.pointer(hd)
    if desc.blink is not None:
        bk = _coerce(Blink, desc.blink)
        ids = [text(p) for p in bk.parameters]
        bd = _settings(lib.crowd_blink_defaults(), "blink", bk)
        bd.parameters = array(_ffi.cstr, ids)
        bd.parameter_count = len(ids)
        keep.append(bd)
        rd.blink = _C.pointer(bd)
    if desc.limbs is not None:
        lm = _coerce(Limbs, desc.limbs)
        ls = _settings(lib.crowd_limbs_defaults(), "limbs", lm)
        ls.custom_fix = ls.bind_rotations = None
        ls.bind_landmarks = None
        if lm.custom_fix is not None:
            ls.custom_fix = _quat_array(lm.custom_fix, BONE_COUNT, "limbs.custom_fix", keep)
        if lm.bind_landmarks is not None:
            a = np.ascontiguousarray(lm.bind_landmarks, dtype=np.float32).reshape(-1)
            if a.size != LANDMARK_COUNT * 4:
                raise ValueError(f"limbs.bind_landmarks: expected 33 x 4 floats, got {a.size}")
            keep.append(a)
            ls.bind_landmarks = _C.cast(a.ctypes.data, _ffi.FP)
        if lm.bind_rotations is not None:
            ls.bind_rotations = _quat_array(lm.bind_rotations, BONE_COUNT, "limbs.bind_rotations", keep)
        signs = list(lm.fallback_sign)
        if len(signs) != 4:
            raise ValueError(f"limbs.fallback_sign: expected 4 signs, got {len(signs)}")
        ls.fallback_sign = (_ffi.f32 * 4)(*signs)
        keep.append(ls)
        rd.limbs = _C.pointer(ls)
    if desc.fingers is not None:
        fg = _coerce(Fingers, desc.fingers)
        gs = _settings(lib.crowd_fingers_defaults(), "fingers", fg)
        gs.custom_fix = gs.bind_rotations = None
        gs.bind_landmarks = None
        bones = 2 * HAND_BONE_COUNT
        if fg.custom_fix is not None:
            gs.custom_fix = _quat_array(fg.custom_fix, bones, "fingers.custom_fix", keep)
        if fg.bind_landmarks is not None:
            a = np.ascontiguousarray(fg.bind_landmarks, dtype=np.float32).reshape(-1)
            if a.size != 2 * (3 * HAND_LANDMARK_COUNT + 1):
                raise ValueError(f"fingers.bind_landmarks: expected 2 x 64 floats, got {a.size}")
            keep.append(a)
            gs.bind_landmarks = _C.cast(a.ctypes.data, _ffi.FP)
        if fg.bind_rotations is not None:
            gs.bind_rotations = _quat_array(fg.bind_rotations, bones, "fingers.bind_rotations", keep)
        keep.append(gs)
        rd.fingers = _C.pointer(gs)
    if desc.face is not None:
        fc = _coerce(Face, desc.face)
        entries = [_coerce(FaceMapping, m) for m in fc.mapping]
        smoothed: Any = fc.smoothed_sources
        if isinstance(smoothed, (list, tuple, set, frozenset, np.ndarray)):  # sources; else a mask (_settings checks it)
            smoothed = sum({face_source_bit(s) for s in smoothed})
        fd = _settings(lib.crowd_face_defaults(), "face", _dc.replace(fc, smoothed_sources=smoothed))
        fd.mapping = array(_ffi.FaceMappingDesc, [
            _ffi.FaceMappingDesc(_face_source(m.source), text(m.id), m.gain, m.offset, _enum_value(FaceCurve, m.curve))
            for m in entries])
        fd.mapping_count = len(entries)
        keep.append(fd)
        rd.face = _C.pointer(fd)
    if desc.physics is not None:
        ph = desc.physics
        if not isinstance(ph, Physics):
            raise TypeError(f"physics: expected crowd.Physics, got {type(ph).__name__}")
        src = ph.source.physics
        if src is None:
            raise ValueError(f"physics: {ph.source.path!r} has no physics")
        keep.append(ph.source)
        pd = _ffi.PhysicsDesc.from_buffer_copy(src)
        _settings(pd, "physics", _dc.replace(ph, fps=src.fps if ph.fps is None else ph.fps))
        keep.append(pd)
        rd.physics = _C.pointer(pd)
    if desc.lipsync is not None:
        ls_ = _coerce(LipSync, desc.lipsync)
        ids = [text(p) for p in ls_.parameters]
        lsd = _settings(lib.crowd_lipsync_defaults(), "lipsync", ls_)
        lsd.parameters = array(_ffi.cstr, ids)
        lsd.parameter_count = len(ids)
        keep.append(lsd)
        rd.lipsync = _C.pointer(lsd)
    if desc.pose is not None:
        po: Pose = desc.pose if isinstance(desc.pose, Pose) else Pose(desc.pose)  # type: ignore[arg-type]
        if isinstance(po.source, Live2D):
            src = po.source.pose
            if src is None:
                raise ValueError(f"pose: {po.source.path!r} has no pose")
            keep.append(po.source)
            psd = _ffi.PoseDesc.from_buffer_copy(src)
        else:
            psd = lib.crowd_pose_defaults()
            groups = []
            for grp in po.source:
                parts = [p if isinstance(p, PosePart) else PosePart(p) for p in grp]
                pa = array(_ffi.PosePartDesc, [
                    _ffi.PosePartDesc(text(p.id), array(_ffi.cstr, [text(x) for x in p.links]), len(p.links))
                    for p in parts])
                groups.append(_ffi.PoseGroupDesc(pa, len(parts)))
            psd.groups = array(_ffi.PoseGroupDesc, groups)
            psd.group_count = len(groups)
        if po.fade_in is not None:
            psd.fade_in = po.fade_in
        keep.append(psd)
        rd.pose = _C.pointer(psd)
    if desc.expressions is not None:
        ex: Expressions = (desc.expressions if isinstance(desc.expressions, Expressions)
                           else Expressions(desc.expressions))  # type: ignore[arg-type]
        items: list = []
        for k, e in enumerate(ex.expressions):
            if isinstance(e, Live2D):
                lib_ = e.expression
                if lib_ is None:
                    raise ValueError(f"expressions[{k}]: {e.path!r} has no expressions")
                keep.append(e)
                items += [_ffi.ExpressionItemDesc.from_buffer_copy(lib_.expressions[j])
                          for j in range(lib_.expression_count)]
            else:
                it: Expression = _coerce(Expression, e)
                ps = [_coerce(ExpressionParameter, p) for p in it.parameters]
                pa = array(_ffi.ExpressionParameterDesc, [
                    _ffi.ExpressionParameterDesc(text(p.id), p.value, _enum_value(ExpressionBlend, p.blend)) for p in ps])
                items.append(_ffi.ExpressionItemDesc(pa, len(ps), it.fade_in, it.fade_out))
        exd = _settings(lib.crowd_expression_defaults(), "expression", ex)
        exd.expressions = array(_ffi.ExpressionItemDesc, items)
        exd.expression_count = len(items)
        keep.append(exd)
        rd.expression = _C.pointer(exd)
    if desc.motions is not None:
        mo: Motion = desc.motions if isinstance(desc.motions, Motion) else Motion(desc.motions)  # type: ignore[arg-type]
        clips: list = []
        model = next((c for c in mo.clips if isinstance(c, Model3)), None)
        for k, c in enumerate(mo.clips):
            m = c.motion if isinstance(c, Live2D) else None
            if m is None:
                raise ValueError(f"motions.clips[{k}]: expected a Live2D source with motions (Model3, Motion3)")
            keep.append(c)
            clips += [_ffi.MotionClip.from_buffer_copy(m.clips[j]) for j in range(m.clip_count)]
        eye = mo.eye_blink_ids if mo.eye_blink_ids is not None else (model.eye_blink_ids if model else [])
        lip = mo.lip_sync_ids if mo.lip_sync_ids is not None else (model.lip_sync_ids if model else [])
        if mo.idle_clips is not None:
            idle = [_int(i, "motions.idle_clips") for i in mo.idle_clips]
        else:
            idle = list(model.motion_groups.get("Idle", ())) if model else []
            if model is not None and mo.clips[0] is not model:  # the model's clips start after the others'
                start = sum(int(c.clip_count) for c in mo.clips[:list(mo.clips).index(model)])
                idle = [i + start for i in idle]
        md = _settings(lib.crowd_motion_defaults(), "motion", mo)
        md.clips = array(_ffi.MotionClip, clips)
        md.clip_count = len(clips)
        md.eye_blink_ids = array(_ffi.cstr, [text(i) for i in eye])
        md.eye_blink_count = len(eye)
        md.lip_sync_ids = array(_ffi.cstr, [text(i) for i in lip])
        md.lip_sync_count = len(lip)
        md.idle_clips = array(_ffi.u32, idle)
        md.idle_count = len(idle)
        keep.append(md)
        rd.motion = _C.pointer(md)
    rd.lod_interval = _enum_value(LodInterval, desc.lod_interval if not isinstance(desc.lod_interval, str)
                                  or desc.lod_interval.upper().startswith("INTERVAL") else "interval_" + desc.lod_interval)
    every: Any = desc.lod_every_tick
    if isinstance(every, (list, tuple, set, frozenset)):
        every = sum({1 << _enum_value(Controller, c) for c in every})
    rd.lod_every_tick = _u64(every, "lod_every_tick")
    return rd, keep


# ---------------------------------------------------------------------------------------------
# Live2D files, WAV audio and hand tracks through the io library (crowd_io.h, libcrowd_loaders)
# ---------------------------------------------------------------------------------------------
_LOADERS: Any = None


def _io() -> Any:
    global _LOADERS
    if _LOADERS is None:
        _LOADERS = _ffi.declare(_ffi.load_loaders(), _ffi.LOADER_SIGNATURES)
    return _LOADERS


class IoError(Error):
    """A file the io library refused (status 2, bad input) or could not read (1). The library
    printed the reason, naming the file and the JSON path or line, on standard error."""


def _io_check(status: int, what: str, path: str) -> None:
    if status:
        kind = "bad input" if status == 2 else "failed"
        raise IoError(f"{what}({path!r}): {kind} (the reason, naming the file and field, is on standard error)",
                      status)


def _text(p: Any) -> Optional[str]:
    return p.decode() if p else None


class Live2D:
    """Live2D files read by the io library into crowd.h's descs (crowd_io_live2d). Build one with
    Model3(path) (a .model3.json and every file it names), Motion3, Exp3, Pose3 or Physics3 (one
    file). Pass it to the RigDesc dataclasses (Motions, Expressions, Pose, Physics, LipSync), or
    take Model3.rig_desc(parameters) whole. It owns the memory the descs point into; the rig
    copies them when it is created."""
    _kind = "crowd_io_model3_load"

    def __init__(self, ptr: int, path: str) -> None:
        self._ptr: Optional[int] = ptr
        self.path = str(_text(_io().crowd_io_live2d_path(ptr)))  # the path as the library read it

    def __del__(self) -> None:
        self.close()

    def close(self) -> None:
        """Frees the files' memory (rigs made from it keep their own copies)."""
        if getattr(self, "_ptr", None):
            _io().crowd_io_live2d_free(self._ptr)
            self._ptr = None

    def __enter__(self) -> "Live2D":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _p(self) -> int:
        if not self._ptr:
            raise ClosedError(f"{type(self).__name__}({self.path!r}) is closed")
        return self._ptr

    @staticmethod
    def _deref(p: Any) -> Any:
        return p.contents if p else None

    @property
    def motion(self) -> Any:
        """The crowd_motion_desc (ctypes), None without motions."""
        return self._deref(_io().crowd_io_live2d_motion(self._p()))

    @property
    def expression(self) -> Any:
        return self._deref(_io().crowd_io_live2d_expression(self._p()))

    @property
    def pose(self) -> Any:
        return self._deref(_io().crowd_io_live2d_pose(self._p()))

    @property
    def physics(self) -> Any:
        return self._deref(_io().crowd_io_live2d_physics(self._p()))

    @property
    def lipsync(self) -> Any:
        return self._deref(_io().crowd_io_live2d_lipsync(self._p()))

    @property
    def clip_count(self) -> int:
        m = self.motion
        return int(m.clip_count) if m is not None else 0

    @property
    def expression_count(self) -> int:
        e = self.expression
        return int(e.expression_count) if e is not None else 0

    @property
    def eye_blink_ids(self) -> List[str]:
        L, p = _io(), self._p()
        return [str(_text(L.crowd_io_live2d_eye_blink_id(p, k))) for k in range(L.crowd_io_live2d_eye_blink_count(p))]

    @property
    def lip_sync_ids(self) -> List[str]:
        L, p = _io(), self._p()
        return [str(_text(L.crowd_io_live2d_lip_sync_id(p, k))) for k in range(L.crowd_io_live2d_lip_sync_count(p))]

    @property
    def motion_groups(self) -> Dict[str, range]:
        """model3 FileReferences.Motions: group name -> its clips' library indices."""
        L, p = _io(), self._p()
        out: Dict[str, range] = {}
        first, count = _ffi.u32(), _ffi.u32()
        for g in range(L.crowd_io_live2d_motion_group_count(p)):
            name = L.crowd_io_live2d_motion_group(p, g, _C.byref(first), _C.byref(count))
            out[name.decode()] = range(first.value, first.value + count.value)
        return out

    def motion_file(self, clip: int) -> Optional[str]:
        return _text(_io().crowd_io_live2d_motion_file(self._p(), _int(clip, "clip")))

    def motion_sound(self, clip: int) -> Optional[str]:
        """The model3 entry's Sound as written (relative to the model3's folder), or None."""
        return _text(_io().crowd_io_live2d_motion_sound(self._p(), _int(clip, "clip")))

    def motion_event(self, clip: int, event: int) -> Optional[str]:
        """The value of a clip's event (Engine.motion_events reports clip and event indices)."""
        return _text(_io().crowd_io_live2d_motion_event(self._p(), _int(clip, "clip"), _int(event, "event")))

    def expression_name(self, expression: int) -> Optional[str]:
        return _text(_io().crowd_io_live2d_expression_name(self._p(), _int(expression, "expression")))

    @property
    def expression_names(self) -> List[Optional[str]]:
        return [self.expression_name(k) for k in range(self.expression_count)]


def _live2d_open(fn: Any, path: Union[str, "os.PathLike[str]"], *args: Any) -> Tuple[int, str]:
    p = os.fspath(path)
    out = _C.c_void_p()
    _io_check(fn(p.encode(), *args, _C.byref(out)), fn.__name__, p)
    return int(out.value or 0), p


class Model3(Live2D):
    """crowd_io_model3_load: a .model3.json with its motions (by group, the entries' fades, the
    "Idle" group as the idle clips), expressions, pose, physics and EyeBlink/LipSync groups."""

    def __init__(self, path: Union[str, "os.PathLike[str]"]) -> None:
        super().__init__(*_live2d_open(_io().crowd_io_model3_load, path))

    def rig_desc(self, parameters: Sequence[Any], name: Optional[str] = None, **controllers: Any) -> "RigDesc":
        """A RigDesc with every controller the files give (motions, expressions, pose, physics, lip
        sync) over these parameters; ids of the model3's groups that are no parameter are left
        out (the framework ignores them too). More controllers by keyword (blink=..., ...)."""
        params = [_coerce(Parameter, p) for p in parameters]
        ids = {p.id for p in params}
        desc = RigDesc(name=name, parameters=params, **controllers)
        if self.clip_count:
            desc.motions = Motions([self], eye_blink_ids=[i for i in self.eye_blink_ids if i in ids],
                                   lip_sync_ids=[i for i in self.lip_sync_ids if i in ids])
        if self.expression is not None:
            desc.expressions = Expressions([self])
        if self.pose is not None:
            desc.pose = Pose(self)
        if self.physics is not None:
            desc.physics = Physics(self)
        lip = [i for i in self.lip_sync_ids if i in ids]
        if lip:
            desc.lipsync = LipSync(lip)
        return desc


class Motion3(Live2D):
    """crowd_io_motion3_load: one .motion3.json as a library of one clip (fades < 0: the file's)."""

    def __init__(self, path: Union[str, "os.PathLike[str]"], fade_in: float = -1.0, fade_out: float = -1.0) -> None:
        super().__init__(*_live2d_open(_io().crowd_io_motion3_load, path, float(fade_in), float(fade_out)))


class Exp3(Live2D):
    """crowd_io_exp3_load: one .exp3.json as a library of one expression."""

    def __init__(self, path: Union[str, "os.PathLike[str]"]) -> None:
        super().__init__(*_live2d_open(_io().crowd_io_exp3_load, path))


class Pose3(Live2D):
    """crowd_io_pose3_load: one .pose3.json."""

    def __init__(self, path: Union[str, "os.PathLike[str]"]) -> None:
        super().__init__(*_live2d_open(_io().crowd_io_pose3_load, path))


class Physics3(Live2D):
    """crowd_io_physics3_load: one .physics3.json."""

    def __init__(self, path: Union[str, "os.PathLike[str]"]) -> None:
        super().__init__(*_live2d_open(_io().crowd_io_physics3_load, path))


_PHYS = lib.crowd_physics_defaults()
_LIPS = lib.crowd_lipsync_defaults()
_POSE = lib.crowd_pose_defaults()
_EXPR = lib.crowd_expression_defaults()
_MOTN = lib.crowd_motion_defaults()


@_dc.dataclass
class Physics:
    """crowd_physics_desc: the rig of a physics3 (Physics3 or Model3) with the controller's
    settings. fps None: the file's Meta.Fps."""
    source: Live2D
    fps: Optional[float] = None
    gravity_x: float = _PHYS.gravity_x
    gravity_y: float = _PHYS.gravity_y
    wind_x: float = _PHYS.wind_x
    wind_y: float = _PHYS.wind_y
    strength: float = _PHYS.strength
    wind_gust: float = _PHYS.wind_gust
    gust_period: float = _PHYS.gust_period


@_dc.dataclass
class Lipsync:
    """crowd_lipsync_desc: each instance's LIPSYNC_LEVEL times weight added to these parameters."""
    parameters: Sequence[str] = ()
    weight: float = _LIPS.weight


LipSync = Lipsync


@_dc.dataclass
class PosePart:
    """crowd_pose_part_desc."""
    id: str
    links: Sequence[str] = ()


@_dc.dataclass
class Pose:
    """crowd_pose_desc: groups of parts (PoseParts or ids), or a pose3's (Pose3 or Model3) as
    source. fade_in None: the source's (else crowd_pose_defaults()'s)."""
    source: Union[Live2D, Sequence[Sequence[Union[str, PosePart]]]] = ()
    fade_in: Optional[float] = None


@_dc.dataclass
class ExpressionParameter:
    """crowd_expression_parameter_desc."""
    id: str
    value: float
    blend: EnumLike = ExpressionBlend.ADD


@_dc.dataclass
class Expression:
    """crowd_expression_item_desc (fades < 0: the library's)."""
    parameters: Sequence[ExpressionParameter] = ()
    fade_in: float = -1.0
    fade_out: float = -1.0


@_dc.dataclass
class Expressions:
    """crowd_expression_desc: the library, in order: each Expression, or every expression of a
    Live2D source (Exp3: one; Model3: its FileReferences.Expressions)."""
    expressions: Sequence[Union[Live2D, Expression]] = ()
    fade_in: float = _EXPR.fade_in
    fade_out: float = _EXPR.fade_out


@_dc.dataclass
class Motion:
    """crowd_motion_desc: the library, in order, of every clip of each source (Motion3: one;
    Model3: all its groups'). eye_blink_ids, lip_sync_ids, idle_clips None: the first Model3
    source's (its EyeBlink/LipSync groups, its "Idle" group), else none."""
    clips: Sequence[Live2D] = ()
    eye_blink_ids: Optional[Sequence[str]] = None
    lip_sync_ids: Optional[Sequence[str]] = None
    idle_clips: Optional[Sequence[int]] = None
    loop_idle: bool = bool(_MOTN.loop_idle)


Motions = Motion


class WavAudio:
    """crowd_io_wav_load: a WAV file (8/16/24-bit PCM) as the Cubism samples' handler decodes it."""

    def __init__(self, path: Union[str, "os.PathLike[str]"]) -> None:
        self._ptr: Optional[int] = None
        self.path, self._ptr = os.fspath(path), _live2d_open(_io().crowd_io_wav_load, path)[0]
        L = _io()
        self.frames = int(L.crowd_io_wav_frames(self._ptr))
        self.channels = int(L.crowd_io_wav_channels(self._ptr))
        self.rate = int(L.crowd_io_wav_rate(self._ptr))
        self.bits = int(L.crowd_io_wav_bits(self._ptr))
        n = self.frames * self.channels
        src = L.crowd_io_wav_samples(self._ptr)
        self.samples: np.ndarray = (np.ctypeslib.as_array(_C.cast(src, _ffi.FP), (n,)).copy().reshape(-1, self.channels)
                                    if n else np.zeros((0, max(self.channels, 1)), np.float32))
        assert _text(L.crowd_io_wav_path(self._ptr)) == self.path

    def __del__(self) -> None:
        if getattr(self, "_ptr", None):
            _io().crowd_io_wav_free(self._ptr)
            self._ptr = None

    def levels(self, dt: Union[float, Floats], count: Optional[int] = None) -> np.ndarray:
        """crowd_io_wav_levels: the mouth level (float32) of each frame played from the start,
        dt one number (count frames, default: until the samples end) or one per frame."""
        if np.ndim(dt) == 0:
            step = float(dt)  # type: ignore[arg-type]
            if count is None:
                count = int(_math.ceil(self.frames / (self.rate * step))) + 1 if step > 0 and self.rate else 0
            d = np.full(_int(count, "count"), step, np.float64)
        else:
            d = np.ascontiguousarray(dt, np.float64).reshape(-1)
        out = np.empty(d.size, np.float32)
        _io_check(_io().crowd_io_wav_levels(self._ptr, d.ctypes.data_as(_C.POINTER(_C.c_double)), d.size,
                                            out.ctypes.data), "crowd_io_wav_levels", self.path)
        return out


class HandTrack:
    """crowd_io_hands_load: MediaPipe Hand Landmarker / Holistic results (NDJSON) as per-frame
    hand landmarks: times (frames,), landmarks (frames, 2, 64) as HAND_LANDMARKS holds them
    (index Hand.LEFT, Hand.RIGHT), lines (frames,)."""

    def __init__(self, path: Union[str, "os.PathLike[str]"], mirrored: bool = False, aspect: float = 0.0) -> None:
        ptr, self.path = _live2d_open(_io().crowd_io_hands_load, path, bool(mirrored), float(aspect))
        L = _io()
        try:
            n = int(L.crowd_io_hands_frames(ptr))
            width = 2 * (3 * HAND_LANDMARK_COUNT + 1)
            self.times: np.ndarray = np.ctypeslib.as_array(L.crowd_io_hands_times(ptr), (max(n, 1),))[:n].copy()
            lm = _C.cast(L.crowd_io_hands_landmarks(ptr), _ffi.FP)
            self.landmarks: np.ndarray = np.ctypeslib.as_array(lm, (max(n, 1) * width,))[:n * width].copy().reshape(n, 2, -1)
            self.lines: np.ndarray = np.ctypeslib.as_array(L.crowd_io_hands_lines(ptr), (max(n, 1),))[:n].copy()
            assert _text(L.crowd_io_hands_path(ptr)) == self.path
        finally:
            L.crowd_io_hands_free(ptr)

    def __len__(self) -> int:
        return int(self.times.size)


@_dc.dataclass
class MotionStatus:
    """crowd_motion_status."""
    playing: int
    clip: int
    time: float
    clock: float
    current: MotionPriority
    reserved: MotionPriority


# crowd_motion_event as NumPy lays it out (instance, clip, event, time: 24 bytes)
MOTION_EVENT_DTYPE = np.dtype([("instance", np.uint64), ("clip", np.uint32), ("event", np.uint32),
                               ("time", np.float64)])


# ---------------------------------------------------------------------------------------------
# Memory the package controls: blocks the engine frees stay alive while an array uses them
# ---------------------------------------------------------------------------------------------
class _Arena:
    def __init__(self) -> None:
        self.blocks: Dict[int, Tuple[np.ndarray, int, int]] = {}  # aligned address -> (buffer, offset, size)
        self.refuse = False  # tests: act as an exhausted allocator
        self.alloc_fn = _ffi.ALLOC_FN(self._alloc)
        self.free_fn = _ffi.FREE_FN(self._free)

    def _alloc(self, size: int, align: int, user: Any) -> Optional[int]:
        if self.refuse:
            return None
        try:
            buf = np.empty(size + align, np.uint8)
        except MemoryError:
            return None
        addr = buf.ctypes.data
        off = (-addr) % align
        self.blocks[addr + off] = (buf, off, size)
        return addr + off

    def _free(self, ptr: Optional[int], user: Any) -> None:
        if ptr:
            self.blocks.pop(ptr, None)  # the buffer lives on while any view's base holds it

    def array(self, ptr: int, count: int) -> Optional[np.ndarray]:
        """A float32 array of count values at ptr, over the block that holds it (None: not ours)."""
        for start, (buf, off, size) in self.blocks.items():
            if start <= ptr and ptr + count * 4 <= start + size:
                return np.frombuffer(buf, np.float32, count, off + (ptr - start))
        return None

    def release(self) -> None:
        self.blocks.clear()


def _raw_array(ptr: int, count: int) -> np.ndarray:
    return np.ctypeslib.as_array(_C.cast(ptr, _ffi.FP), (count,)) if count else np.empty(0, np.float32)


# ---------------------------------------------------------------------------------------------
# Column views
# ---------------------------------------------------------------------------------------------
class Column:
    """A zero-copy view of one or more engine columns. Every access to .array (or np.asarray,
    indexing, len) checks the engine is open and the view current (see the package doc)."""

    __slots__ = ("_engine", "_rig", "_epoch", "_array", "field", "index", "component", "__weakref__")

    def __init__(self, engine: "Engine", rig_id: int, array: np.ndarray, field: Field, index: int,
                 component: Optional[int]) -> None:
        self._engine = engine  # keeps the engine alive
        self._rig = rig_id
        self._epoch = engine._epochs.get(rig_id, 0)
        self._array = array
        self.field = field
        self.index = index
        self.component = component

    def _check(self) -> np.ndarray:
        e = self._engine
        if e._ptr is None:
            raise ClosedError("crowd column view: the engine is closed")
        if e._epochs.get(self._rig, 0) != self._epoch:
            raise StaleViewError(f"crowd column view ({field_name(self.field)}): its rig's storage changed "
                                 "(instances added, reserved or removed, or a snapshot loaded): take a new view")
        return self._array

    @property
    def array(self) -> np.ndarray:
        """The ndarray itself (checked now, not on later use)."""
        return self._check()

    def __array__(self, dtype: Any = None, copy: Optional[bool] = None) -> np.ndarray:
        a = self._check()
        return a if dtype is None else a.astype(dtype)

    def __getitem__(self, key: Any) -> Any:
        return self._check()[key]

    def __setitem__(self, key: Any, value: Any) -> None:
        self._check()[key] = value

    def __len__(self) -> int:
        return self._check().shape[-1]

    @property
    def shape(self) -> Tuple[int, ...]:
        return self._check().shape

    @property
    def dtype(self) -> np.dtype:
        return self._array.dtype

    @property
    def writable(self) -> bool:
        return bool(self._array.flags.writeable)

    @property
    def valid(self) -> bool:
        try:
            self._check()
            return True
        except Error:
            return False

    def __repr__(self) -> str:
        state = "valid" if self.valid else "stale"
        return f"<crowd.Column {field_name(self.field)}[{self.index}] {self._array.shape} {state}>"


# ---------------------------------------------------------------------------------------------
# Who is inside the engine: ticks on many threads, everything else alone
# ---------------------------------------------------------------------------------------------
class _Gate:
    """crowd.h §1: crowd_tick_range may run on several threads at once on disjoint rows while no
    other call runs; every call releases the GIL, so the binding enforces that here. Ticks (tick,
    tick_range) enter together, refused (BusyError) when their rows overlap rows in flight; every
    other engine call is exclusive: it waits until the ticks in flight return, and ticks that
    come meanwhile wait for it (so close, add, reserve, remove, load never free or move memory
    a tick is using). A thread inside a tick (a logger callback) is refused instead of waiting
    for itself. Plain Python, no lock in the engine's tick: one uncontended lock taken briefly
    on entry and exit; the condition is only touched when a call has to wait."""

    __slots__ = ("_lock", "_cond", "_ticks", "_owner", "_depth", "_waiting", "_sleepers")

    def __init__(self) -> None:
        self._lock = _threading.Lock()
        self._cond = _threading.Condition(self._lock)
        # thread -> (rig id or None for every rig, first row, end row): a thread has one tick in
        # flight at most (a tick from inside a tick is refused)
        self._ticks: Dict[int, Tuple[Optional[int], int, int]] = {}
        self._owner: Optional[int] = None  # the thread inside an exclusive call (reentrant: _depth)
        self._depth = 0
        self._waiting = 0  # exclusive calls waiting: new ticks queue behind them
        self._sleepers = 0  # threads in _cond.wait(): only then is there anyone to notify

    def _wait(self) -> None:
        self._sleepers += 1
        try:
            self._cond.wait()
        finally:
            self._sleepers -= 1

    @staticmethod
    def _rows(r: Optional[int], f: int, e: int) -> str:
        return "every row" if r is None else f"rig {r} rows {f} .. {e - 1}"

    def enter_tick(self, rig: Optional[int], first: int, end: int, what: str) -> int:
        me = _get_ident()
        with self._lock:
            if self._owner is not None or self._waiting or self._ticks:  # else: nobody else is inside
                if self._owner == me or me in self._ticks:
                    raise BusyError(f"{what}: called from inside another engine call on this thread (a logger callback)")
                while self._owner is not None or self._waiting:
                    self._wait()
                if first < end:
                    for r, f, e in self._ticks.values():
                        if (r is None or rig is None or r == rig) and f < end and first < e:
                            raise BusyError(f"{what}: {self._rows(rig, first, end)} overlap {self._rows(r, f, e)}, which "
                                            "another thread is ticking now; tick each row once per frame, on disjoint "
                                            "ranges")
            self._ticks[me] = (rig, first, end)
            return me

    def leave_tick(self, token: int) -> None:
        """token: what enter_tick returned (the thread)."""
        with self._lock:
            del self._ticks[token]
            if self._sleepers and not self._ticks:
                self._cond.notify_all()

    def enter(self, what: str) -> None:
        me = _get_ident()
        with self._lock:
            if self._owner == me:
                self._depth += 1
                return
            if self._owner is not None or self._ticks:
                inside = self._ticks.get(me)
                if inside is not None:
                    raise BusyError(f"{what}: called from inside a tick on this thread (a logger callback, "
                                    f"{self._rows(*inside)}); call it after the tick returns")
                self._waiting += 1
                try:
                    while self._owner is not None or self._ticks:
                        self._wait()
                finally:
                    self._waiting -= 1
            self._owner, self._depth = me, 1

    def leave(self) -> None:
        with self._lock:
            self._depth -= 1
            if not self._depth:
                self._owner = None
                if self._sleepers:
                    self._cond.notify_all()


_Method = TypeVar("_Method", bound=Callable[..., Any])


def _exclusive(method: _Method) -> _Method:
    """An Engine or Rig method that reaches the engine alone (_Gate)."""
    what = method.__qualname__

    @_functools.wraps(method)
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        gate = (self if isinstance(self, Engine) else self.engine)._gate
        gate.enter(what)
        try:
            return method(self, *args, **kwargs)
        finally:
            gate.leave()
    return call  # type: ignore[return-value]


# ---------------------------------------------------------------------------------------------
# Engine and rigs
# ---------------------------------------------------------------------------------------------
def _handles(handles: Handles, what: str = "handles") -> np.ndarray:
    """Handles as a contiguous uint64 array (crowd_instance is one uint64); anything that is not
    an unsigned 64-bit integer is refused (_int), never wrapped or truncated."""
    if isinstance(handles, np.ndarray) and handles.dtype == np.uint64:
        return np.ascontiguousarray(handles).reshape(-1)
    if not isinstance(handles, np.ndarray) and np.ndim(handles) == 0:
        return np.array([_u64(handles, what)], np.uint64)
    a = np.asarray(handles)
    if a.dtype.kind == "i" and a.size and a.min() < 0:
        k = int(np.argmax(a.reshape(-1) < 0))
        _u64(int(a.reshape(-1)[k]), f"{what}[{k}]")
    elif a.dtype.kind not in "ui":  # Python ints beyond int64 (object), floats: one by one
        a = np.asarray(handles, dtype=object).reshape(-1)
        return np.array([_u64(v, f"{what}[{k}]") for k, v in enumerate(a)], np.uint64)
    return np.ascontiguousarray(a, dtype=np.uint64).reshape(-1)


def _floats(values: Floats, count: int, width: int, what: str) -> np.ndarray:
    a = np.ascontiguousarray(values, dtype=np.float32)
    if a.size != count * width:
        raise ValueError(f"{what}: expected {count} x {width} floats, got {a.size} (shape {a.shape})")
    return a


class Engine:
    """crowd_engine. A context manager: leaving the block (or close()) destroys the engine.

    seed, initial_capacity, simd ("auto", "scalar", "sse2", "avx2", "avx512"), threads (0/1: the
    caller's thread only; N > 1: the engine's own pool of N - 1 threads), logger: a callable
    (result_code, message) called with every error. allocator: "numpy" (the default: memory this
    package controls, see the package doc) or "c" (the C library's). first_instance_id: the id
    the first added instance gets (a shard of a crowd starts at its first instance's number).

    Threads: tick() and tick_range() release the GIL, and Python threads may tick disjoint
    ranges at once (crowd.h §1). The object keeps the header's rule for them: a tick or
    tick_range over rows another thread is ticking now (a whole tick() overlaps every row) is
    refused with BusyError, never run twice over the same rows; every other call (close, add,
    reserve, remove, pause, load, rig, set, get, ...) waits until the ticks in flight return,
    and ticks that come meanwhile wait for it, so nothing is freed or moved under a tick. Such a
    call made from inside a tick on the same thread (from the logger) raises BusyError. A host
    splitting a frame over threads gives each row to exactly one thread, and changes the
    engine only between frames (after joining the tick threads). Column views and bare arrays
    are not guarded: write them between ticks."""

    _ptr: Optional[int]
    _cptr: Optional[_C.c_void_p]
    _epochs: Dict[Optional[int], int]
    _rigs: Dict[int, "Rig"]
    _owned: bool
    _arena: Optional[_Arena]
    _logger: Optional[Any]

    def __init__(self, seed: int = 0, initial_capacity: int = 0, simd: EnumLike = "auto", threads: int = 0,
                 logger: Optional[Logger] = None, allocator: str = "numpy", first_instance_id: int = 0) -> None:
        self._gate = _Gate()
        self._ptr = None
        self._cptr = None
        self._epochs = {}
        self._rigs = {}
        self._owned = True
        desc = _ffi.EngineDesc()
        desc.seed = _u64(seed, "seed")
        desc.initial_capacity = _int(initial_capacity, "initial_capacity")
        desc.simd = _enum_value(Simd, simd)
        desc.threads = _int(threads, "threads")
        desc.first_instance_id = _u64(first_instance_id, "first_instance_id")
        if allocator == "numpy":
            self._arena = _Arena()
            desc.allocator.alloc = self._arena.alloc_fn
            desc.allocator.free = self._arena.free_fn
        elif allocator == "c":
            self._arena = None
        else:
            raise ValueError(f"allocator: 'numpy' or 'c', not {allocator!r}")
        # The engine logs every error; creation's message has no engine to ask for it later.
        # (No reference to self in the callback: a dropped Engine is freed at once, no cycle.)
        creating: Dict[str, Any] = {"message": "", "done": False}

        def log(code: int, message: Optional[bytes], user: Any, _cb: Optional[Logger] = logger,
                _creating: Dict[str, Any] = creating) -> None:
            try:
                text = message.decode(errors="replace") if message else ""
                if not _creating["done"]:
                    _creating["message"] = text
                if _cb is not None:
                    _cb(int(code), text)
            except Exception:  # an exception cannot cross the C call
                pass
        self._logger = _ffi.LOG_FN(log)
        desc.logger.log = self._logger
        out = _C.c_void_p()
        res = lib.crowd_engine_create(_C.byref(desc), _C.byref(out))
        creating["done"] = True
        if res:
            raise _error(res, creating["message"] or f"crowd_engine_create: {result_text(res)}")
        self._ptr = out.value
        self._cptr = _C.c_void_p(self._ptr)

    @classmethod
    def _borrow(cls, ptr: int) -> "Engine":
        """An Engine over an engine someone else owns (close() does not destroy it)."""
        e = cls.__new__(cls)
        e._gate = _Gate()
        e._ptr, e._epochs, e._rigs, e._owned, e._arena, e._logger = ptr, {}, {}, False, None, None
        e._cptr = _C.c_void_p(ptr)
        return e

    # -- life ---------------------------------------------------------------------------------
    def close(self) -> None:
        """Destroys the engine (NULL-safe, idempotent). Every view on it raises from now on.
        Waits for ticks in flight on other threads (see the class doc)."""
        if getattr(self, "_gate", None) is None:  # __init__ failed before the engine existed
            return
        self._close()

    @_exclusive
    def _close(self) -> None:
        ptr, self._ptr = self._ptr, None
        self._cptr = None
        if ptr is not None and self._owned:
            lib.crowd_engine_destroy(ptr)
        if self._arena is not None:
            self._arena.release()

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    @property
    def closed(self) -> bool:
        return self._ptr is None

    def _p(self) -> int:
        p = self._ptr
        if p is None:
            raise ClosedError("crowd: the engine is closed")
        return p

    def _fail(self, res: int, what: str) -> None:
        raise self._failure(res, what)

    def _failure(self, res: int, what: str) -> Error:
        """The error for res, with the engine's message: read while the failed call still holds
        the gate (a close() waiting for it would free the message)."""
        p = self._ptr
        msg = lib.crowd_last_error(p).decode(errors="replace") if p else ""
        return _error(res, msg or f"{what}: {result_text(res)}")

    def _moved(self, rig_id: Optional[int] = None) -> None:
        """Views of rig_id (None: every rig) are stale from now on."""
        if rig_id is None:
            for k in list(self._epochs):
                self._epochs[k] += 1
            self._epochs[None] = self._epochs.get(None, 0) + 1
        else:
            self._epochs[rig_id] = self._epochs.get(rig_id, 0) + 1

    # -- getters ------------------------------------------------------------------------------
    @property
    @_exclusive
    def last_error(self) -> str:
        return lib.crowd_last_error(self._p()).decode(errors="replace")

    @property
    @_exclusive
    def threads(self) -> int:
        return lib.crowd_engine_threads(self._p())

    @property
    @_exclusive
    def simd(self) -> Simd:
        return Simd(lib.crowd_simd_target(self._p()))

    @property
    def simd_name(self) -> Optional[str]:
        return simd_name(self.simd)

    @property
    def simd_width(self) -> int:
        return simd_width(self.simd)

    # -- rigs ---------------------------------------------------------------------------------
    @_exclusive
    def rig(self, desc: Optional[RigDesc] = None, **fields: Any) -> "Rig":
        """crowd_rig_create from a RigDesc, or from its fields as keyword arguments:
        engine.rig(name="face", parameters=[Parameter("ParamAngleX", -30, 30)], blink=Blink(["ParamEyeLOpen"]))."""
        if desc is None:
            desc = RigDesc(**fields)
        elif fields:
            desc = _dc.replace(desc, **fields)
        rd, keep = _marshal_rig(desc)
        out = _ffi.Rig()
        res = lib.crowd_rig_create(self._p(), _C.byref(rd), _C.byref(out))
        del keep
        if res:
            self._fail(res, "crowd_rig_create")
        r = Rig(self, out.id, desc)
        self._rigs[out.id] = r
        self._epochs.setdefault(out.id, 0)
        return r

    @property
    def rigs(self) -> List["Rig"]:
        """The rigs made through this object, in creation order."""
        return list(self._rigs.values())

    # -- instances ----------------------------------------------------------------------------
    @_exclusive
    def remove(self, handles: Handles) -> None:
        """crowd_instances_remove. Views of every rig go stale (lengths change)."""
        h = _handles(handles)
        res = lib.crowd_instances_remove(self._p(), h.ctypes.data, h.size)
        if res:
            self._fail(res, "crowd_instances_remove")
        self._moved()

    @_exclusive
    def pause(self, handles: Handles, paused: bool = True) -> None:
        """crowd_instances_pause: rows move (views stay valid; Rig.handles() tells the order)."""
        h = _handles(handles)
        res = lib.crowd_instances_pause(self._p(), h.ctypes.data, h.size, bool(paused))
        if res:
            self._fail(res, "crowd_instances_pause")

    def resume(self, handles: Handles) -> None:
        self.pause(handles, False)

    @_exclusive
    def paused(self, handle: int) -> bool:
        out = _ffi.b8()
        res = lib.crowd_instance_paused(self._p(), _ffi.Instance(_u64(handle, "handle")), _C.byref(out))
        if res:
            self._fail(res, "crowd_instance_paused")
        return bool(out.value)

    @_exclusive
    def info(self, handle: int) -> Tuple[int, Union["Rig", int], int]:
        """(id, rig, row) of an instance: crowd_instance_info."""
        iid, rig, row = _ffi.u64(), _ffi.Rig(), _ffi.u32()
        res = lib.crowd_instance_info(self._p(), _ffi.Instance(_u64(handle, "handle")), _C.byref(iid), _C.byref(rig),
                                      _C.byref(row))
        if res:
            self._fail(res, "crowd_instance_info")
        return iid.value, self._rigs.get(rig.id, rig.id), row.value

    @_exclusive
    def random(self, handle: int, count: int = 1) -> np.ndarray:
        """crowd_instance_random: count draws in [0, 1) from the instance's host stream."""
        c = _int(count, "count")
        inst = _ffi.Instance(_u64(handle, "handle"))
        out = np.empty(c, np.float32)
        res = lib.crowd_instance_random(self._p(), inst, c, out.ctypes.data)
        if res:
            self._fail(res, "crowd_instance_random")
        return out

    # -- fields -------------------------------------------------------------------------------
    @_exclusive
    def set(self, field: EnumLike, handles: Handles, values: Floats, index: int = 0) -> None:
        """crowd_instances_set: values (n, width) (or anything of n*width floats) to n handles."""
        f = _enum_value(Field, field)
        h = _handles(handles)
        i = _int(index, "index")
        v = _floats(values, h.size, max(lib.crowd_field_width(f), 1), "values")
        res = lib.crowd_instances_set(self._p(), f, i, h.ctypes.data, h.size, v.ctypes.data)
        if res:
            self._fail(res, "crowd_instances_set")

    @_exclusive
    def get(self, field: EnumLike, handles: Handles, index: int = 0) -> np.ndarray:
        """crowd_instances_get: (n, width), or (n,) for a one-float field."""
        f = _enum_value(Field, field)
        h = _handles(handles)
        i = _int(index, "index")
        w = lib.crowd_field_width(f)
        out = np.empty((h.size, w) if w != 1 else (h.size,), np.float32)
        res = lib.crowd_instances_get(self._p(), f, i, h.ctypes.data, h.size, out.ctypes.data)
        if res:
            self._fail(res, "crowd_instances_get")
        return out

    @_exclusive
    def set_one(self, handle: int, field: EnumLike, values: Floats, index: int = 0) -> None:
        """crowd_set: one instance's field (width floats)."""
        f = _enum_value(Field, field)
        inst, i = _ffi.Instance(_u64(handle, "handle")), _int(index, "index")
        v = _floats(values, 1, max(lib.crowd_field_width(f), 1), "values")
        res = lib.crowd_set(self._p(), inst, f, i, v.ctypes.data)
        if res:
            self._fail(res, "crowd_set")

    @_exclusive
    def get_one(self, handle: int, field: EnumLike, index: int = 0) -> Union[float, np.ndarray]:
        """crowd_get: a float for a one-float field, else an array of its width."""
        f = _enum_value(Field, field)
        inst, i = _ffi.Instance(_u64(handle, "handle")), _int(index, "index")
        w = lib.crowd_field_width(f)
        out = np.empty(max(w, 1), np.float32)
        res = lib.crowd_get(self._p(), inst, f, i, out.ctypes.data)
        if res:
            self._fail(res, "crowd_get")
        return float(out[0]) if w == 1 else out

    @_exclusive
    def set_poses(self, handles: Handles, poses: Floats) -> None:
        """Pose landmarks of n instances in one call: poses (n, 33, 4) x, y, z, visibility in the
        rig's frame (crowd_instances_set of CROWD_FIELD_POSE). float32 C-order input is not copied."""
        h = _handles(handles)
        p = _floats(poses, h.size, LANDMARK_COUNT * 4, "poses")
        res = lib.crowd_instances_set(self._p(), Field.POSE, 0, h.ctypes.data, h.size, p.ctypes.data)
        if res:
            self._fail(res, "crowd_instances_set (pose)")

    @_exclusive
    def set_faces(self, handles: Handles, scores: Optional[Floats] = None, rotation: Optional[Floats] = None,
                  presence: Optional[Floats] = None) -> None:
        """Face tracking input of n instances (each part optional, each written with
        crowd_instances_set, so checked): scores (n, 52) in MediaPipe's order, rotation (n, 4)
        unit quaternions x, y, z, w (face_rotation_from_matrix), presence (n,) in [0, 1]."""
        for field, values in ((Field.FACE_SCORES, scores), (Field.FACE_ROTATION, rotation),
                              (Field.FACE_PRESENCE, presence)):
            if values is not None:
                self.set(field, handles, values)

    def get_poses(self, handles: Handles) -> np.ndarray:
        return self.get(Field.POSE, handles).reshape(-1, LANDMARK_COUNT, 4)

    @_exclusive
    def set_look_target(self, handle: int, x: float, y: float, z: float, active: bool = True) -> None:
        res = lib.crowd_set_look_target(self._p(), _ffi.Instance(_u64(handle, "handle")), x, y, z, bool(active))
        if res:
            self._fail(res, "crowd_set_look_target")

    @_exclusive
    def blink_now(self, handles: Handles) -> None:
        h = _handles(handles)
        res = lib.crowd_blink_now(self._p(), h.ctypes.data, h.size)
        if res:
            self._fail(res, "crowd_blink_now")

    # -- Live2D: motions (crowd.h section 15) and expressions (section 14) ---------------------
    @_exclusive
    def motion_start(self, handles: Handles, clip: int, priority: EnumLike = MotionPriority.NORMAL,
                     loop: bool = False, loop_fade_in: bool = True, fade_in: float = -1.0, fade_out: float = -1.0,
                     offset: float = 0.0) -> np.ndarray:
        """crowd_motion_start: library clip `clip` on each instance where the reserve rule lets
        it (priority "idle", "normal" or "force"); returns whether it started, per handle."""
        h = _handles(handles)
        d = lib.crowd_motion_start_defaults(_int(clip, "clip"))
        d.priority, d.loop, d.loop_fade_in = _enum_value(MotionPriority, priority), bool(loop), bool(loop_fade_in)
        d.fade_in, d.fade_out, d.offset = fade_in, fade_out, offset
        started = np.zeros(h.size, np.bool_)
        res = lib.crowd_motion_start(self._p(), h.ctypes.data, h.size, _C.byref(d),
                                     started.ctypes.data_as(_C.POINTER(_C.c_bool)))
        if res:
            self._fail(res, "crowd_motion_start")
        return started

    @_exclusive
    def motion_reserve(self, handles: Handles, priority: EnumLike) -> np.ndarray:
        """crowd_motion_reserve: whether `priority` was reserved, per handle."""
        h = _handles(handles)
        out = np.zeros(h.size, np.bool_)
        res = lib.crowd_motion_reserve(self._p(), h.ctypes.data, h.size, _enum_value(MotionPriority, priority),
                                       out.ctypes.data_as(_C.POINTER(_C.c_bool)))
        if res:
            self._fail(res, "crowd_motion_reserve")
        return out

    @_exclusive
    def motion_status(self, handle: int) -> "MotionStatus":
        """crowd_motion_status_get."""
        st = _ffi.MotionStatus()
        res = lib.crowd_motion_status_get(self._p(), _ffi.Instance(_u64(handle, "handle")), _C.byref(st))
        if res:
            self._fail(res, "crowd_motion_status_get")
        return MotionStatus(int(st.playing), int(st.clip), float(st.time), float(st.clock),
                            MotionPriority(st.current), MotionPriority(st.reserved))

    @_exclusive
    def motion_events(self, out: Optional[np.ndarray] = None, capacity: int = 1024) -> Tuple[np.ndarray, int]:
        """crowd_motion_events: the events of the last tick, into `out` (an array of
        MOTION_EVENT_DTYPE; a new one of `capacity` when None). Returns (the filled part of out,
        the count of events lost: beyond the buffer or MOTION_EVENTS_PER_TICK per instance)."""
        buf = np.empty(_int(capacity, "capacity"), MOTION_EVENT_DTYPE) if out is None else out
        if buf.dtype != MOTION_EVENT_DTYPE or buf.ndim != 1 or not buf.flags.c_contiguous or not buf.flags.writeable:
            raise TypeError("motion_events: out must be a writable 1-D contiguous array of crowd.MOTION_EVENT_DTYPE")
        n, lost = _ffi.u32(), _ffi.u64()
        res = lib.crowd_motion_events(self._p(), buf.ctypes.data_as(_C.POINTER(_ffi.MotionEvent)) if buf.size else None,
                                      buf.size, _C.byref(n), _C.byref(lost))
        if res:
            self._fail(res, "crowd_motion_events")
        return buf[:n.value], int(lost.value)

    def set_hands(self, handles: Handles, hands: Floats) -> None:
        """Both hands' HAND_LANDMARKS for each instance: hands (n, 2, 64) or one (2, 64) for all
        (a HandTrack frame: track.landmarks[k]), the left hand's then the right's."""
        h = _handles(handles)
        a = np.broadcast_to(np.asarray(hands, np.float32), (h.size, 2, 3 * HAND_LANDMARK_COUNT + 1))
        for s in (Hand.LEFT, Hand.RIGHT):
            self.set(Field.HAND_LANDMARKS, h, np.ascontiguousarray(a[:, int(s)]), index=int(s))

    @_exclusive
    def expressions_start(self, handles: Handles, expression: int) -> None:
        """crowd_expressions_start: library expression `expression` on each instance (it fades in
        from the next tick, the ones playing fade out)."""
        h = _handles(handles)
        res = lib.crowd_expressions_start(self._p(), h.ctypes.data, h.size, _int(expression, "expression"))
        if res:
            self._fail(res, "crowd_expressions_start")

    def tick_exact(self, dt: float) -> None:
        """crowd_tick_exact: Engine.tick with dt in double (the motion clocks advance by exactly dt,
        as a host's double frame clock; every other controller takes dt rounded to float)."""
        gate = self._gate
        token = gate.enter_tick(None, 0, _EVERY_ROW, "Engine.tick_exact")
        try:
            res = lib.crowd_tick_exact(self._p(), float(dt))
            if res:
                raise self._failure(res, "crowd_tick_exact")
        finally:
            gate.leave_tick(token)

    def tick_range_exact(self, dt: float, rig: Union["Rig", int], first: int, count: int) -> None:
        """crowd_tick_range_exact: Engine.tick_range with dt in double."""
        r, f, c = _rig_id(rig), _int(first, "first"), _int(count, "count")
        gate = self._gate
        token = gate.enter_tick(r, f, f + c, "Engine.tick_range_exact")
        try:
            res = lib.crowd_tick_range_exact(self._p(), float(dt), _ffi.Rig(r), f, c)
            if res:
                raise self._failure(res, "crowd_tick_range_exact")
        finally:
            gate.leave_tick(token)

    @_exclusive
    def outputs(self, handle: int) -> np.ndarray:
        """crowd_get_outputs: every output parameter of one instance, in the rig's order."""
        _, rig, _ = self.info(handle)
        n = rig.parameter_count if isinstance(rig, Rig) else lib.crowd_rig_parameter_count(self._ptr, _ffi.Rig(rig))
        out = np.empty(n, np.float32)
        res = lib.crowd_get_outputs(self._p(), _ffi.Instance(_u64(handle, "handle")), out.ctypes.data, n)
        if res:
            self._fail(res, "crowd_get_outputs")
        return out

    # -- the tick -----------------------------------------------------------------------------
    def tick(self, dt: float) -> None:
        """crowd_tick: every running instance of every rig by dt seconds (0 <= dt <= 1).
        BusyError while another thread ticks any rows (see the class doc)."""
        gate = self._gate
        token = gate.enter_tick(None, 0, _EVERY_ROW, "Engine.tick")
        try:
            # The hot path: a c_void_p converts fastest; a closed engine's is NULL (CROWD_ERR_NULL).
            res = _tick(self._cptr, dt)
            if res:
                self._p()
                raise self._failure(res, "crowd_tick")
        finally:
            gate.leave_tick(token)

    def tick_range(self, dt: float, rig: Union["Rig", int], first: int, count: int) -> None:
        """crowd_tick_range: rows [first, first + count) of one rig. The GIL is released during
        the call, so Python threads ticking disjoint ranges run at the same time; a range that
        overlaps rows another thread is ticking now raises BusyError (see the class doc)."""
        r, f, c = _rig_id(rig), _int(first, "first"), _int(count, "count")
        gate = self._gate
        token = gate.enter_tick(r, f, f + c, "Engine.tick_range")
        try:
            res = _tick_range(self._p(), dt, _ffi.Rig(r), f, c)
            if res:
                raise self._failure(res, "crowd_tick_range")
        finally:
            gate.leave_tick(token)

    # -- snapshots ----------------------------------------------------------------------------
    @_exclusive
    def snapshot_size(self) -> int:
        n = _C.c_size_t()
        res = lib.crowd_snapshot_size(self._p(), _C.byref(n))
        if res:
            self._fail(res, "crowd_snapshot_size")
        return n.value

    @_exclusive
    def snapshot(self) -> bytes:
        """crowd_snapshot_save: the whole state as bytes."""
        size = self.snapshot_size()
        buf = _C.create_string_buffer(max(size, 1))
        written = _C.c_size_t()
        res = lib.crowd_snapshot_save(self._p(), buf, size, _C.byref(written))
        if res:
            self._fail(res, "crowd_snapshot_save")
        return buf.raw[:written.value]

    @_exclusive
    def load(self, data: Union[bytes, bytearray, memoryview]) -> None:
        """crowd_snapshot_load: replaces the state (nothing changes on error). Every view goes
        stale. Rig objects name rigs by id: after loading they name the snapshot's rigs of those
        ids (handles saved with the snapshot stay valid in it)."""
        b = np.frombuffer(data, np.uint8)
        p = self._p()
        res = lib.crowd_snapshot_load(p, b.ctypes.data if b.size else None, b.size)
        if res:
            self._fail(res, "crowd_snapshot_load")
        self._moved()

    def __repr__(self) -> str:
        if self._ptr is None:
            return "<crowd.Engine closed>"
        return f"<crowd.Engine simd={self.simd_name} threads={self.threads} rigs={len(self._rigs)}>"


_tick = lib.crowd_tick
_tick_range = lib.crowd_tick_range
_EVERY_ROW = 1 << 32  # past every uint32 row: a whole tick's range


def _rig_id(rig: Union["Rig", int]) -> int:
    return rig.id if isinstance(rig, Rig) else _int(rig, "rig")


class Rig:
    """crowd_rig: a model type in an engine. Made by Engine.rig()."""

    def __init__(self, engine: Engine, rig_id: int, desc: Optional[RigDesc] = None) -> None:
        self.engine = engine
        self.id = rig_id
        self.desc = desc
        self._c = _ffi.Rig(rig_id)

    @property
    def name(self) -> Optional[str]:
        return self.desc.name if self.desc else None

    @_exclusive
    def parameter_index(self, id: str) -> int:
        out = _ffi.u32()
        res = lib.crowd_rig_parameter_index(self.engine._p(), self._c, id.encode(), _C.byref(out))
        if res:
            self.engine._fail(res, "crowd_rig_parameter_index")
        return out.value

    @property
    @_exclusive
    def parameter_count(self) -> int:
        return lib.crowd_rig_parameter_count(self.engine._p(), self._c)

    @property
    @_exclusive
    def instance_count(self) -> int:
        return lib.crowd_rig_instance_count(self.engine._p(), self._c)

    def __len__(self) -> int:
        return self.instance_count

    @property
    @_exclusive
    def running_count(self) -> int:
        return lib.crowd_rig_running_count(self.engine._p(), self._c)

    @_exclusive
    def reserve(self, capacity: int) -> None:
        """crowd_reserve. The rig's views go stale."""
        res = lib.crowd_reserve(self.engine._p(), self._c, _int(capacity, "capacity"))
        if res:
            self.engine._fail(res, "crowd_reserve")
        self.engine._moved(self.id)

    @property
    @_exclusive
    def bytes_per_instance(self) -> int:
        """crowd_rig_bytes_per_instance: what one instance takes in the engine (for planning)."""
        out = _C.c_size_t()
        res = lib.crowd_rig_bytes_per_instance(self.engine._p(), self._c, _C.byref(out))
        if res:
            self.engine._fail(res, "crowd_rig_bytes_per_instance")
        return out.value

    @property
    @_exclusive
    def settings_digest(self) -> int:
        """crowd_rig_settings_digest: FNV-1a 64 of the rig's settings (equal descs, equal digests)."""
        out = _ffi.u64()
        res = lib.crowd_rig_settings_digest(self.engine._p(), self._c, _C.byref(out))
        if res:
            self.engine._fail(res, "crowd_rig_settings_digest")
        return out.value

    @_exclusive
    def add(self, count: int = 1, blink_start: EnumLike = "random", harmonic_phase: EnumLike = "zero") -> np.ndarray:
        """crowd_instances_add: count new instances; their handles as a uint64 array. The
        rig's views go stale."""
        count = _int(count, "count")
        d = _ffi.AddDesc(self._c, count, _enum_value(BlinkStart, blink_start),
                         _enum_value(HarmonicPhase, harmonic_phase))
        out = np.zeros(count, np.uint64)
        res = lib.crowd_instances_add(self.engine._p(), _C.byref(d), out.ctypes.data if count else None)
        if res:
            self.engine._fail(res, "crowd_instances_add")
        self.engine._moved(self.id)
        return out

    @_exclusive
    def handles(self) -> np.ndarray:
        """The handle of each row (a copy: rows move when instances are added, removed or paused)."""
        ptr, n = _C.POINTER(_ffi.Instance)(), _ffi.u32()
        res = lib.crowd_rig_handles(self.engine._p(), self._c, _C.byref(ptr), _C.byref(n))
        if res:
            self.engine._fail(res, "crowd_rig_handles")
        if n.value == 0:
            return np.zeros(0, np.uint64)
        return np.ctypeslib.as_array(_C.cast(ptr, _C.POINTER(_ffi.u64)), (n.value,)).copy()

    def _array(self, ptr: int, count: int, field: int) -> np.ndarray:
        e = self.engine
        a = e._arena.array(ptr, count) if e._arena is not None and count else None
        if a is None:
            a = _raw_array(ptr, count)
        if field in _READ_ONLY_FIELDS:
            a.flags.writeable = False
        return a

    @_exclusive
    def motion_pseudo_index(self, id: str) -> int:
        """crowd_rig_motion_pseudo_index: the MOTION_PSEUDO index of a curve id that is no
        parameter (a PartOpacity curve's part id, an unknown Parameter id)."""
        out = _ffi.u32()
        res = lib.crowd_rig_motion_pseudo_index(self.engine._p(), self._c, id.encode(), _C.byref(out))
        if res:
            self.engine._fail(res, "crowd_rig_motion_pseudo_index")
        return out.value

    @property
    def motion_pseudo_count(self) -> int:
        return int(lib.crowd_rig_motion_pseudo_count(self.engine._p(), self._c))
    @_exclusive
    def column(self, field: EnumLike, index: int = 0, component: int = 0) -> Column:
        """crowd_rig_column: a zero-copy view of one component, rows 0..instance_count-1."""
        f = _enum_value(Field, field)
        ptr, n = _ffi.FP(), _ffi.u32()
        res = lib.crowd_rig_column(self.engine._p(), self._c, f, _int(index, "index"), _int(component, "component"),
                                   _C.byref(ptr), _C.byref(n))
        if res:
            self.engine._fail(res, "crowd_rig_column")
        addr = _C.cast(ptr, _C.c_void_p).value or 0
        return Column(self.engine, self.id, self._array(addr, n.value, f), Field(f), index, component)

    @_exclusive
    def columns(self, field: EnumLike, index: int = 0) -> Column:
        """crowd_rig_columns: every component at once, a (width, instance_count) view (for the
        pose: (132, n), landmark k's x, y, z, visibility in rows 4k .. 4k+3)."""
        f = _enum_value(Field, field)
        w = lib.crowd_field_width(f)
        ptrs = (_ffi.FP * max(w, 1))()
        n = _ffi.u32()
        res = lib.crowd_rig_columns(self.engine._p(), self._c, f, _int(index, "index"), ptrs, _C.byref(n))
        if res:
            self.engine._fail(res, "crowd_rig_columns")
        addrs = [_C.cast(ptrs[k], _C.c_void_p).value or 0 for k in range(w)]
        count = n.value
        stride = addrs[1] - addrs[0] if w > 1 else count * 4
        regular = all(addrs[k] - addrs[0] == k * stride for k in range(w)) and stride >= count * 4
        if not regular:
            raise Error("crowd_rig_columns: the components are not evenly spaced; use Rig.column per component")
        span = (w - 1) * stride // 4 + count
        flat = self._array(addrs[0], span, f) if count else np.empty(0, np.float32)
        if count:
            a = np.lib.stride_tricks.as_strided(flat, (w, count), (stride, 4), writeable=flat.flags.writeable)
        else:
            a = np.empty((w, 0), np.float32)
        return Column(self.engine, self.id, a, Field(f), index, None)

    @_exclusive
    def write_poses(self, poses: Floats, first_row: int = 0) -> None:
        """The landmarks of rows [first_row, first_row + n) in storage order (Rig.handles() tells
        whose) from an (n, 33, 4) array, straight into the zero-copy pose columns: the fast bulk
        path (no handle lookups, one column-wise copy). Checked first, in NumPy, by crowd.h's rules
        for CROWD_FIELD_POSE (coordinates finite within +-1e9, visibility in [0, 1]): a bad value
        raises NotFiniteError or RangeError naming it, and nothing is written."""
        first_row = _int(first_row, "first_row")
        a = np.asarray(poses, np.float32).reshape(-1, LANDMARK_COUNT, 4)
        n = a.shape[0]
        count = self.instance_count
        if first_row < 0 or first_row + n > count:
            raise ValueError(f"Rig.write_poses: rows {first_row} .. {first_row + n - 1} outside the rig's {count}")
        if n:
            # each of the 132 columns' lowest and highest value (NaN propagates through both and
            # fails every comparison, so this also catches what is not finite)
            rows = a.reshape(n, -1)
            if not ((rows.min(axis=0) >= _POSE_LO).all() and (rows.max(axis=0) <= _POSE_HI).all()):
                flat = a.reshape(n, -1)
                comp = np.arange(flat.shape[1]) % 4
                ok = np.where(comp == 3, (flat >= 0) & (flat <= 1), np.abs(flat) <= _MAX_LANDMARK)
                i, c = (int(x[0]) for x in np.nonzero(~ok))
                v = float(flat[i, c])
                what = (f"Rig.write_poses: values[{i * flat.shape[1] + c}] (pose of row {first_row + i})")
                if not _math.isfinite(v):
                    raise NotFiniteError(f"{what} is not finite")
                want = "a visibility in [0, 1]" if c % 4 == 3 else "a coordinate within +-1e9"
                raise RangeError(f"{what} is {v:g}, must be {want}")
        cols = self.columns(Field.POSE)
        cols.array[:, first_row:first_row + n] = a.reshape(n, -1).T

    @_exclusive
    def rest_pose(self) -> Tuple[np.ndarray, np.ndarray]:
        """crowd_rig_rest_pose: (world, local), each (15, 4) quaternions x, y, z, w."""
        world = np.empty((BONE_COUNT, 4), np.float32)
        local = np.empty((BONE_COUNT, 4), np.float32)
        res = lib.crowd_rig_rest_pose(self.engine._p(), self._c, world.ctypes.data, local.ctypes.data)
        if res:
            self.engine._fail(res, "crowd_rig_rest_pose")
        return world, local

    def __repr__(self) -> str:
        return f"<crowd.Rig {self.id} {self.name or ''}>"
