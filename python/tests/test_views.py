"""Zero-copy column views: they are the engine's memory, writable where the C API allows,
they keep the engine alive, and a stale view or one outliving close() raises."""
import ctypes as C
import gc
import os
import subprocess
import sys
import weakref

import numpy as np
import pytest

import crowd
from crowd import Field, lib, _ffi

PARAMS = [crowd.Parameter("a", -1, 1), crowd.Parameter("b", 0, 10, 5.0)]


def plain_rig(engine, n=5):
    r = engine.rig(name="plain", parameters=PARAMS, harmonic=crowd.Harmonic([crowd.HarmonicParameter("b")]))
    return r, r.add(n)


def c_column(engine, rig, field, index=0, component=0):
    """crowd_rig_column called directly: the address and count the engine hands out."""
    ptr, n = _ffi.FP(), _ffi.u32()
    assert lib.crowd_rig_column(engine._ptr, _ffi.Rig(rig.id), int(field), index, component, C.byref(ptr),
                                C.byref(n)) == 0
    return C.cast(ptr, C.c_void_p).value, n.value


@pytest.mark.parametrize("allocator", ["numpy", "c"])
def test_views_are_the_engines_memory(allocator):
    with crowd.Engine(allocator=allocator) as e:
        r, h = plain_rig(e)
        col = r.column("base", 1)
        addr, n = c_column(e, r, Field.BASE, 1)
        assert col.array.ctypes.data == addr and len(col) == n == 5
        assert np.shares_memory(col.array, r.column("base", 1).array)
        assert np.shares_memory(np.asarray(col), col.array)
        assert not np.shares_memory(col.array, r.column("base", 0).array)
        col[2] = 7.5  # a write through the view is what the C getter reads
        assert e.get_one(h[2], "base", 1) == 7.5
        e.set_one(h[3], "base", [1.25], index=1)  # and the C setter's write shows in the view
        assert col[3] == 1.25
        poses = r.columns  # noqa: F841 (a rig without limbs has no pose columns)
        with pytest.raises(crowd.NoControllerError):
            r.columns("pose")


def test_pose_columns_share_memory_with_each_component():
    with crowd.Engine() as e:
        r = e.rig(limbs=True)
        h = r.add(20)
        cols = r.columns("pose")
        assert cols.shape == (132, 20)
        for k in (0, 1, 57, 131):
            one = r.column("pose", 0, k)
            assert np.shares_memory(cols.array[k], one.array)
            assert c_column(e, r, Field.POSE, 0, k)[0] == cols.array[k].ctypes.data
        marks = crowd.rest_landmarks()
        cols[:, :] = marks.reshape(-1, 1)  # every instance's 33 landmarks in one write
        np.testing.assert_array_equal(e.get_poses(h), np.repeat(marks[None], 20, axis=0))


def test_writing_a_base_column_changes_the_next_tick_as_in_c():
    values = np.array([-2.0, -0.5, 0.0, 0.25, 3.0], np.float32)

    def run(write):
        with crowd.Engine(seed=3) as e:
            # a has no controller: output = base (crowd.h §8); b has a harmonic blended on its base
            r = e.rig(parameters=PARAMS, harmonic=crowd.Harmonic([crowd.HarmonicParameter("b")]))
            h = r.add(5)
            e.tick(1 / 60)
            write(e, r, h)
            before = r.column("output", 0).array.copy()
            e.tick(1 / 60)
            return before, r.column("output", 0).array.copy(), r.column("output", 1).array.copy()

    def by_view(e, r, h):
        r.column("base", 0).array[:] = values
        r.column("base", 1).array[:] = values * 4

    def by_c(e, r, h):
        e.set("base", h, values, index=0)
        e.set("base", h, values * 4, index=1)

    before, after_view, b_view = run(by_view)
    _, after_c, b_c = run(by_c)
    _, untouched_a, untouched_b = run(lambda e, r, h: None)
    np.testing.assert_array_equal(before, np.zeros(5))  # the default base, unchanged until the tick
    np.testing.assert_array_equal(after_view, values)
    assert after_view.tobytes() == after_c.tobytes() and b_view.tobytes() == b_c.tobytes()
    assert not np.array_equal(b_view, untouched_b) and not np.array_equal(after_view, untouched_a)


def test_views_are_read_only_where_the_api_is():
    with crowd.Engine() as e:
        r, h = plain_rig(e)
        for f in ("output",):
            v = r.column(f, 0)
            assert not v.writable
            with pytest.raises(ValueError):
                v[0] = 1.0
        assert r.column("base", 0).writable and r.column("harmonic_phase", 0).writable
        lr = e.rig(limbs=True)
        lr.add(1)
        assert not lr.columns("bone_world", 0).writable and not lr.columns("bone_local", 3).writable
        assert lr.columns("pose").writable and lr.columns("root").writable


