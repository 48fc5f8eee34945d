"""Every function of the public API through the package, checked against crowd.h's own numbers."""
import ctypes
import math
import threading

import numpy as np
import pytest

import crowd
from crowd import Field

FACE = [crowd.Parameter("ParamAngleX", -30, 30), crowd.Parameter("ParamBreath", 0, 1),
        crowd.Parameter("ParamEyeLOpen", 0, 1, 1.0)]


def state(engine, rig):
    """Every output and controller state of every instance of the rig, as bytes, in row order
    (snapshots of two engines alive at once differ in their handle tags, so compare these)."""
    h = rig.handles()
    parts = [engine.get(Field.OUTPUT, h, p) for p in range(rig.parameter_count)]
    for f in (Field.LOOK_POSITION, Field.LOOK_VELOCITY, Field.BLINK_OPENING, Field.BLINK_PHASE, Field.BLINK_CLOCK):
        try:
            parts.append(engine.get(f, h))
        except crowd.NoControllerError:
            pass
    return b"".join(np.ascontiguousarray(p).tobytes() for p in parts)


def face_rig(engine, **extra):
    return engine.rig(name="face", parameters=FACE,
                      look=crowd.Look([crowd.LookParameter("ParamAngleX", "x", 30.0)]),
                      harmonic=crowd.Harmonic([crowd.HarmonicParameter("ParamBreath")]),
                      blink=crowd.Blink(["ParamEyeLOpen"]), **extra)


def test_module_functions():
    assert crowd.result_text(0) == "ok"
    assert crowd.result_text(crowd.Result.ERR_RANGE) == "a value is outside its allowed range"
    assert [crowd.simd_name(s) for s in crowd.Simd] == ["auto", "scalar", "sse2", "avx2", "avx512", "wasm128"]
    assert crowd.simd_name(99) is None
    assert [crowd.simd_width(s) for s in crowd.Simd] == [0, 1, 4, 8, 16, 4]
    assert crowd.simd_supported("scalar") and not crowd.simd_supported(99)
    assert not crowd.simd_supported("wasm128")  # only the WebAssembly build has it
    widths = {Field.BASE: 1, Field.LOOK_TARGET: 3, Field.LOOK_CENTER: 3, Field.POSE: 132, Field.ROOT: 4,
              Field.BONE_WORLD: 4, Field.LOOK_VELOCITY: 3, Field.OUTPUT: 1}
    for f, w in widths.items():
        assert crowd.field_width(f) == w
    assert crowd.field_width(99) == 0
    for f in Field:  # the enum's name in lower case without the prefix (crowd.h §6)
        assert crowd.field_name(f) == f.name.lower()
    for b in crowd.Bone:
        assert crowd.bone_name(b) == b.name.lower()
    assert crowd.bone_name(15) is None


def test_rest_landmarks_are_the_headers():
    eng = crowd.rest_landmarks("engine")
    # crowd.h §9: nose (0, 0.66, -0.10), left shoulder (0.18, 0.50, 0), right mirrors x
    np.testing.assert_allclose(eng[0], [0, 0.66, -0.10, 1], atol=1e-7)
    np.testing.assert_allclose(eng[11], [0.18, 0.50, 0, 1], atol=1e-7)
    np.testing.assert_allclose(eng[12], [-0.18, 0.50, 0, 1], atol=1e-7)
    mp = crowd.rest_landmarks("mediapipe_world")  # +y down: y negated
    np.testing.assert_array_equal(mp[:, 1], -eng[:, 1])
    np.testing.assert_array_equal(mp[:, [0, 2, 3]], eng[:, [0, 2, 3]])


def test_defaults_are_the_headers():
    # the values crowd.h documents for each *_defaults()
    lk = crowd.look_defaults()
    assert lk.damping == pytest.approx(0.15) and math.isinf(lk.max_speed) and lk.parameters == ()
    hp = crowd.harmonic_parameter_defaults("ParamBreath")
    assert (hp.id, hp.channel, hp.direction, hp.origin, hp.range, hp.duration) == ("ParamBreath", 0, 0, 0.5, 0.5, 3)
    bl = crowd.blink_defaults()
    assert (bl.mean, bl.max_deviation, bl.timescale, bl.model) == (2.5, 2, 10, crowd.BlinkModel.SINE)
    lm = crowd.limbs_defaults()
    assert lm.frame == crowd.PoseFrame.MEDIAPIPE_WORLD and lm.axis_fix == crowd.AxisFix.Y_ALONG_BONE
    assert lm.fallback == crowd.Fallback.STABLE
    assert lm.visibility_threshold == 0.5 and not lm.smoothing
    assert lm.hold_half_life == pytest.approx(0.3) and lm.reacquire_half_life == pytest.approx(0.4)
    assert (lm.bend_min, lm.bend_full, lm.arm_image_bend) == (10, 45, 15)
    assert (lm.min_cutoff, lm.beta, lm.d_cutoff) == (pytest.approx(0.1), 40, 1)
    assert tuple(lm.fallback_sign) == (-1, -1, 1, 1)  # arms -1, legs +1
    assert lm.outputs == crowd.LimbOutputs.BOTH == 0


