"""python/examples/mediapipe_live.py: MediaPipe Tasks results fed frame by frame give the bones
`crowd pose` gives for the same landmarks as a CSV clip."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import crowd
from conftest import PYTHON_DIR, run_python, shared_data

EXAMPLE = os.path.join(PYTHON_DIR, "examples", "mediapipe_live.py")


def recording(rows=40):
    """(timestamp_ms, (33, 4) landmarks or None) per frame: the CMU walk when the shared data
    is there, else the rest pose swinging; frame 9 and 10 without a detection."""
    data = shared_data()
    path = data and os.path.join(data, "pose", "cmu_walk_30fps.csv")
    if path and os.path.exists(path):
        m = np.loadtxt(path, delimiter=",", skiprows=1, max_rows=rows)
        marks = m[:, 2:].reshape(-1, 33, 4)
    else:
        rest = crowd.rest_landmarks("mediapipe_world").astype(np.float64)
        marks = np.repeat(rest[None], rows, axis=0)
        marks[:, [13, 15], 2] += 0.2 * np.sin(np.arange(rows) / 5.0)[:, None]
    frames = []
    for i in range(rows):
        ms = round(i * 1000 / 30)  # a camera's integer milliseconds
        frames.append((ms, None if i in (9, 10) else np.float32(marks[i]).astype(np.float64)))
    return frames


def write_files(folder, frames):
    """The NDJSON the example reads, and the CSV clip `crowd pose` reads with the same numbers
    (a frame without a detection: the last landmarks with visibility 0, as the example does)."""
    nd, csv = os.path.join(folder, "rec.ndjson"), os.path.join(folder, "rec.csv")
    cols = ["frame", "t_s"] + [f"lm{k}_{c}" for k in range(33) for c in ("x", "y", "z", "vis")]
    last = crowd.rest_landmarks("mediapipe_world").astype(np.float64)
    with open(nd, "w") as fn, open(csv, "w") as fc:
        fc.write(",".join(cols) + "\n")
        for i, (ms, m) in enumerate(frames):
            if m is None:
                fn.write(json.dumps({"timestamp_ms": ms, "worldLandmarks": []}) + "\n")
                row = last.copy()
                row[:, 3] = 0.0
            else:
                pose = [{"x": float(p[0]), "y": float(p[1]), "z": float(p[2]), "visibility": float(p[3]),
                         "presence": 1.0} for p in m]
                key = "worldLandmarks" if i % 2 else "pose_world_landmarks"  # both spellings
                fn.write(json.dumps({"timestamp_ms": ms, key: [pose]}) + "\n")
                row = last = m
            fc.write(",".join([str(i), repr(ms / 1000.0)] + [repr(float(v)) for v in row.reshape(-1)]) + "\n")
    return nd, csv


def test_example_matches_crowd_pose(cli, tmp_path):
    nd, csv = write_files(str(tmp_path), recording())
    out = tmp_path / "bones.csv"
    r = run_python([EXAMPLE, nd, "--crowd", "50", "--bones", str(out)])
    assert r.returncode == 0, r.stderr
    c = subprocess.run([cli, "pose", csv], capture_output=True, text=True)
    assert c.returncode == 0, c.stderr
    assert out.read_text() == c.stdout
    assert out.read_text().count("\n") == 1 + 40 * 15


def test_example_reads_a_json_array(tmp_path):
    nd, _ = write_files(str(tmp_path), recording(6))
    arr = tmp_path / "rec.json"
    arr.write_text(json.dumps([json.loads(l) for l in open(nd)]))
    a = run_python([EXAMPLE, nd])
    b = run_python([EXAMPLE, str(arr)])
    assert a.returncode == b.returncode == 0 and a.stdout == b.stdout and a.stdout.count("\n") == 1 + 6 * 15


def test_the_recording_read_by_crowd_pose_itself(cli, tmp_path):
    """crowd pose and python -m crowd pose read the landmark JSON themselves (the C reader):
    the same bones as the example feeding it frame by frame."""
    nd, _ = write_files(str(tmp_path), recording())
    c = subprocess.run([cli, "pose", nd], capture_output=True, text=True)
    if c.returncode == 2 and "t_s" in c.stderr:
        pytest.skip("this crowd pose reads CSV clips only")
    p = run_python(["-m", "crowd", "pose", nd])
    e = run_python([EXAMPLE, nd])
    assert c.returncode == p.returncode == e.returncode == 0, (c.stderr, p.stderr, e.stderr)
    assert p.stdout == c.stdout == e.stdout
