"""Every integer argument is range-checked against its C type and refused, never truncated to
32 (or 64) bits: before, get(..., index=2**32 + 1) read parameter 1, tick_range(dt, rig, 2**32,
2**32 + 2) ticked rows 0-1, reserve(2**32 + 1) reserved 1 and random(h, 2**32 + 3) allocated
16 GiB to return 3 draws."""
import numpy as np
import pytest

import crowd

U32 = 1 << 32
U64 = 1 << 64


@pytest.fixture
def face(engine):
    r = engine.rig(name="face", parameters=[crowd.Parameter("a", -10, 10), crowd.Parameter("b", -10, 10)],
                   harmonic=crowd.Harmonic([crowd.HarmonicParameter("b")]))
    h = r.add(3)
    engine.set("base", h, [1, 2, 3], index=0)
    engine.set("base", h, [4, 5, 6], index=1)
    return r, h


# (call, the argument's name in the message); each value is one past its type or negative
CASES = {
    "get index": (lambda e, r, h: e.get("base", h, index=U32 + 1), "index"),
    "set index": (lambda e, r, h: e.set("base", h, [7, 8, 9], index=U32), "index"),
    "get_one index": (lambda e, r, h: e.get_one(h[0], "base", index=U32 + 1), "index"),
    "set_one index": (lambda e, r, h: e.set_one(h[0], "base", [7], index=-1), "index"),
    "tick_range first": (lambda e, r, h: e.tick_range(1 / 60, r, U32, U32 + 2), "first"),
    "tick_range count": (lambda e, r, h: e.tick_range(1 / 60, r, 0, U32 + 2), "count"),
    "tick_range rig": (lambda e, r, h: e.tick_range(1 / 60, r.id + U32, 0, 1), "rig"),
    "reserve": (lambda e, r, h: r.reserve(U32 + 1), "capacity"),
    "add": (lambda e, r, h: r.add(U32 + 1), "count"),
    "random count": (lambda e, r, h: e.random(h[0], U32 + 3), "count"),
    "random handle": (lambda e, r, h: e.random(int(h[0]) + U64), "handle"),
    "info handle": (lambda e, r, h: e.info(-1), "handle"),
    "paused handle": (lambda e, r, h: e.paused(int(h[1]) - U64), "handle"),
    "set_look_target handle": (lambda e, r, h: e.set_look_target(int(h[0]) + U64, 0, 0, 1), "handle"),
    "outputs handle": (lambda e, r, h: e.outputs(int(h[0]) + U64), "handle"),
    "remove handles": (lambda e, r, h: e.remove([int(h[0]), -1]), "handles[1]"),
    "pause handles": (lambda e, r, h: e.pause([int(h[0]) + U64]), "handles[0]"),
    "get handles": (lambda e, r, h: e.get("base", [int(h[2]) + U64]), "handles[0]"),
    "blink_now handle": (lambda e, r, h: e.blink_now(int(h[0]) + U64), "handles"),
    "column index": (lambda e, r, h: r.column("base", U32), "index"),
    "column component": (lambda e, r, h: r.column("look_target", 0, U32 + 1), "component"),
    "columns index": (lambda e, r, h: r.columns("base", U32), "index"),
    "write_poses first_row": (lambda e, r, h: r.write_poses(np.zeros((0, 33, 4)), -1), "first_row"),
    "field": (lambda e, r, h: e.get(U32 + 0, h), "Field"),
    "harmonic channel": (lambda e, r, h: e.rig(parameters=[crowd.Parameter("c", 0, 1)], harmonic=crowd.Harmonic(
        [crowd.HarmonicParameter("c", channel=U32)])), "harmonic.parameters[0].channel"),
    "face smoothed_sources": (lambda e, r, h: e.rig(parameters=[crowd.Parameter("ParamMouthOpenY", 0, 1)], face=crowd.Face(
        mapping=[crowd.FaceMapping("jawOpen", "ParamMouthOpenY")], smoothed_sources=U64)), "face.smoothed_sources"),
    "face mapping source": (lambda e, r, h: e.rig(parameters=[crowd.Parameter("ParamMouthOpenY", 0, 1)], face=crowd.Face(
        mapping=[crowd.FaceMapping(U32 + 25, "ParamMouthOpenY")])), "FaceSource"),
    "set_faces handles": (lambda e, r, h: e.set_faces([int(h[0]) + U64], presence=[1]), "handles[0]"),
    "lipsync channels": (lambda e, r, h: crowd.lipsync_rms(np.ones(4, np.float32), channels=U32 + 1), "channels"),
    "lipsync frames": (lambda e, r, h: crowd.lipsync_rms(np.ones(4, np.float32), frames=-1), "frames"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_out_of_range_integers_are_refused(engine, face, case):
    r, h = face
    before = engine.snapshot()
    call, name = CASES[case]
    with pytest.raises(crowd.RangeError) as info:
        call(engine, r, h)
    assert name in info.value.message, info.value.message
    assert "outside" in info.value.message
    assert engine.snapshot() == before  # nothing changed


@pytest.mark.parametrize("call, name", [
    (lambda e, r, h: e.tick_range(1 / 60, r, 2.5, 1), "first"),
    (lambda e, r, h: r.add(1.5), "count"),
    (lambda e, r, h: e.get("base", h, index=1.0), "index"),
    (lambda e, r, h: e.get("base", [0.5]), "handles"),
    (lambda e, r, h: e.info(float(h[0])), "handle"),
    (lambda e, r, h: e.rig(parameters=[crowd.Parameter("p", 0, 1)], face=crowd.Face(mapping=[], smoothed_sources=2.5)),
     "face.smoothed_sources"),
    (lambda e, r, h: crowd.lipsync_rms(np.ones(4, np.float32), frames=2.0), "frames"),
])
def test_non_integers_are_refused(engine, face, call, name):
    r, h = face
    with pytest.raises(TypeError, match=name):
        call(engine, r, h)


@pytest.mark.parametrize("kw, name", [
    ({"seed": U64}, "seed"), ({"seed": -1}, "seed"), ({"initial_capacity": U32}, "initial_capacity"),
    ({"threads": U32 + 2}, "threads"), ({"first_instance_id": -1}, "first_instance_id"),
    ({"simd": U32 + 1}, "Simd"),
])
def test_engine_desc_integers_are_refused(kw, name):
    with pytest.raises(crowd.RangeError, match=name):
        crowd.Engine(**kw)


def test_the_edges_of_each_type_still_pass(engine, face):
    """The largest values each type holds reach the engine (which then judges them itself)."""
    r, h = face
    with pytest.raises(crowd.RangeError, match="index|parameter"):  # the engine's own refusal
        engine.get("base", h, index=U32 - 1)
    with pytest.raises(crowd.RangeError):
        engine.tick_range(1 / 60, r, U32 - 1, 1)
    with pytest.raises(crowd.HandleError):
        engine.info(U64 - 1)
    np.testing.assert_array_equal(engine.get("base", np.asarray(h, np.int64), index=1), [4, 5, 6])
    assert engine.random(h[0], 0).size == 0
    with crowd.Engine(seed=U64 - 1, first_instance_id=1 << 62) as e:
        assert e.info(e.rig(parameters=[crowd.Parameter("p", 0, 1)]).add(1)[0])[0] == 1 << 62
    with pytest.raises(crowd.RangeError, match="first_instance_id"):  # the engine's own limit
        crowd.Engine(first_instance_id=(1 << 62) + 1)


def test_face_source_bits_outside_the_sources_are_refused():
    assert crowd.face_source_bit("head_roll") == 1 << (crowd.FACE_SOURCE_COUNT - 1)
    for source in (crowd.FACE_SOURCE_COUNT, -1, (1 << 31) - 1):
        with pytest.raises(crowd.BadEnumError, match="face_source_bit"):
            crowd.face_source_bit(source)
