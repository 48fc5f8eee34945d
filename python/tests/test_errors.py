"""Every error path: the right crowd.Error subclass, its code, and the engine's message naming
the field; nothing already stored changes."""
import numpy as np
import pytest

import crowd
from crowd import Field, Result


def raises(cls, code, *fragments):
    """pytest.raises for cls, then the code and the message's fragments."""
    class Check:
        def __enter__(self):
            self.cm = pytest.raises(cls)
            self.info = self.cm.__enter__()
            return self.info

        def __exit__(self, *exc):
            suppressed = self.cm.__exit__(*exc)
            err = self.info.value
            assert isinstance(err, crowd.Error)
            assert err.code == code and err.name == "CROWD_" + Result(code).name
            for f in fragments:
                assert f in err.message, (f, err.message)
            return suppressed
    return Check()


@pytest.fixture
def face(engine):
    r = engine.rig(name="face", parameters=[crowd.Parameter("ParamAngleX", -30, 30)],
                   look=crowd.Look([crowd.LookParameter("ParamAngleX", "x", 30.0)]))
    return r, r.add(2)


def test_null(engine):
    with raises(crowd.NullError, Result.ERR_NULL, "parameters[0].id"):
        engine.rig(parameters=[crowd.Parameter(None, 0, 1)])


def test_handle(engine, face):
    r, h = face
    with raises(crowd.HandleError, Result.ERR_HANDLE):
        engine.set_one(0, "base", [1.0])
    engine.remove(h[1])
    with raises(crowd.HandleError, Result.ERR_HANDLE):
        engine.get_one(h[1], "base")
    with crowd.Engine() as other:  # a handle of another engine
        o = other.rig(parameters=[crowd.Parameter("p", 0, 1)]).add(1)
        with raises(crowd.HandleError, Result.ERR_HANDLE):
            engine.info(o[0])


def test_not_finite_names_the_value_and_changes_nothing(engine, face):
    r, h = face
    engine.set("base", h, [1.0, 2.0])
    with raises(crowd.NotFiniteError, Result.ERR_NOT_FINITE, "values[1]", "base"):
        engine.set("base", h, [5.0, np.nan])
    np.testing.assert_array_equal(engine.get("base", h), [1, 2])  # all checked before any write
    with raises(crowd.NotFiniteError, Result.ERR_NOT_FINITE):
        engine.tick(float("inf"))


def test_range(engine, face):
    r, h = face
    with raises(crowd.RangeError, Result.ERR_RANGE, "parameters[0].min"):
        engine.rig(parameters=[crowd.Parameter("p", 5, 1)])
    with raises(crowd.RangeError, Result.ERR_RANGE, "dt"):
        engine.tick(2.0)
    with raises(crowd.RangeError, Result.ERR_RANGE, "look_weight"):
        engine.set(Field.LOOK_WEIGHT, h, [0.5, 1.5])
    with raises(crowd.RangeError, Result.ERR_RANGE, "limbs"):
        engine.rig(limbs=crowd.Limbs(visibility_threshold=2.0))
    assert isinstance(crowd.RangeError("x"), ValueError)


def test_unknown_id(engine, face):
    r, h = face
    with raises(crowd.UnknownIdError, Result.ERR_UNKNOWN_ID, "nope"):
        r.parameter_index("nope")
    with raises(crowd.UnknownIdError, Result.ERR_UNKNOWN_ID, "look", "ParamMissing"):
        engine.rig(parameters=[crowd.Parameter("p", 0, 1)],
                   look=crowd.Look([crowd.LookParameter("ParamMissing", "x", 1.0)]))


def test_duplicate_id(engine):
    with raises(crowd.DuplicateIdError, Result.ERR_DUPLICATE_ID, "parameters[1]", "p"):
        engine.rig(parameters=[crowd.Parameter("p", 0, 1), crowd.Parameter("p", 0, 1)])


def test_read_only(engine, face):
    r, h = face
    before = engine.get_one(h[0], "output")
    with raises(crowd.ReadOnlyError, Result.ERR_READ_ONLY, "output", "read only"):
        engine.set_one(h[0], "output", [1.0])
    assert isinstance(crowd.ReadOnlyError("x"), ValueError)
    assert np.array_equal(engine.get_one(h[0], "output"), before)


def test_repeated_handle(engine, face):
    r, h = face
    with raises(crowd.RepeatedHandleError, Result.ERR_REPEATED_HANDLE, "handles[2]"):
        engine.remove([h[0], h[1], h[0]])
    assert r.instance_count == 2  # nothing removed


def test_bad_enum(engine, face):
    r, h = face
    with raises(crowd.BadEnumError, Result.ERR_BAD_ENUM, "simd"):
        crowd.Engine(simd=99)
    with raises(crowd.BadEnumError, Result.ERR_BAD_ENUM, "field"):
        engine.get_one(h[0], 99)
    with raises(crowd.BadEnumError, Result.ERR_BAD_ENUM, "blend"):
        engine.rig(parameters=[crowd.Parameter("p", 0, 1)], look=crowd.Look(blend=42))
    with pytest.raises(ValueError, match="unknown name"):
        engine.get_one(h[0], "no_such_field")