def test_defaults_make_the_same_rig_as_explicit_values():
    """A rig from the dataclass defaults and one from the header's numbers written out are the
    same rig: equal settings digests and equal state after a tick."""
    def build(look, harm, blink):
        with crowd.Engine(seed=3) as e:
            r = e.rig(name="r", parameters=FACE, look=look, harmonic=harm, blink=blink)
            r.add(4)
            e.tick(0.1)
            return r.settings_digest, state(e, r)
    a = build(crowd.Look([crowd.LookParameter("ParamAngleX", "x", 30.0)]),
              crowd.Harmonic([crowd.HarmonicParameter("ParamBreath")]), crowd.Blink(["ParamEyeLOpen"]))
    b = build(dict(parameters=[("ParamAngleX", 0, 30.0)], damping=np.float32(0.15), max_speed=math.inf,
                   blend="default"),
              dict(parameters=[dict(id="ParamBreath", channel=0, direction="centric", origin=0.5, range=0.5,
                                    duration=3.0)], blend="default"),
              dict(parameters=["ParamEyeLOpen"], model="sine", blend="default", mean=2.5, max_deviation=2.0,
                   timescale=10.0))
    assert a == b


def test_engine_getters_and_context_manager():
    with crowd.Engine(seed=1, simd="scalar") as e:
        assert e.simd == crowd.Simd.SCALAR and e.simd_name == "scalar" and e.simd_width == 1
        assert e.threads == 1 and e.last_error == "" and not e.closed
    assert e.closed
    e.close()  # idempotent
    with crowd.Engine(threads=3) as e:
        assert e.threads == 3


def test_rig_queries(engine):
    r = face_rig(engine)
    assert r.name == "face" and r.parameter_count == 3 and r.instance_count == 0
    assert [r.parameter_index(p.id) for p in FACE] == [0, 1, 2]
    h = r.add(5)
    assert h.dtype == np.uint64 and h.shape == (5,) and len(set(h.tolist())) == 5
    assert r.instance_count == 5 == len(r) and r.running_count == 5
    np.testing.assert_array_equal(r.handles(), h)
    r.reserve(100)
    assert r.instance_count == 5
    assert engine.rigs == [r]


def test_instances_info_pause_remove(engine):
    r = face_rig(engine)
    h = r.add(4)
    ids = [engine.info(x)[0] for x in h]
    assert len(set(ids)) == 4
    assert [engine.info(x)[2] for x in h] == [0, 1, 2, 3]
    assert engine.info(h[0])[1] is r
    engine.pause(h[1])
    assert engine.paused(h[1]) and not engine.paused(h[0])
    assert r.running_count == 3 and engine.info(h[1])[2] == 3  # paused rows go last
    engine.resume(h[1])
    assert not engine.paused(h[1]) and r.running_count == 4
    engine.remove(h[0])
    assert r.instance_count == 3
    assert sorted(r.handles().tolist()) == sorted(h[1:].tolist())
    with pytest.raises(crowd.HandleError):
        engine.info(h[0])


def test_instance_random_is_deterministic_and_in_range():
    def draws():
        with crowd.Engine(seed=11) as e:
            h = face_rig(e).add(2)
            return e.random(h[0], 5), e.random(h[1], 5)
    (a0, a1), (b0, b1) = draws(), draws()
    np.testing.assert_array_equal(a0, b0)
    np.testing.assert_array_equal(a1, b1)
    assert not np.array_equal(a0, a1)
    assert ((a0 >= 0) & (a0 < 1)).all()


