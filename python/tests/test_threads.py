"""Ticks on other threads and calls that change the engine's storage (crowd.h §1: tick_range runs
concurrently only with other tick_ranges on disjoint rows, while no other call runs).

A tick is held inside the engine deterministically through the logger: a tick with dt = 2 fails
(CROWD_ERR_RANGE) and logs from inside crowd_tick / crowd_tick_range, on the ticking thread, with
the GIL released around the C call; the logger below blocks there until the test releases it."""
import threading

import numpy as np
import pytest

import crowd
from crowd import Field

WAIT = 10.0  # seconds before a test gives up on an event that should come at once


def face(e, limbs=False):
    return e.rig(name="face", parameters=[crowd.Parameter("ParamAngleX", -30, 30), crowd.Parameter("ParamBreath", 0, 1),
                                          crowd.Parameter("ParamEyeLOpen", 0, 1, 1.0)],
                 look=crowd.Look([crowd.LookParameter("ParamAngleX", "x", 30.0)]),
                 harmonic=crowd.Harmonic([crowd.HarmonicParameter("ParamBreath")]),
                 blink=crowd.Blink(["ParamEyeLOpen"]), limbs=limbs or None)


class Hold:
    """A logger that holds the call logging on the thread `holder` until release() (and may run
    `during` there first, recording what it raised)."""

    def __init__(self):
        self.holder = None
        self.inside = threading.Event()
        self.go = threading.Event()
        self.during = None
        self.raised = None

    def __call__(self, code, message):
        if threading.get_ident() != self.holder:
            return
        if self.during is not None:
            try:
                self.during()
            except Exception as exc:  # noqa: BLE001 - recorded for the test to judge
                self.raised = exc
        self.inside.set()
        self.go.wait(WAIT)

    def start(self, call):
        """Runs call() (a failing tick) on a new thread and returns once it is held in the logger;
        the thread records what the tick raised in .result."""
        box = {}

        def run():
            self.holder = threading.get_ident()
            try:
                call()
            except Exception as exc:  # noqa: BLE001
                box["raised"] = exc
        t = threading.Thread(target=run)
        t.result = box
        t.start()
        assert self.inside.wait(WAIT), "the held tick never reached the logger"
        return t


def background(call):
    """call() on a new thread; .done tells whether it returned, .result what it raised."""
    box = {}
    done = threading.Event()

    def run():
        try:
            box["value"] = call()
        except Exception as exc:  # noqa: BLE001
            box["raised"] = exc
        done.set()
    t = threading.Thread(target=run)
    t.done, t.result = done, box
    t.start()
    return t


# Each storage change of the issue, and what must hold once it ran.
CHANGES = {
    "close": (lambda e, r, h, snap: e.close(), lambda e, r: e.closed),
    "add": (lambda e, r, h, snap: r.add(5000), lambda e, r: r.instance_count == 5064),
    "reserve": (lambda e, r, h, snap: r.reserve(100000), lambda e, r: r.instance_count == 64),
    "remove": (lambda e, r, h, snap: e.remove(h[:32]), lambda e, r: r.instance_count == 32),
    "load": (lambda e, r, h, snap: e.load(snap), lambda e, r: r.instance_count == 64),
    "rig": (lambda e, r, h, snap: e.rig(parameters=[crowd.Parameter("q", 0, 1)]), lambda e, r: len(e.rigs) == 2),
    "pause": (lambda e, r, h, snap: e.pause(h[:10]), lambda e, r: r.running_count == 54),
}


