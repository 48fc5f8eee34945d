"""python -m crowd run|pose against the crowd program: the same summary, checksum and traces."""
import json
import os

import numpy as np
import pytest

import crowd
from conftest import SIMD_TARGETS, run_python, shared_data

import subprocess


def summary(text):
    """The summary's lines, less the two that are timings."""
    return [l for l in text.splitlines() if not l.startswith(("tick seconds", "instance-updates/s"))]


def clip_csv(path, rows=24, fps=30.0):
    """A pose clip (SPEC §7 CSV): the rest pose, its arms and legs swinging."""
    rest = crowd.rest_landmarks("mediapipe_world").astype(np.float64)
    cols = ["frame", "t_s"] + [f"lm{k}_{c}" for k in range(33) for c in ("x", "y", "z", "vis")]
    lines = [",".join(cols)]
    for i in range(rows):
        m = rest.copy()
        s = np.sin(2 * np.pi * i / rows)
        m[[13, 15, 17, 19, 21], 2] += 0.2 * s   # left elbow, wrist, hand forward and back
        m[[25, 27, 29, 31], 2] -= 0.15 * s       # left knee, ankle, foot the other way
        m[[26, 28, 30, 32], 2] += 0.15 * s
        if i % 7 == 3:
            m[[14, 16], 3] = 0.2                  # the right arm unseen now and then
        lines.append(",".join([str(i), repr(i / fps)] + [repr(float(np.float32(v))) for v in m.reshape(-1)]))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def scene_json(folder):
    clip_csv(os.path.join(folder, "clip.csv"))
    scene = {
        "seed": 42, "dt": 0.0166666675, "frames": 90,
        "rigs": [
            {"name": "face",
             "parameters": [{"id": "ParamAngleX", "min": -30, "max": 30},
                            {"id": "ParamBreath", "min": 0, "max": 1},
                            {"id": "ParamEyeLOpen", "min": 0, "max": 1, "default": 1}],
             "look": {"parameters": [{"id": "ParamAngleX", "axis": "x", "factor": 30}]},
             "harmonic": {"parameters": [{"id": "ParamBreath", "duration": 2.5}]},
             "blink": {"parameters": ["ParamEyeLOpen"]}},
            {"name": "body", "parameters": [{"id": "P", "min": 0, "max": 1}],
             "limbs": {"frame": "mediapipe_world", "fallback": "stable"}},
        ],
        "groups": [
            {"rig": "face", "count": 37, "harmonic_phase": "random", "blink_start": "random",
             "look": {"center": [0, 0, 0], "jitter": 0.2,
                      "keys": [{"t": 0, "target": [1, 0.5, 2]}, {"t": 0.5, "target": [-1, 0, 1]},
                               {"t": 1.0, "active": False}]}},
            {"rig": "body", "count": 21, "pose": {"clip": "clip.csv", "offset": "random", "loop": True}},
        ],
    }
    path = os.path.join(folder, "scene.json")
    with open(path, "w") as f:
        json.dump(scene, f)
    return path


def test_default_crowd_same_summary_and_checksum(cli):
    args = ["run", "--frames", "45", "--quiet"]
    c = subprocess.run([cli, *args], capture_output=True, text=True)
    p = run_python(["-m", "crowd", *args])
    assert c.returncode == 0 and p.returncode == 0, p.stderr
    assert summary(p.stdout) == summary(c.stdout)
    assert "checksum            0x" in p.stdout and "instances           10000" in p.stdout


@pytest.mark.parametrize("simd", SIMD_TARGETS)
def test_scene_same_checksum_on_every_target(cli, tmp_path, simd):
    if not crowd.simd_supported(simd):
        pytest.skip(f"this CPU or build has no {simd}")
    scene = scene_json(str(tmp_path))
    args = ["run", scene, "--simd", simd, "--json"]
    c = subprocess.run([cli, *args, "--quiet"], capture_output=True, text=True)
    p = run_python(["-m", "crowd", *args])
    assert c.returncode == 0, c.stderr
    assert p.returncode == 0, p.stderr
    cj, pj = json.loads(c.stdout.splitlines()[-1]), json.loads(p.stdout.splitlines()[-1])
    for k in ("tick_seconds", "updates_per_second"):
        assert pj.pop(k) >= 0 and cj.pop(k) >= 0
    assert pj == cj and pj["simd"] == simd and pj["instances"] == 58 and pj["frames"] == 90


def test_overrides_and_threads(cli, tmp_path):
    scene = scene_json(str(tmp_path))
    args = ["run", scene, "--frames", "33", "--dt", "0.02", "--seed", "5", "--threads", "2"]
    c = subprocess.run([cli, *args, "--quiet"], capture_output=True, text=True)
    p = run_python(["-m", "crowd", *args])
    assert summary(p.stdout) == summary(c.stdout)
    assert "threads             2" in p.stdout and "frames              33 (dt 0.0199999996 s)" in p.stdout
    one = run_python(["-m", "crowd", "run", scene, "--frames", "33", "--dt", "0.02", "--seed", "5"])
    assert [l for l in summary(one.stdout) if l.startswith("checksum")] == \
           [l for l in summary(p.stdout) if l.startswith("checksum")]


def test_bad_input_is_the_c_readers_message(cli, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"rigs": [{"name": "r", "parameters": [{"id": "p", "min": 2, "max": 1}]}]}')
    c = subprocess.run([cli, "run", str(bad), "--quiet"], capture_output=True, text=True)
    p = run_python(["-m", "crowd", "run", str(bad)])
    assert c.returncode == p.returncode == 2
    assert p.stderr == c.stderr and "parameters[0]" in p.stderr
    missing = run_python(["-m", "crowd", "run", str(tmp_path / "none.json")])
    assert missing.returncode == 2 and "none.json" in missing.stderr
    for args in (["run", "--simd", "mmx"], ["run", "--frames", "-1"], ["run", "--dt", "2"], ["nope"], []):
        r = run_python(["-m", "crowd", *args])
        assert r.returncode == 2 and "crowd" in r.stderr


