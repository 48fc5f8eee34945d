#!/usr/bin/python3
"""Feed MediaPipe Tasks pose landmarker results to crowd, frame by frame, as a live app would.

A live app gets one PoseLandmarkerResult per camera frame in its result callback
(running_mode=LIVE_STREAM). Here a recorded file stands in for the camera: the landmark JSON of
SPEC §7, one result per line (NDJSON) or a JSON array of them, each

    {"timestamp_ms": 1234, "worldLandmarks": [[{"x": .., "y": .., "z": .., "visibility": ..}, x 33], ...]}

("pose_world_landmarks", the Python API's name, works too). The first pose is used; an empty
list is a frame without a detection: the landmarks keep their last place with visibility 0, so
the engine holds those bones and eases them to rest (crowd.h §9).

Every result drives a crowd of --crowd N avatars (the tracked performer mirrored onto all of
them): its 33 landmarks go straight into the engine's pose columns (a zero-copy NumPy view),
the engine ticks by the time since the previous result, and the bone rotations come back from
the bone columns. The bones of avatar 0 are written as a `crowd pose` trace
(frame,instance,bone,qx,qy,qz,qw) to --bones FILE or standard output.

    python3 python/examples/mediapipe_live.py recording.ndjson --crowd 100 --bones bones.csv
"""
import argparse
import json
import sys

import numpy as np

import crowd


def results(path):
    """The recorded results in order, as the landmarker's callback would receive them."""
    with open(path) as f:
        text = f.read()
    if text.lstrip().startswith("["):
        yield from json.loads(text)
        return
    for line_no, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                yield json.loads(line)
            except json.JSONDecodeError as e:
                raise SystemExit(f"{path}:{line_no}: {e.msg}")


def landmarks_of(result):
    """The first pose's world landmarks as a (33, 4) float32 array, or None (no detection)."""
    poses = result.get("worldLandmarks", result.get("pose_world_landmarks", []))
    if not poses:
        return None
    pose = poses[0]
    if len(pose) != crowd.LANDMARK_COUNT:
        raise SystemExit(f"a pose has {len(pose)} landmarks, not {crowd.LANDMARK_COUNT}")
    return np.array([[p["x"], p["y"], p["z"], p.get("visibility", 1.0)] for p in pose], np.float32)


class LiveAvatars:
    """The app's side: one engine, a crowd mirroring the tracked performer."""

    def __init__(self, count):
        self.engine = crowd.Engine()
        self.rig = self.engine.rig(name="performer", limbs=crowd.Limbs(frame="mediapipe_world"))
        self.avatars = self.rig.add(count)
        # Zero-copy views, taken after the last add: (132, count) pose and per-bone world rotations.
        self.pose = self.rig.columns("pose")
        self.bones = [self.rig.columns("bone_world", b) for b in range(crowd.BONE_COUNT)]
        self.last = crowd.rest_landmarks("mediapipe_world")
        self.previous_s = None

    def on_result(self, result):
        """The landmarker's result callback: feed, tick, read."""
        marks = landmarks_of(result)
        if marks is None:  # no detection: keep the last place, trust nothing
            marks = self.last.copy()
            marks[:, 3] = 0.0
        self.last = marks
        t_s = result["timestamp_ms"] / 1000.0
        dt = float(np.float32(t_s - self.previous_s)) if self.previous_s is not None else 0.0
        self.previous_s = t_s
        self.pose.array[:, :] = marks.reshape(-1, 1)  # every avatar, every landmark, in one write
        self.engine.tick(dt)
        return np.stack([b.array[:, 0] for b in self.bones])  # avatar 0's 15 world rotations

    def close(self):
        self.engine.close()


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("recording", help="MediaPipe Tasks results, NDJSON or a JSON array")
    p.add_argument("--crowd", type=int, default=1, help="avatars that mirror the performer (default 1)")
    p.add_argument("--bones", default="-", help="the bones trace of avatar 0 (default: standard output)")
    a = p.parse_args(argv)
    app = LiveAvatars(a.crowd)
    names = [crowd.bone_name(b) for b in range(crowd.BONE_COUNT)]
    out = open(a.bones, "w") if a.bones != "-" else sys.stdout
    try:
        out.write("frame,instance,bone,qx,qy,qz,qw\n")
        for frame, result in enumerate(results(a.recording), 1):
            q = app.on_result(result)
            for b in range(crowd.BONE_COUNT):
                out.write("%d,0,%s,%s\n" % (frame, names[b], ",".join("%.9g" % float(v) for v in q[b])))
    finally:
        if out is not sys.stdout:
            out.close()
        app.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
