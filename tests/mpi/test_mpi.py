#!/usr/bin/python3
"""crowd run --mpi against one process (tests/mpi/CMakeLists.txt registers each case).

usage: test_mpi.py CASE CROWD MPIEXEC SCRATCH
  same_default   the default crowd on K = 1..4 ranks: the one-process checksum, trace and bones bytes
  same_scene     a scene with every controller and limbs (two rigs of different bytes per instance,
                 groups cut by the rank bounds): the same, and ranks balanced by bytes per instance
  resume         a snapshot after frame k on 3 ranks, resumed on 3, 2 and 4 ranks (and that again,
                 resumed from 4 ranks' pieces on 1): the uninterrupted checksum and trace tail
  killed_rank    a rank kills itself mid-run (--test-kill-rank): mpirun fails, no summary; the
                 restart from the last snapshot gives the uninterrupted checksum
  bad_use        --mpi without mpirun, more ranks than instances, a missing or foreign manifest,
                 a piece file from another frame: exit status 2, a message naming it, no hang
  manifest_guards  rank files swapped or one named twice, an edited manifest, a manifest frame -1,
                 a face track changed after the snapshot: exit 2, said once (by rank 0) where every
                 rank reads the same manifest; a second --snapshot-at into the same folder writes
                 the other set of names and leaves the first set whole until the manifest switched;
                 --trace naming the face track the scene reads: exit 2 before anything is written
Every run has a time-out: a hang fails the test.
"""
import json
import math
import os
import shutil
import subprocess
import sys

CASE, CROWD, MPIEXEC, SCRATCH = sys.argv[1:5]
TIMEOUT = 60
MPI_FLAGS = ["--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])


def run(args, ranks=None, expect=0):
    cmd = ([MPIEXEC] + MPI_FLAGS + ["-np", str(ranks), CROWD] if ranks else [CROWD]) + args
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT)
    if expect is not None and (p.returncode == 0) != (expect == 0):
        raise AssertionError(f"{' '.join(cmd)}: exit {p.returncode}, wanted {expect}\n{p.stdout[-2000:]}\n{p.stderr[-3000:]}")
    return p


def summary(p):
    return json.loads(p.stdout.strip().splitlines()[-1])


def read(path):
    with open(path, "rb") as f:
        return f.read()