def test_fields_single_and_bulk(engine):
    r = face_rig(engine)
    h = r.add(3)
    engine.set("base", h, [1.0, 2.0, 3.0], index=0)
    np.testing.assert_array_equal(engine.get("base", h, index=0), [1, 2, 3])
    engine.set_one(h[1], "look_target", [1, 2, 3])
    np.testing.assert_array_equal(engine.get_one(h[1], "look_target"), [1, 2, 3])
    assert engine.get(Field.LOOK_TARGET, h).shape == (3, 3)
    engine.set_look_target(h[2], 4, 5, 6, True)
    np.testing.assert_array_equal(engine.get_one(h[2], "look_target"), [4, 5, 6])
    assert engine.get_one(h[2], "look_active") == 1.0
    assert engine.get_one(h[0], "look_active") == 0.0  # the default
    assert engine.get_one(h[0], "blink_manual") == -1.0  # the default
    engine.set(Field.LOOK_CENTER, h, np.arange(9, dtype=np.float32).reshape(3, 3))
    np.testing.assert_array_equal(engine.get(Field.LOOK_CENTER, h), np.arange(9).reshape(3, 3))


def test_harmonic_quarter_period_is_the_top(engine):
    # crowd.h §4: origin + range*sin(2*pi*T/duration) on [0, 1]; T = 0.75 of duration 3: the top
    r = engine.rig(parameters=[crowd.Parameter("ParamBreath", 0, 1)],
                   harmonic=crowd.Harmonic([crowd.HarmonicParameter("ParamBreath")]))
    h = r.add(2, harmonic_phase="zero")
    engine.tick(0.75)
    out = engine.outputs(h[0])
    assert out.shape == (1,) and 0.999 < out[0] <= 1.0
    assert engine.get_one(h[0], "harmonic_phase", 0) == pytest.approx(0.75)


def test_blink_now_starts_a_blink(engine):
    r = face_rig(engine)
    h = r.add(2, blink_start="random")
    engine.tick(0.0)
    engine.blink_now(h[:1])
    engine.tick(1 / 60)
    assert engine.get_one(h[0], "blink_phase") == 1.0  # closing
    assert engine.get_one(h[1], "blink_phase") == 0.0  # still idling (a drawn wait of seconds)


def test_poses_in_one_call_and_rest_pose(engine):
    r = engine.rig(limbs=True)
    h = r.add(3)
    rng = np.random.default_rng(1)
    poses = np.repeat(crowd.rest_landmarks()[None], 3, axis=0)
    poses[:, :, :3] += rng.uniform(-0.01, 0.01, (3, 33, 3)).astype(np.float32)
    engine.set_poses(h, poses)
    np.testing.assert_array_equal(engine.get_poses(h), poses)
    world, local = r.rest_pose()
    assert world.shape == (15, 4) and local.shape == (15, 4)
    np.testing.assert_allclose(np.linalg.norm(world, axis=1), 1, atol=1e-6)
    engine.set_poses(h, np.repeat(crowd.rest_landmarks()[None], 3, axis=0))
    engine.tick(1 / 30)
    # the rest landmarks solve to the rest pose (crowd.h §9: the rest pose is their solve); the
    # upper and lower arms' stable side axis is blended with their 15-degree bend, so only the
    # torso, head, hands and legs are compared, and every instance solves the same
    bones = np.stack([engine.get(Field.BONE_WORLD, h, b) for b in range(15)], axis=1)
    steady = [b for b in range(15) if b not in (3, 4, 6, 7)]
    for i in range(3):
        np.testing.assert_array_equal(bones[i], bones[0])
        np.testing.assert_allclose(np.abs(np.sum(bones[i] * world, axis=1))[steady], 1, atol=1e-5)


def test_tick_range_from_python_threads_matches_tick():
    def build():
        e = crowd.Engine(seed=5)
        r = face_rig(e)
        h = r.add(100, harmonic_phase="random")
        e.set(Field.LOOK_TARGET, h, np.linspace(-1, 1, 300, dtype=np.float32))
        e.set(Field.LOOK_ACTIVE, h, np.ones(100, np.float32))
        return e, r
    a, ra = build()
    b, rb = build()
    for _ in range(5):
        a.tick(1 / 60)
        # 4 disjoint ranges on 4 Python threads (the GIL is released during the call)
        ts = [threading.Thread(target=b.tick_range, args=(1 / 60, rb, k * 32, min(32, 100 - k * 32)))
              for k in range(4)]
        [t.start() for t in ts]
        [t.join() for t in ts]
    assert state(a, ra) == state(b, rb)
    a.close()
    b.close()


def test_threads_give_the_same_bytes():
    snaps = []
    for threads in (1, 2, 4):
        with crowd.Engine(seed=9, threads=threads) as e:
            r = face_rig(e)
            r.add(333, harmonic_phase="random")
            for _ in range(10):
                e.tick(1 / 60)
            snaps.append(state(e, r))  # engines' handle tags differ: compare the state
    assert snaps[0] == snaps[1] == snaps[2]