def test_a_view_outliving_close_raises():
    e = crowd.Engine()
    r, h = plain_rig(e)
    v = r.column("output", 1)
    p = e.rig(limbs=True)
    p.add(3)
    pose = p.columns("pose")
    e.tick(0.1)
    kept = v.array  # a bare array taken before close (see the package doc)
    expected = kept.copy()
    e.close()
    for access in (lambda: v.array, lambda: np.asarray(v), lambda: v[0], lambda: len(v), lambda: v.shape,
                   lambda: v.__setitem__(0, 1.0), lambda: pose.array, lambda: np.shares_memory(pose, pose)):
        with pytest.raises(crowd.ClosedError):
            access()
    assert not v.valid and "stale" in repr(v)
    # The package's allocator kept the block the bare array points into: stale, never freed.
    np.testing.assert_array_equal(kept, expected)


def test_views_go_stale_by_the_headers_rules():
    with crowd.Engine() as e:
        r, h = plain_rig(e)
        other = e.rig(parameters=[crowd.Parameter("z", 0, 1)])
        other.add(2)
        ov = other.column("base", 0)
        v = r.column("base", 0)
        r.add(1)  # adding instances of its rig
        with pytest.raises(crowd.StaleViewError):
            v.array
        assert ov.valid  # another rig's view is not affected
        v = r.column("base", 0)
        r.reserve(1000)  # reserving
        with pytest.raises(crowd.StaleViewError):
            v[0]
        v = r.column("base", 0)
        e.pause(h[0])  # pausing moves rows but not memory: still valid
        assert v.valid and r.handles()[-1] == h[0]
        e.remove(h[1])  # removing changes the length
        with pytest.raises(crowd.StaleViewError):
            len(v)
        assert not ov.valid
        v = r.column("base", 0)
        assert len(v) == 5
        e.load(e.snapshot())  # loading a snapshot
        with pytest.raises(crowd.StaleViewError):
            np.asarray(v)


def test_a_view_keeps_its_engine_alive():
    e = crowd.Engine()
    r, h = plain_rig(e)
    v = r.column("base", 1)
    alive = weakref.ref(e)
    del e, r
    gc.collect()
    assert alive() is not None  # the view holds it
    np.testing.assert_array_equal(v.array, np.full(5, 5.0))
    del v
    gc.collect()
    assert alive() is None


def test_empty_rig_has_empty_views():
    with crowd.Engine() as e:
        r = e.rig(parameters=PARAMS)
        assert r.column("base", 0).shape == (0,)
        assert r.handles().shape == (0,)


def test_write_poses_checks_like_crowd_instances_set():
    with crowd.Engine() as e:
        r = e.rig(limbs=True)
        h = r.add(6)
        poses = np.repeat(crowd.rest_landmarks()[None], 4, axis=0)
        poses[:, :, 0] += np.arange(4, dtype=np.float32)[:, None]
        r.write_poses(poses, first_row=2)
        np.testing.assert_array_equal(e.get_poses(r.handles()[2:]), poses)
        before = e.get_poses(h)
        for k, (value, cls) in enumerate([(np.nan, crowd.NotFiniteError), (2e9, crowd.RangeError),
                                          (1.5, crowd.RangeError), (-0.1, crowd.RangeError)]):
            bad = poses.copy()
            comp = 3 if k >= 2 else 1
            bad[1, 7, comp] = value
            with pytest.raises(cls) as w:
                r.write_poses(bad)
            # the index crowd_instances_set would name for the same values
            with pytest.raises(cls) as c:
                e.set_poses(r.handles()[:4], bad)
            index = 1 * 132 + 7 * 4 + comp
            assert f"values[{index}]" in w.value.message and f"values[{index}]" in c.value.message
            np.testing.assert_array_equal(e.get_poses(h), before)  # nothing written
        with pytest.raises(ValueError):
            r.write_poses(poses, first_row=3)


BARE_AFTER_CLOSE = """
import crowd
e = crowd.Engine(allocator="{allocator}")
r = e.rig(parameters=[crowd.Parameter("p", 0, 1, 0.5)])
r.add(100)
view = r.column("base", 0)
bare = view.array
e.close()
try:
    view.array
except crowd.ClosedError:
    print("view raised")
print(bare.copy().sum())  # memmove: ASan checks it
"""


@pytest.mark.skipif(not os.environ.get("CROWD_UNDER_ASAN"), reason="only meaningful with ASan preloaded "
                    "(the sanitizer build's python test)")
@pytest.mark.parametrize("allocator", ["numpy", "c"])
def test_under_asan_a_bare_array_after_close(allocator):
    """The proof this run is instrumented, and of why views are checked: with the C library's
    allocator a bare array kept past close() reads freed memory (ASan reports it); with the
    package's allocator its block is still alive; the view raises either way."""
    r = subprocess.run([sys.executable, "-c", BARE_AFTER_CLOSE.format(allocator=allocator)], capture_output=True,
                       text=True, env=dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(__file__))))
    assert r.stdout.startswith("view raised")
    if allocator == "numpy":
        assert r.returncode == 0 and "AddressSanitizer" not in r.stderr, r.stderr
        assert float(r.stdout.split()[-1]) == 50.0
    else:
        assert r.returncode != 0 and "heap-use-after-free" in r.stderr
