#!/usr/bin/python3
"""The binding's costs (a benchmark, not a test; timings vary on a shared machine):

1. tick(): Engine.tick() in a Python loop against crowd_tick in a C loop on the same engine
   (libcrowd_loaders' crowd_loaders_tick_loop), for an empty engine (the per-call overhead) and
   for N instances of the default crowd's face rig with limbs (the overhead as a share).
2. Bulk pose writes: Engine.set_poses() of an (n, 33, 4) float32 array (one checked
   crowd_instances_set call), and a write through the zero-copy (132, n) pose columns.

    PYTHONPATH=python CROWD_LIBRARY=build/engine/libcrowd.so.0 \\
    CROWD_LOADERS_LIBRARY=build/python/libcrowd_loaders.so.0 /usr/bin/python3 python/bench/bench_binding.py
"""
import argparse
import statistics
import time

import numpy as np

import crowd
from crowd import cli


def face_rig(engine):
    return engine.rig(
        name="face", parameters=[crowd.Parameter("ParamAngleX", -30, 30), crowd.Parameter("ParamBreath", 0, 1),
                                 crowd.Parameter("ParamEyeLOpen", 0, 1, 1.0)],
        look=crowd.Look([crowd.LookParameter("ParamAngleX", "x", 30.0)]),
        harmonic=crowd.Harmonic([crowd.HarmonicParameter("ParamBreath")]),
        blink=crowd.Blink(["ParamEyeLOpen"]), limbs=True)


def tick_overhead(instances, calls, repeats, simd):
    L = cli.loaders()
    with crowd.Engine(seed=1, simd=simd) as e:
        r = face_rig(e)
        if instances:
            h = r.add(instances, harmonic_phase="random")
            e.set_poses(h, np.repeat(crowd.rest_landmarks()[None], instances, axis=0))
            e.set("look_active", h, np.ones(instances))
        dt = 1 / 60
        py, c = [], []
        for _ in range(repeats):  # interleaved, so both see the same machine load
            t0 = time.perf_counter()
            for _ in range(calls):
                e.tick(dt)
            py.append((time.perf_counter() - t0) / calls)
            c.append(L.crowd_loaders_tick_loop(e._ptr, dt, calls) / calls)
        ratio = statistics.median(p / q for p, q in zip(py, c))  # pairs ran back to back
        return statistics.median(py), statistics.median(c), min(py), min(c), ratio, e.simd_name


def pose_writes(n, repeats):
    with crowd.Engine() as e:
        r = e.rig(limbs=True)
        h = r.add(n)
        rng = np.random.default_rng(0)
        poses = np.repeat(crowd.rest_landmarks()[None], n, axis=0)
        poses[:, :, :3] += rng.uniform(-0.01, 0.01, (n, 33, 3)).astype(np.float32)
        cols = r.columns("pose")
        set_t, view_t, write_t = [], [], []
        for _ in range(repeats):
            t0 = time.perf_counter()
            e.set_poses(h, poses)
            set_t.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            cols.array[:, :] = poses.reshape(n, 132).T
            view_t.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            r.write_poses(poses)
            write_t.append(time.perf_counter() - t0)
        assert np.array_equal(e.get_poses(h), poses)
        return poses.nbytes, statistics.median(set_t), statistics.median(view_t), statistics.median(write_t)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--instances", type=int, default=10000)
    p.add_argument("--simd", default="auto")
    p.add_argument("--repeats", type=int, default=15)
    a = p.parse_args()
    py, c, pymin, cmin, _, simd = tick_overhead(0, 20000, a.repeats, a.simd)
    print(f"simd {simd}")
    print(f"empty engine     Engine.tick {py * 1e6:8.3f} us/call   crowd_tick (C loop) {c * 1e6:8.3f} us/call   "
          f"overhead {(py - c) * 1e6:.3f} us (min-based {(pymin - cmin) * 1e6:.3f} us)")
    py, c, pymin, cmin, ratio, _ = tick_overhead(a.instances, 10, a.repeats * 3, a.simd)
    print(f"{a.instances:>6} instances Engine.tick {py * 1e3:8.3f} ms/call   crowd_tick (C loop) {c * 1e3:8.3f} ms/call   "
          f"overhead {(ratio - 1) * 100:+.2f}% (median of paired ratios; of medians {(py / c - 1) * 100:+.2f}%, "
          f"of minima {(pymin / cmin - 1) * 100:+.2f}%)")
    nbytes, st, vt, wt = pose_writes(a.instances, a.repeats)
    print(f"pose writes {a.instances} x 33 x 4 float32 ({nbytes / 1e6:.2f} MB):")
    print(f"  Engine.set_poses (crowd_instances_set)   {nbytes / st / 1e9:6.2f} GB/s ({st * 1e3:.3f} ms)")
    print(f"  Rig.write_poses (checked, column view)   {nbytes / wt / 1e9:6.2f} GB/s ({wt * 1e3:.3f} ms)")
    print(f"  pose column view, unchecked assignment   {nbytes / vt / 1e9:6.2f} GB/s ({vt * 1e3:.3f} ms)")


if __name__ == "__main__":
    main()
