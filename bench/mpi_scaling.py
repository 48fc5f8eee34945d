#!/usr/bin/python3
"""crowd run --mpi against threads and one process (a benchmark, not a test: README "Several
machines" has its numbers).

usage: bench/mpi_scaling.py [--crowd build/tools/crowd] [--mpirun mpirun] [--frames 100] [--repeat 5]
                            [--only threads,ranks,plain,mpi1,weak1,weak2]

Writes a face-rig scene (13 parameters: 6 look, 5 harmonic, blink on both eyes; no limbs) of the
sizes needed and runs, interleaved, --repeat times each:
  threads    1M faces, one process, --threads 2
  ranks      1M faces, mpirun -np 2 --mpi, 1 thread each
  plain      1M faces, one process, 1 thread          (the --mpi overhead: against mpi1)
  mpi1       1M faces, mpirun -np 1 --mpi, 1 thread
  weak1      500k faces, mpirun -np 1 --mpi            (weak scaling: 500k per rank)
  weak2      1M faces, mpirun -np 2 --mpi
and prints the median and the best instance-updates/s of each (the best: on a shared machine
other work only slows a run down) (for --mpi, N*F over the slowest rank's tick
time), the ratios, and checks that every run of one size gave the same checksum.
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--crowd", default="build/tools/crowd")
ap.add_argument("--mpirun", default="mpirun")
ap.add_argument("--frames", type=int, default=100)
ap.add_argument("--repeat", type=int, default=5)
ap.add_argument("--only", default="", help="comma-separated configurations (default: all)")
args = ap.parse_args()
MPI_FLAGS = ["--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])

LOOK = ["ParamAngleX", "ParamAngleY", "ParamAngleZ", "ParamEyeBallX", "ParamEyeBallY", "ParamBodyAngleX"]
HARM = ["ParamBreath", "ParamBodyAngleY", "ParamBodyAngleZ", "ParamHairFront", "ParamHairBack"]


def face_scene(path, count):
    params = [{"id": p, "min": -30, "max": 30} for p in LOOK + HARM]
    params += [{"id": p, "min": 0, "max": 1, "default": 1} for p in ("ParamEyeLOpen", "ParamEyeROpen")]
    rig = {"name": "face", "parameters": params,
           "look": {"parameters": [{"id": p, "axis": "xyz"[k % 3], "factor": 30} for k, p in enumerate(LOOK)]},
           "harmonic": {"parameters": [{"id": p, "duration": 2 + k * 0.7} for k, p in enumerate(HARM)]},
           "blink": {"parameters": ["ParamEyeLOpen", "ParamEyeROpen"]}}
    group = {"rig": "face", "count": count, "harmonic_phase": "random",
             "look": {"jitter": 0.5, "keys": [{"t": 0, "target": [1, 0, 0]}, {"t": 0.5, "target": [-1, 0.5, 0]}]}}
    with open(path, "w") as f:
        json.dump({"seed": 1, "frames": args.frames, "rigs": [rig], "groups": [group]}, f)


def run(scene, threads=1, ranks=None):
    cmd = [args.crowd, "run", scene, "--json", "--quiet", "--threads", str(threads)]
    if ranks:
        cmd = [args.mpirun] + MPI_FLAGS + ["-np", str(ranks)] + cmd + ["--mpi"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


with tempfile.TemporaryDirectory() as tmp:
    big, half = os.path.join(tmp, "1m.json"), os.path.join(tmp, "500k.json")
    face_scene(big, 1_000_000)
    face_scene(half, 500_000)
    configs = {"threads": (big, 2, None), "ranks": (big, 1, 2), "plain": (big, 1, None), "mpi1": (big, 1, 1),
               "weak1": (half, 1, 1), "weak2": (big, 1, 2)}
    if args.only:
        configs = {k: v for k, v in configs.items() if k in args.only.split(",")}
    rates = {k: [] for k in configs}
    sums = {}
    for rep in range(args.repeat):
        for name, (scene, threads, ranks) in configs.items():
            j = run(scene, threads, ranks)
            rates[name].append(j["updates_per_second"])
            sums.setdefault(scene, set()).add(j["checksum"])
            print(f"rep {rep} {name:8} {j['updates_per_second'] / 1e6:8.1f} M/s  simd {j['simd']}"
                  + (f"  rank tick s {j['rank_tick_seconds']}" if ranks else ""), flush=True)
    assert all(len(s) == 1 for s in sums.values()), sums
    med = {k: statistics.median(v) for k, v in rates.items()}
    best = {k: max(v) for k, v in rates.items()}
    print()
    for k, v in med.items():
        print(f"{k:8} median {v / 1e6:8.1f}, best {best[k] / 1e6:8.1f} M instance-updates/s"
              f" (runs: {', '.join(f'{x / 1e6:.1f}' for x in rates[k])})")

    def ratio(text, a, b, scale=1.0):
        if a in med and b in med:
            print(f"{text}: median {med[a] / med[b] / scale:.3f}, best {best[a] / best[b] / scale:.3f}")

    ratio("2 ranks x 1 thread / 1 rank x 2 threads at 1M", "ranks", "threads")
    ratio("--mpi with 1 rank / one process at 1M       ", "mpi1", "plain")
    ratio("weak scaling 2 x 500k on 2 ranks / 500k on 1", "weak2", "weak1")
    ratio("weak scaling efficiency (rate / 2x)         ", "weak2", "weak1", 2.0)