@pytest.mark.parametrize("allocator", ["numpy", "c"])
@pytest.mark.parametrize("change", sorted(CHANGES))
@pytest.mark.parametrize("tick", ["tick", "tick_range"])
def test_storage_changes_wait_for_a_tick_on_another_thread(change, tick, allocator):
    hold = Hold()
    e = crowd.Engine(seed=3, logger=hold, allocator=allocator)
    r = face(e)
    h = r.add(64)
    snap = e.snapshot()
    held = hold.start((lambda: e.tick(2.0)) if tick == "tick" else (lambda: e.tick_range(2.0, r, 0, 64)))
    apply, check = CHANGES[change]
    other = background(lambda: apply(e, r, h, snap))
    # while the tick is inside the engine the change waits (it must not free or move anything)
    assert not other.done.wait(0.3), f"{change} ran while a {tick} was inside the engine"
    # (peeking through the C library: the wrapper's own getters would wait for the tick too)
    assert not e.closed and len(e.rigs) == 1
    assert crowd.lib.crowd_rig_instance_count(e._ptr, r._c) == 64 and crowd.lib.crowd_rig_running_count(e._ptr, r._c) == 64
    hold.go.set()
    held.join(WAIT)
    assert other.done.wait(WAIT), f"{change} never ran after the {tick} returned"
    assert isinstance(held.result.get("raised"), crowd.RangeError)  # dt 2: the held tick's own error
    assert "raised" not in other.result, other.result.get("raised")
    assert check(e, r)
    e.close()


def test_a_change_from_inside_a_tick_on_its_own_thread_is_refused():
    hold = Hold()
    e = crowd.Engine(seed=3, logger=hold)
    r = face(e)
    r.add(8)
    hold.during = lambda: r.add(1000)  # the logger, on the ticking thread, inside crowd_tick
    held = hold.start(lambda: e.tick(2.0))
    hold.go.set()
    held.join(WAIT)
    assert isinstance(hold.raised, crowd.BusyError), hold.raised
    assert "Rig.add" in hold.raised.message and "inside a tick" in hold.raised.message
    assert r.instance_count == 8  # refused: nothing changed
    e.tick(1 / 60)
    e.close()


def test_overlapping_tick_ranges_are_refused():
    hold = Hold()
    e = crowd.Engine(seed=3, logger=hold)
    r = face(e)
    other = face(e)
    r.add(64)
    other.add(16)
    held = hold.start(lambda: e.tick_range(2.0, r, 0, 32))  # rows 0 .. 31 of r in flight
    try:
        for call, rows in ((lambda: e.tick_range(1 / 60, r, 16, 32), "rows 16 .. 47"),
                           (lambda: e.tick_range(1 / 60, r, 31, 1), "rows 31 .. 31"),
                           (lambda: e.tick(1 / 60), "every row")):
            with pytest.raises(crowd.BusyError) as info:
                call()
            assert rows in info.value.message and "rows 0 .. 31" in info.value.message, info.value.message
        # disjoint rows of the same rig, rows of another rig and empty ranges run
        e.tick_range(1 / 60, r, 32, 32)
        e.tick_range(1 / 60, other, 0, 16)
        e.tick_range(1 / 60, r, 10, 0)
    finally:
        hold.go.set()
        held.join(WAIT)
    e.tick_range(1 / 60, r, 0, 64)  # nothing in flight: every range runs again
    e.close()


@pytest.mark.parametrize("allocator", ["numpy", "c"])
def test_storage_changes_during_ticks_touch_no_freed_memory(allocator):
    """The issue's case, concurrently for real: one thread ticks (whole and by ranges) while this one
    adds, reserves, removes, loads and finally closes. Under ASan (the sanitizer leg) the old
    binding reported heap-use-after-free in the look and blend stages."""
    e = crowd.Engine(seed=5, allocator=allocator)
    r = face(e, limbs=True)
    r.add(2000, harmonic_phase="random")
    snap = e.snapshot()
    stop = threading.Event()
    errors = []

    def ticker():
        k = 0
        while not stop.is_set():
            try:
                if k % 2:
                    e.tick(1 / 60)
                else:
                    n = r.instance_count
                    e.tick_range(1 / 60, r, 0, n // 2)
                    e.tick_range(1 / 60, r, n // 2, n - n // 2)
            except crowd.ClosedError:
                return
            except crowd.Error as exc:  # a range past a concurrent removal: refused, fine
                if not isinstance(exc, crowd.RangeError):
                    errors.append(exc)
            k += 1
    t = threading.Thread(target=ticker)
    t.start()
    try:
        for k in range(30):
            h = r.add(500)
            r.reserve(r.instance_count + 4000 + k)
            e.remove(h[:250])
            if k % 10 == 9:
                e.load(snap)
    finally:
        e.close()
        stop.set()
        t.join(WAIT)
    assert not t.is_alive() and not errors, errors