def test_every_simd_target_gives_the_same_bytes():
    snaps = {}
    for t in ("scalar", "sse2", "avx2", "avx512"):
        if not crowd.simd_supported(t):
            continue
        with crowd.Engine(seed=2, simd=t) as e:
            assert e.simd_name == t
            r = face_rig(e, limbs=True)
            h = r.add(37, harmonic_phase="random")
            e.set_poses(h, np.repeat(crowd.rest_landmarks()[None], 37, axis=0))
            for _ in range(5):
                e.tick(1 / 60)
            bones = [e.get(Field.BONE_WORLD, h, b) for b in range(15)]
            snaps[t] = state(e, r) + b"".join(b.tobytes() for b in bones)
    assert len(snaps) >= 2 and len(set(snaps.values())) == 1


def test_snapshot_round_trip_continues_bit_identically():
    with crowd.Engine(seed=4) as a:
        r = face_rig(a)
        h = r.add(20, harmonic_phase="random")
        a.tick(0.1)
        size = a.snapshot_size()
        snap = a.snapshot()
        assert isinstance(snap, bytes) and len(snap) == size and snap[:8] == b"CROWDSNP"
        with crowd.Engine(seed=999) as b:
            b.load(snap)
            for e in (a, b):
                e.tick(0.05)
            # handles saved with it stay valid in it
            np.testing.assert_array_equal(b.outputs(h[3]), a.outputs(h[3]))
            assert a.snapshot() == b.snapshot()
            b.load(bytearray(snap))  # any bytes-like object
            b.load(memoryview(snap))


def test_logger_receives_every_error():
    seen = []
    with crowd.Engine(logger=lambda code, msg: seen.append((code, msg))) as e:
        with pytest.raises(crowd.RangeError):
            e.rig(parameters=[crowd.Parameter("p", 5, 1)])
    assert seen and seen[0][0] == crowd.Result.ERR_RANGE and "parameters[0]" in seen[0][1]


def test_rig_bytes_per_instance_and_settings_digest():
    with crowd.Engine() as a, crowd.Engine(seed=99) as b:
        ra, rb = face_rig(a), face_rig(b)
        plain = a.rig(parameters=[crowd.Parameter("p", 0, 1)])
        assert ra.settings_digest == rb.settings_digest != plain.settings_digest  # equal descs, any engine
        # one float column is 4 bytes a row: the face rig has far more columns than the plain one
        assert ra.bytes_per_instance > plain.bytes_per_instance >= 4
        limbs = a.rig(limbs=True)
        assert limbs.bytes_per_instance > (132 + 2 * 15 * 4) * 4  # the pose and both bone sets at least


def test_first_instance_id_numbers_the_instances():
    # the field that follows the allocator and logger in crowd_engine_desc: a ctypes mirror
    # that lacked it would leave the C side reading past the struct
    with crowd.Engine(first_instance_id=1000) as e, crowd.Engine() as f:
        a = face_rig(e).add(3)
        b = face_rig(f).add(3)
        assert [e.info(h)[0] for h in a] == [1000, 1001, 1002]
        assert [f.info(h)[0] for h in b] == [0, 1, 2]


def test_ctypes_mirrors_match_the_header():
    # each ctypes struct has the size of the C struct it mirrors (a field added to crowd.h and
    # not here would make the C side read past a struct made in Python)
    from crowd import _ffi
    try:
        loaders = _ffi.declare(_ffi.load_loaders(), _ffi.LOADER_SIGNATURES)
    except OSError:
        pytest.skip("no loaders library")
    sizeof = loaders.crowd_loaders_sizeof
    mirrors = {"crowd_allocator": _ffi.Allocator, "crowd_logger": _ffi.Logger, "crowd_engine_desc": _ffi.EngineDesc,
               "crowd_rig": _ffi.Rig, "crowd_instance": _ffi.Instance, "crowd_parameter_desc": _ffi.ParameterDesc,
               "crowd_look_parameter_desc": _ffi.LookParameterDesc, "crowd_look_desc": _ffi.LookDesc,
               "crowd_harmonic_parameter_desc": _ffi.HarmonicParameterDesc, "crowd_harmonic_desc": _ffi.HarmonicDesc,
               "crowd_blink_desc": _ffi.BlinkDesc, "crowd_quat": _ffi.Quat, "crowd_limbs_desc": _ffi.LimbsDesc,
               "crowd_rig_desc": _ffi.RigDesc, "crowd_add_desc": _ffi.AddDesc}
    for name, mirror in mirrors.items():
        assert sizeof(name.encode()) == ctypes.sizeof(mirror), name
    assert sizeof(b"no_such_struct") == 0