def fresh(name):
    d = os.path.join(SCRATCH, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


# ---- a scene with every controller and limbs ----
# The canonical rest pose of crowd.h section 9 (engine frame, left side; the right mirrors x).
LEFT = {0: (0, 0.66, -0.10), 1: (0.03, 0.69, -0.075), 2: (0.04, 0.69, -0.075), 3: (0.05, 0.69, -0.07),
        7: (0.075, 0.66, 0), 9: (0.02, 0.62, -0.085), 11: (0.18, 0.50, 0), 13: (0.20, 0.22, 0),
        15: (0.21, -0.02, -0.06), 17: (0.215, -0.10, -0.045), 19: (0.215, -0.105, -0.09),
        21: (0.20, -0.06, -0.10), 23: (0.10, 0, 0), 25: (0.10, -0.45, -0.03), 27: (0.10, -0.88, 0),
        29: (0.10, -0.93, 0.04), 31: (0.10, -0.95, -0.13)}
RIGHT_OF = {1: 4, 2: 5, 3: 6, 7: 8, 9: 10, 11: 12, 13: 14, 15: 16, 17: 18, 19: 20, 21: 22, 23: 24,
            25: 26, 27: 28, 29: 30, 31: 32}


def rest():
    lm = [None] * 33
    for k, (x, y, z) in LEFT.items():
        lm[k] = (x, y, z)
        if k in RIGHT_OF:
            lm[RIGHT_OF[k]] = (-x, y, z)
    return lm


def write_clip(path, rows=40):
    base = rest()
    lines = ["frame,t_s," + ",".join(f"lm{k}_{c}" for k in range(33) for c in "xyzv").replace("_v", "_vis")]
    for r in range(rows):
        t = r / 30
        vals = []
        for k, (x, y, z) in enumerate(base):
            swing = 0.2 * math.sin(2 * math.pi * t + k) if k >= 13 else 0.02 * math.sin(t + k)
            vis = 0.2 if (25 <= r <= 29 and k in (25, 27, 29, 31)) else 0.95  # the left leg unseen a while
            vis = 0.0 if r == 17 else vis  # a frame where nothing is seen
            vals += [f"{x + 0.3 * swing * (k % 3 == 0):.6f}", f"{y + 0.1 * swing:.6f}", f"{z + swing:.6f}", f"{vis}"]
        lines.append(f"{r},{t:.6f}," + ",".join(vals))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def write_scene(folder, seed=3):
    write_clip(os.path.join(folder, "walk.csv"))
    face_params = [{"id": "ParamAngleX", "min": -30, "max": 30}, {"id": "ParamAngleY", "min": -30, "max": 30},
                   {"id": "ParamBreath", "min": 0, "max": 1}, {"id": "ParamEyeLOpen", "min": 0, "max": 1, "default": 1},
                   {"id": "ParamEyeROpen", "min": 0, "max": 1, "default": 1}]
    face = {"name": "face", "parameters": face_params,
            "look": {"damping": 0.12, "max_speed": 40, "parameters": [{"id": "ParamAngleX", "axis": "x", "factor": 30},
                                                                      {"id": "ParamAngleY", "axis": "y", "factor": 30}]},
            "harmonic": {"channel_timescales": [1, 0.5],
                         "parameters": [{"id": "ParamBreath", "channel": 0, "duration": 3.2},
                                        {"id": "ParamAngleY", "channel": 1, "direction": "left", "origin": 0.5,
                                         "range": 0.1, "duration": 5}]},
            "blink": {"model": "sine", "parameters": ["ParamEyeLOpen", "ParamEyeROpen"]}}
    body = {"name": "body", "parameters": [{"id": "ParamEyeLOpen", "min": 0, "max": 1, "default": 1},
                                            {"id": "ParamBodyAngleX", "min": -10, "max": 10}],
            "harmonic": {"parameters": [{"id": "ParamBodyAngleX", "duration": 2.5}]},
            "blink": {"model": "timed", "parameters": ["ParamEyeLOpen"]},
            "limbs": {"frame": "engine", "smoothing": "one_euro", "visibility_threshold": 0.5}}
    keys = [{"t": 0, "target": [1, 0.5, 0]}, {"t": 0.3, "target": [-1, 0, 0.5]}, {"t": 0.6, "active": False},
            {"t": 0.8, "target": [0, -1, 0]}]
    groups = [
        {"rig": "face", "count": 37, "look": {"center": [0, 0.1, 0], "jitter": 0.3, "keys": keys},
         "harmonic_phase": "random", "blink_start": "random"},
        {"rig": "body", "count": 23, "harmonic_phase": "random", "blink_start": "random",
         "pose": {"clip": "walk.csv", "offset": "random", "loop": True}},
        {"rig": "face", "count": 11, "look": {"keys": keys[1:]}, "harmonic_phase": "zero", "blink_start": "cubism"},
        {"rig": "body", "count": 19, "pose": {"clip": "walk.csv", "offset": "zero", "loop": False}},
    ]
    scene = {"seed": seed, "dt": 1 / 60, "frames": 70, "rigs": [face, body], "groups": groups}
    path = os.path.join(folder, "scene.json")
    with open(path, "w") as f:
        json.dump(scene, f, indent=1)
    return path, scene


def columns_at_least(rig):
    """Bytes per instance from crowd.h's field widths (section 6) as 4-byte columns, plus the u64
    handle: a lower bound of what the engine counts (it has internal state columns and a slot too)."""
    p = len(rig["parameters"])
    floats = 2 * p  # base, output
    if "look" in rig:
        floats += 3 + 1 + 3 + 1 + 1 + 3 + 3  # target, active, center, damping, weight, position, velocity
    if "harmonic" in rig:
        floats += 1 + 2 * len(rig["harmonic"]["parameters"])  # weight, phase and range per entry
    if "blink" in rig:
        floats += 6  # weight, manual, opening, phase, clock, last
    if "limbs" in rig:
        floats += 132 + 4 + 2 * 15 * 4  # pose, root, bone world and local
    return 4 * floats + 8


def same_as_one_process(args, files, counts=(1, 2, 3, 4), scene=None):
    folder = fresh("one")
    one = summary(run(args + ["--json", "--quiet"] + [x for f in files for x in (f, os.path.join(folder, f[2:]))]))
    for k in counts:
        folder_k = fresh(f"ranks{k}")
        out = summary(run(args + ["--mpi", "--json", "--quiet"] +
                          [x for f in files for x in (f, os.path.join(folder_k, f[2:]))], ranks=k))
        assert out["checksum"] == one["checksum"], f"{k} ranks: checksum {out['checksum']}, one process {one['checksum']}"
        assert (out["instances"], out["frames"], out["ranks"]) == (one["instances"], one["frames"], k), out
        assert len(out["rank_tick_seconds"]) == k and all(t > 0 for t in out["rank_tick_seconds"]), out
        assert out["tick_seconds"] == max(out["rank_tick_seconds"]), out
        counts_k = out["rank_instances"]
        assert sum(counts_k) == one["instances"] and min(counts_k) >= 1, counts_k
        if scene:  # balanced by the engine's bytes per instance: each rank within one instance of an equal share
            per_rig = out["rig_bytes_per_instance"]
            for rig, b in zip(scene["rigs"], per_rig):
                assert b >= columns_at_least(rig), f"rig {rig['name']}: {b} bytes per instance, its fields alone take more"
            cost = []
            for g in scene["groups"]:
                r = next(k for k, rig in enumerate(scene["rigs"]) if rig["name"] == g["rig"])
                cost += [per_rig[r]] * g["count"]
            total, at, heaviest = sum(cost), 0, max(cost)
            for r, n in enumerate(counts_k):
                share = sum(cost[at:at + n])
                at += n
                assert abs(share - total / k) <= heaviest, f"{k} ranks: rank {r} holds {share} bytes of {total}"
        for f in files:
            a, b = read(os.path.join(folder, f[2:])), read(os.path.join(folder_k, f[2:]))
            assert a == b, f"{k} ranks: {f} differs from one process's ({len(b)} vs {len(a)} bytes)"
            assert a.count(b"\n") > 2, f"{f}: {a[:200]}"
        print(f"{k} ranks: checksum {out['checksum']}, rank instances {counts_k}, {', '.join(files)} identical")
    return one


def case_same_default():
    same_as_one_process(["run", "--frames", "4"], ["--trace", "--bones"])
    # longer, without traces: the checksum after 40 frames on 2 and 3 ranks, 2 threads each
    one = summary(run(["run", "--frames", "40", "--json", "--quiet"]))
    for k in (2, 3):
        out = summary(run(["run", "--frames", "40", "--threads", "2", "--mpi", "--json", "--quiet"], ranks=k))
        assert out["checksum"] == one["checksum"] and out["threads"] == 2, (out, one)


def case_same_scene():
    folder = fresh("scene")
    path, scene = write_scene(folder)
    same_as_one_process(["run", path], ["--trace", "--bones"], scene=scene)
    # the scalar target on 3 ranks, 3 threads: still the same bytes
    one = summary(run(["run", path, "--json", "--quiet"]))
    out = summary(run(["run", path, "--simd", "scalar", "--threads", "3", "--mpi", "--json", "--quiet"], ranks=3))
    assert out["checksum"] == one["checksum"], (out, one)


def case_resume():
    folder = fresh("resume")
    path, _ = write_scene(folder)
    whole = fresh("whole")
    one = summary(run(["run", path, "--json", "--quiet", "--trace", os.path.join(whole, "t.csv")]))
    snap = os.path.join(folder, "snap")
    first = summary(run(["run", path, "--mpi", "--json", "--quiet", "--snapshot-at", "25", snap], ranks=3))
    assert first["checksum"] == one["checksum"], (first, one)
    files = sorted(os.listdir(snap))
    assert files == ["manifest", "rank-0.run", "rank-1.run", "rank-2.run"], files
    with open(os.path.join(snap, "manifest")) as f:
        manifest = f.read().split("\n")
    assert manifest[1] == "frame 25" and manifest[2] == "ranks 3" and manifest[3] == "instances 90", manifest
    tail = b"".join(l for l in read(os.path.join(whole, "t.csv")).splitlines(True)[1:] if int(l.split(b",")[0]) > 25)
    for k in (3, 2, 4):
        out_dir = fresh(f"resumed{k}")
        trace = os.path.join(out_dir, "t.csv")
        args = ["run", path, "--mpi", "--json", "--quiet", "--resume", snap, "--trace", trace]
        if k == 4:
            args += ["--snapshot-at", "50", os.path.join(folder, "snap4")]
        out = summary(run(args, ranks=k))
        assert out["checksum"] == one["checksum"] and out["frames"] == 70 - 25, (k, out, one)
        got = read(trace)
        assert got.split(b"\n", 1)[1] == tail, f"{k} ranks: the resumed trace is not frames 26-70 of the whole run's"
        print(f"resumed on {k} ranks from 3: checksum {out['checksum']}, trace = frames 26-70")
    # 4 ranks re-sharded 3 ranks' pieces: a rank holds two; resume those on 1 rank and on 3
    pieces = sorted(os.listdir(os.path.join(folder, "snap4")))
    assert len(pieces) > 5, pieces
    for k in (1, 3):
        out = summary(run(["run", path, "--mpi", "--json", "--quiet", "--resume", os.path.join(folder, "snap4")], ranks=k))
        assert out["checksum"] == one["checksum"] and out["frames"] == 20, (out, one)
        print(f"resumed on {k} ranks from 4 ranks' {len(pieces) - 1} pieces: checksum {out['checksum']}")


def case_killed_rank():
    folder = fresh("killed")
    path, _ = write_scene(folder)
    one = summary(run(["run", path, "--json", "--quiet"]))
    snap = os.path.join(folder, "snap")
    p = run(["run", path, "--mpi", "--json", "--quiet", "--snapshot-at", "30", snap, "--test-kill-rank", "1",
             "--test-kill-frame", "45"], ranks=3, expect=1)
    assert p.returncode != 0 and "checksum" not in p.stdout, p.stdout
    assert "killing myself before frame 45" in p.stderr, p.stderr[-2000:]
    print(f"killed: mpirun exit {p.returncode}")
    for k in (3, 2):
        out = summary(run(["run", path, "--mpi", "--json", "--quiet", "--resume", snap], ranks=k))
        assert out["checksum"] == one["checksum"] and out["frames"] == 40, (out, one)
        print(f"restarted on {k} ranks from frame 30: checksum {out['checksum']} = uninterrupted")


def case_bad_use():
    folder = fresh("bad")
    p = run(["run", "--mpi", "--frames", "2"], expect=2)
    assert p.returncode == 2 and "not started by mpirun" in p.stderr, p.stderr
    tiny = os.path.join(folder, "tiny.json")
    with open(tiny, "w") as f:
        json.dump({"frames": 3, "rigs": [{"name": "a", "parameters": [{"id": "P"}]}],
                   "groups": [{"rig": "a", "count": 2}]}, f)
    p = run(["run", tiny, "--mpi"], ranks=3, expect=2)
    assert p.returncode == 2 and "3 ranks for 2 instances" in p.stderr, p.stderr
    assert p.stderr.count("crowd: ") == 1, p.stderr  # said once, by rank 0
    ok = summary(run(["run", tiny, "--mpi", "--json"], ranks=2))
    assert ok["rank_instances"] == [1, 1], ok
    p = run(["run", tiny, "--mpi", "--resume", os.path.join(folder, "nothing")], ranks=2, expect=2)
    assert p.returncode == 2 and "cannot open the snapshot manifest" in p.stderr, p.stderr
    path, _ = write_scene(folder)
    snap = os.path.join(folder, "snap")
    run(["run", path, "--mpi", "--quiet", "--snapshot-at", "5", snap], ranks=2)
    p = run(["run", path, "--mpi", "--seed", "4", "--resume", snap], ranks=2, expect=2)
    assert p.returncode == 2 and "saved from another scene" in p.stderr, p.stderr
    # a piece replaced by one of a later frame: the manifest no longer matches it
    later = os.path.join(folder, "later")
    run(["run", path, "--mpi", "--quiet", "--snapshot-at", "9", later], ranks=2)
    shutil.copy(os.path.join(later, "rank-1.run"), os.path.join(snap, "rank-1.run"))
    p = run(["run", path, "--mpi", "--resume", snap], ranks=3, expect=2)
    assert p.returncode == 2 and "saved after frame 9, its manifest says 5" in p.stderr, p.stderr
    # an output rank 0 cannot write: every rank stops, status 1
    p = run(["run", path, "--mpi", "--trace", os.path.join(folder, "no", "such", "t.csv")], ranks=2, expect=1)
    assert p.returncode == 1 and "cannot write the trace" in p.stderr, p.stderr
    p = run(["run", path, "--mpi", "--snapshot-at", "2", os.path.join(folder, "no", "such")], ranks=2, expect=1)
    assert p.returncode == 1 and "cannot create the snapshot folder" in p.stderr, p.stderr
    p = run(["run", path, "--mpi", "--bvh", os.path.join(folder, "x.bvh")], ranks=2, expect=2)
    assert p.returncode == 2 and "--bvh is not available with --mpi" in p.stderr, p.stderr
    p = run(["run", path, "--mpi", "--test-kill-rank", "1"], ranks=2, expect=2)
    assert p.returncode == 2 and "go together" in p.stderr, p.stderr
    print("bad use: each refused with its message")


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def rewrite_manifest(path, edit):
    """The manifest with edit applied to its lines but the checksum, and the checksum line recomputed."""
    lines = read(path).decode().split("\n")[:-2]  # the checksum line and the empty end
    body = ("\n".join(edit(lines)) + "\n").encode()
    with open(path, "wb") as f:
        f.write(body + f"checksum 0x{fnv1a64(body):016x}\n".encode())


def face_line(t_ms, k):
    names = ["_neutral", "browDownLeft", "browDownRight", "browInnerUp", "browOuterUpLeft", "browOuterUpRight",
             "cheekPuff", "cheekSquintLeft", "cheekSquintRight", "eyeBlinkLeft", "eyeBlinkRight", "eyeLookDownLeft",
             "eyeLookDownRight", "eyeLookInLeft", "eyeLookInRight", "eyeLookOutLeft", "eyeLookOutRight",
             "eyeLookUpLeft", "eyeLookUpRight", "eyeSquintLeft", "eyeSquintRight", "eyeWideLeft", "eyeWideRight",
             "jawForward", "jawLeft", "jawOpen", "jawRight", "mouthClose", "mouthDimpleLeft", "mouthDimpleRight",
             "mouthFrownLeft", "mouthFrownRight", "mouthFunnel", "mouthLeft", "mouthLowerDownLeft",
             "mouthLowerDownRight", "mouthPressLeft", "mouthPressRight", "mouthPucker", "mouthRight",
             "mouthRollLower", "mouthRollUpper", "mouthShrugLower", "mouthShrugUpper", "mouthSmileLeft",
             "mouthSmileRight", "mouthStretchLeft", "mouthStretchRight", "mouthUpperUpLeft", "mouthUpperUpRight",
             "noseSneerLeft", "noseSneerRight"]
    cats = [{"index": i, "score": round(0.5 + 0.4 * math.sin(0.3 * k + 0.7 * i), 6), "categoryName": n}
            for i, n in enumerate(names)]
    return json.dumps({"timestamp_ms": t_ms, "faceBlendshapes": [{"categories": cats}],
                       "facialTransformationMatrixes": [{"rows": 4, "columns": 4,
                                                         "data": [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, -30, 1]}]})


def case_manifest_guards():
    folder = fresh("guards")
    path, _ = write_scene(folder)
    one = summary(run(["run", path, "--json", "--quiet"]))
    snap = os.path.join(folder, "snap")
    run(["run", path, "--mpi", "--quiet", "--snapshot-at", "5", snap], ranks=2)
    saved = {f: read(os.path.join(snap, f)) for f in os.listdir(snap)}

    def restore():
        for f, b in saved.items():
            with open(os.path.join(snap, f), "wb") as out:
                out.write(b)

    # the rank files of two equal shards swapped on disk: each is tied to its first instance
    even = os.path.join(folder, "even.json")
    with open(even, "w") as f:
        json.dump({"frames": 6, "rigs": [{"name": "a", "parameters": [{"id": "P", "min": 0, "max": 1}],
                                          "harmonic": {"parameters": [{"id": "P", "duration": 2}]}}],
                   "groups": [{"rig": "a", "count": 4, "harmonic_phase": "random"}]}, f)
    esnap = os.path.join(folder, "even")
    run(["run", even, "--mpi", "--quiet", "--snapshot-at", "2", esnap], ranks=2)
    os.replace(os.path.join(esnap, "rank-0.run"), os.path.join(esnap, "x"))
    os.replace(os.path.join(esnap, "rank-1.run"), os.path.join(esnap, "rank-0.run"))
    os.replace(os.path.join(esnap, "x"), os.path.join(esnap, "rank-1.run"))
    p = run(["run", even, "--mpi", "--resume", esnap], ranks=2, expect=2)
    assert p.returncode == 2 and "holds instances" in p.stderr and "swapped" in p.stderr, p.stderr
    # the manifest edited to name one file twice: its checksum no longer matches
    man = os.path.join(snap, "manifest")
    text = saved["manifest"].decode()
    with open(man, "w") as f:
        f.write(text.replace(" rank-1.run\n", " rank-0.run\n"))
    p = run(["run", path, "--mpi", "--resume", snap], ranks=3, expect=2)
    assert p.returncode == 2 and "checksum" in p.stderr, p.stderr
    assert p.stderr.count("crowd: ") == 1, p.stderr  # said once, by rank 0
    # the same with the checksum recomputed: the repeated name is named
    rewrite_manifest(man, lambda ls: [l.replace(" rank-1.run", " rank-0.run") for l in ls])
    p = run(["run", path, "--mpi", "--resume", snap], ranks=2, expect=2)
    assert p.returncode == 2 and "names rank-0.run, as piece 0 does" in p.stderr, p.stderr
    restore()
    # frame -1 (checksum recomputed): printed as -1, once
    rewrite_manifest(man, lambda ls: ["frame -1" if l.startswith("frame ") else l for l in ls])
    p = run(["run", path, "--mpi", "--resume", snap], ranks=3, expect=2)
    assert p.returncode == 2 and "frame -1" in p.stderr and "4294967295" not in p.stderr, p.stderr
    assert p.stderr.count("crowd: ") == 1, p.stderr
    restore()
    out = summary(run(["run", path, "--mpi", "--json", "--quiet", "--resume", snap], ranks=2))
    assert out["checksum"] == one["checksum"], (out, one)
    print("swapped, repeated, edited and frame -1 manifests refused; the intact one resumes")

    # a second snapshot into the same folder: the other names, the first set untouched
    run(["run", path, "--mpi", "--quiet", "--snapshot-at", "9", snap], ranks=2)
    for f in ("rank-0.run", "rank-1.run"):
        assert read(os.path.join(snap, f)) == saved[f], f"{f} was overwritten by the second snapshot"
    text = read(man).decode()
    assert "frame 9" in text and " rank-0.b.run" in text and " rank-0.run" not in text, text
    out = summary(run(["run", path, "--mpi", "--json", "--quiet", "--resume", snap], ranks=3))
    assert out["checksum"] == one["checksum"] and out["frames"] == 70 - 9, (out, one)
    with open(man, "wb") as f:  # as if the second had crashed before its manifest: the first still resumes
        f.write(saved["manifest"])
    out = summary(run(["run", path, "--mpi", "--json", "--quiet", "--resume", snap], ranks=2))
    assert out["checksum"] == one["checksum"] and out["frames"] == 70 - 5, (out, one)
    # and a third goes back to the first names (the manifest named the second set)
    with open(man, "wb") as f:
        f.write(text.encode())
    run(["run", path, "--mpi", "--quiet", "--snapshot-at", "12", snap], ranks=2)
    assert "frame 12" in read(man).decode() and " rank-0.run" in read(man).decode()
    print("snapshots into one folder alternate their names; the earlier set stays whole until the switch")

    # a face track changed after the snapshot: refused, the track named, once
    face = fresh("face")
    track = os.path.join(face, "track.ndjson")
    with open(track, "w") as f:
        f.write("".join(face_line(k * 1000 / 30, k) + "\n" for k in range(10)))
    scene = {"frames": 8, "dt": 1 / 30, "rigs": [{"name": "f", "parameters": [
        {"id": "ParamAngleX", "min": -30, "max": 30}, {"id": "ParamMouthOpenY", "min": 0, "max": 1}], "face": {}}],
        "groups": [{"rig": "f", "count": 5, "face": {"clip": "track.ndjson", "loop": False}}]}
    fpath = os.path.join(face, "scene.json")
    with open(fpath, "w") as f:
        json.dump(scene, f)
    fsnap = os.path.join(face, "snap")
    run(["run", fpath, "--mpi", "--quiet", "--snapshot-at", "3", fsnap], ranks=2)
    with open(track, "w") as f:
        f.write("".join(face_line(k * 1000 / 30, k + 3) + "\n" for k in range(10)))
    p = run(["run", fpath, "--mpi", "--resume", fsnap], ranks=2, expect=2)
    assert p.returncode == 2 and "face track" in p.stderr and "track.ndjson" in p.stderr and "changed" in p.stderr, p.stderr
    assert p.stderr.count("crowd: ") == 1, p.stderr
    print("a changed face track: refused, named once")
    # rank 0's trace naming the face track the scene reads: refused before anything is written
    before = read(track)
    p = run(["run", fpath, "--mpi", "--trace", track], ranks=2, expect=2)
    assert p.returncode == 2 and "same file" in p.stderr and p.stderr.count("crowd: ") == 1, p.stderr
    assert read(track) == before
    print("an output naming an input: refused, said once")


globals()["case_" + CASE]()