def test_pose_same_trace_as_crowd_pose(cli, tmp_path):
    clips = [clip_csv(str(tmp_path / "clip.csv"))]
    data = shared_data()
    if data and os.path.exists(os.path.join(data, "pose", "cmu_walk_30fps_noisy.csv")):
        clips.append(os.path.join(data, "pose", "cmu_walk_30fps_noisy.csv"))
    for clip in clips:
        for flags in ([], ["--local", "--fallback", "previous", "--smoothing", "one_euro", "--beta", "2"]):
            c = subprocess.run([cli, "pose", clip, *flags], capture_output=True, text=True)
            p = run_python(["-m", "crowd", "pose", clip, *flags])
            assert c.returncode == 0 and p.returncode == 0, p.stderr
            assert p.stdout == c.stdout and p.stdout.count("\n") > 15
    out = tmp_path / "bones.csv"
    p = run_python(["-m", "crowd", "pose", clips[0], "--bones", str(out)])
    assert p.returncode == 0 and out.read_text().startswith("frame,instance,bone,qx,qy,qz,qw\n")


def test_pose_and_run_outputs_as_crowd(cli, tmp_path):
    clip = clip_csv(str(tmp_path / "clip.csv"))
    for flags, status in ((["--outputs", "local", "--local"], 0), (["--outputs", "world"], 0),
                          (["--outputs", "local"], 2), (["--outputs", "world", "--local"], 2)):
        c = subprocess.run([cli, "pose", clip, *flags], capture_output=True, text=True)
        p = run_python(["-m", "crowd", "pose", clip, *flags])
        assert c.returncode == p.returncode == status, p.stderr
        assert p.stdout == c.stdout and p.stderr == c.stderr
    scene = tmp_path / "local.json"
    scene.write_text('{"frames": 3, "rigs": [{"name": "b", "limbs": {"outputs": "local"}}], '
                     '"groups": [{"rig": "b", "count": 2}]}')
    c = subprocess.run([cli, "run", str(scene), "--bones", str(tmp_path / "c.csv"), "--quiet"], capture_output=True,
                       text=True)
    p = run_python(["-m", "crowd", "run", str(scene), "--bones", str(tmp_path / "p.csv")])
    assert c.returncode == p.returncode == 2 and p.stderr == c.stderr and "local rotations only" in p.stderr
    c = subprocess.run([cli, "run", str(scene), "--quiet"], capture_output=True, text=True)
    p = run_python(["-m", "crowd", "run", str(scene)])
    assert c.returncode == p.returncode == 0
    assert [l for l in summary(c.stdout) if l.startswith("checksum")] == \
           [l for l in summary(p.stdout) if l.startswith("checksum")]


def test_pose_bad_input(cli, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("frame,t_s\n0,0\n")
    c = subprocess.run([cli, "pose", str(bad)], capture_output=True, text=True)
    p = run_python(["-m", "crowd", "pose", str(bad)])
    assert c.returncode == p.returncode == 2 and p.stderr == c.stderr
    p = run_python(["-m", "crowd", "pose", str(bad), "--bend-min", "50", "--bend-full", "40"])
    assert p.returncode == 2 and "--bend-min" in p.stderr


def test_traces_and_run_snapshots_as_crowd_run(cli, tmp_path):
    scene = scene_json(str(tmp_path))

    def crowd_run(who, *args):
        if who == "c":
            return subprocess.run([cli, "run", scene, "--frames", "20", *args, "--quiet"], capture_output=True, text=True)
        return run_python(["-m", "crowd", "run", scene, "--frames", "20", *args])

    out = {}
    for who in ("c", "py"):
        d = tmp_path / who
        d.mkdir()
        r = crowd_run(who, "--trace", str(d / "p.csv"), "--bones", str(d / "b.csv"), "--snapshot-at", "12",
                      str(d / "s.run"))
        assert r.returncode == 0, r.stderr
        out[who] = ([l.replace(str(d), "D") for l in summary(r.stdout)], [(d / f).read_bytes() for f in ("p.csv", "b.csv")])
    assert out["c"] == out["py"] and len(out["c"][1][0]) > 1000 and len(out["c"][1][1]) > 1000
    checksum = [l for l in out["c"][0] if l.startswith("checksum")]
    # each resumes the other's run snapshot (their bytes differ only in the engines' handle tags)
    for who, other in (("c", "py"), ("py", "c"), ("py", "py")):
        r = crowd_run(who, "--resume", str(tmp_path / other / "s.run"))
        assert r.returncode == 0, r.stderr
        lines = summary(r.stdout)
        assert [l for l in lines if l.startswith("checksum")] == checksum
        assert "frames              8 (13 to 20, dt 0.0166666675 s)" in lines
        assert f"resumed             {tmp_path / other / 's.run'} (after frame 12)" in lines
    bad = run_python(["-m", "crowd", "run", scene, "--frames", "5", "--snapshot-at", "9", str(tmp_path / "x")])
    assert bad.returncode == 2 and "--snapshot-at 9" in bad.stderr
    same = run_python(["-m", "crowd", "run", scene, "--trace", str(tmp_path / "x"), "--bones", str(tmp_path / "x")])
    assert same.returncode == 2 and "name the same file" in same.stderr