def test_not_stored(engine):
    r = engine.rig(name="w", limbs=crowd.Limbs(outputs="world"))
    h = r.add(1)
    engine.tick(0.1)
    world = engine.get_one(h[0], Field.BONE_WORLD, 2)
    with raises(crowd.NotStoredError, Result.ERR_NOT_STORED, "bone_local", 'rig "w"', "world rotations only"):
        engine.get_one(h[0], Field.BONE_LOCAL, 2)
    with raises(crowd.NotStoredError, Result.ERR_NOT_STORED, "bone_local"):
        r.column(Field.BONE_LOCAL, 2)
    np.testing.assert_array_equal(engine.get_one(h[0], Field.BONE_WORLD, 2), world)  # nothing changed
    loc = engine.rig(name="l", limbs=crowd.Limbs(outputs=crowd.LimbOutputs.LOCAL))
    with raises(crowd.NotStoredError, Result.ERR_NOT_STORED, "bone_world", "local rotations only"):
        loc.column(Field.BONE_WORLD, 0)
    with raises(crowd.BadEnumError, Result.ERR_BAD_ENUM, "outputs"):
        engine.rig(limbs=crowd.Limbs(outputs=3))


def test_capacity(engine, face):
    r, h = face
    with raises(crowd.CapacityError, Result.ERR_CAPACITY):
        r.reserve(2 ** 32 - 1)
    with raises(crowd.CapacityError, Result.ERR_CAPACITY, "channel"):
        engine.rig(parameters=[crowd.Parameter("p", 0, 1)],
                   harmonic=crowd.Harmonic([crowd.HarmonicParameter("p")], channel_timescales=[1.0] * 17))
    assert r.instance_count == 2


def test_out_of_memory(engine, face):
    r, h = face
    engine._arena.refuse = True  # the package's allocator returns NULL from now on
    try:
        with raises(crowd.OutOfMemoryError, Result.ERR_OUT_OF_MEMORY):
            r.reserve(10_000)
    finally:
        engine._arena.refuse = False
    assert r.instance_count == 2 and isinstance(crowd.OutOfMemoryError("x"), MemoryError)
    engine.tick(0.1)  # the engine goes on


def test_unsupported():
    missing = [t for t in ("sse2", "avx2", "avx512") if not crowd.simd_supported(t)]
    if not missing:
        pytest.skip("this CPU and build run every SIMD target: none to refuse")
    with raises(crowd.UnsupportedError, Result.ERR_UNSUPPORTED):
        crowd.Engine(simd=missing[0])


def test_wrong_rig_code_maps_to_its_class():
    # No entry point returns CROWD_ERR_WRONG_RIG today; the mapping is still exact.
    err = crowd._error(Result.ERR_WRONG_RIG, "m")
    assert type(err) is crowd.WrongRigError and err.code == 11 and err.text == crowd.result_text(11)


def test_thread_code_maps_to_its_class():
    # CROWD_ERR_THREAD needs the system to refuse a thread; the mapping is exact.
    err = crowd._error(Result.ERR_THREAD, "m")
    assert type(err) is crowd.ThreadError and err.name == "CROWD_ERR_THREAD"
    assert crowd.result_text(Result.ERR_THREAD) == "the system could not start a thread"


def test_no_controller(engine):
    r = engine.rig(parameters=[crowd.Parameter("p", 0, 1)])
    h = r.add(1)
    with raises(crowd.NoControllerError, Result.ERR_NO_CONTROLLER, "look"):
        engine.set_look_target(h[0], 1, 2, 3)
    with raises(crowd.NoControllerError, Result.ERR_NO_CONTROLLER):
        r.rest_pose()


def test_bad_snapshot_changes_nothing(engine, face):
    r, h = face
    before = engine.snapshot()
    with raises(crowd.BadSnapshotError, Result.ERR_BAD_SNAPSHOT):
        engine.load(b"garbage")
    corrupt = bytearray(before)
    corrupt[-1] ^= 1
    with raises(crowd.BadSnapshotError, Result.ERR_BAD_SNAPSHOT):
        engine.load(bytes(corrupt))
    with raises(crowd.BadSnapshotError, Result.ERR_BAD_SNAPSHOT):
        engine.load(before[:-3])
    assert engine.snapshot() == before


def test_closed_engine_raises_closed_error():
    e = crowd.Engine()
    r = e.rig(parameters=[crowd.Parameter("p", 0, 1)])
    e.close()
    for call in (lambda: e.tick(0.1), lambda: e.snapshot(), lambda: r.add(1), lambda: e.threads,
                 lambda: r.column("base")):
        with pytest.raises(crowd.ClosedError):
            call()


def test_shape_mismatch_is_a_value_error(engine, face):
    r, h = face
    with pytest.raises(ValueError, match="expected 2 x 3"):
        engine.set(Field.LOOK_TARGET, h, [1.0, 2.0])
    with pytest.raises(ValueError, match="poses"):
        engine.set_poses(h, np.zeros((2, 33, 3), np.float32))
