"""Live2D files through the io library (crowd.Model3, Motion3, Exp3, Pose3, Physics3, WavAudio)
and the engine's Live2D controllers from Python, against the golden traces of the real Cubism
Web Framework (../shared/data/cubism, see its README) within the C tests' tolerances
(tests/test_motion_engine.c, tests/test_cubism_engine.c, tests/test_cubism_controllers.c,
tests/test_lipsync_golden.c): a parameter within 1e-5 of its range per frame, part opacities
and pseudo-parameters within 1e-5, the level of every lip sync frame equal to the handler's
float32. Skipped when the traces are absent."""
import json
import os

import numpy as np
import pytest

import crowd
from crowd import Field
from conftest import shared_data

N = 5  # instances per case: the first is compared, the others must equal it bit for bit


def _root():
    d = shared_data()
    root = os.path.join(d, "cubism") if d else None
    if not root or not os.path.isdir(os.path.join(root, "inputs")):
        pytest.skip("the Cubism golden traces (../shared/data/cubism) are absent")
    return root


def _case(kind, name):
    with open(os.path.join(_root(), kind, name + ".json"), encoding="utf-8") as f:
        return json.load(f)


def _input(rel):
    return os.path.join(_root(), "inputs", rel)


def _parameters(case):
    return [crowd.Parameter(p["id"], p["min"], p["max"], p["default"]) for p in case["parameters"]]


def test_model3_reads_what_the_framework_reads():
    m = crowd.Model3(_input("Haru/Haru.model3.json"))
    with open(_input("Haru/Haru.model3.json"), encoding="utf-8") as f:
        raw = json.load(f)
    groups = raw["FileReferences"]["Motions"]
    assert list(m.motion_groups) == list(groups)
    assert m.clip_count == sum(len(v) for v in groups.values())
    for name, clips in m.motion_groups.items():
        for k, clip in enumerate(clips):
            entry = groups[name][k]
            assert m.motion_file(clip).endswith(entry["File"])
            assert m.motion_sound(clip) == entry.get("Sound")
            c = m.motion.clips[clip]
            assert c.fade_in == entry.get("FadeInTime", c.fade_in) and c.fade_out == entry.get("FadeOutTime", c.fade_out)
    assert [m.motion.idle_clips[k] for k in range(m.motion.idle_count)] == list(m.motion_groups["Idle"])
    assert m.expression_names == [e["Name"] for e in raw["FileReferences"]["Expressions"]]
    by_group = {g["Name"]: g["Ids"] for g in raw["Groups"]}
    assert m.eye_blink_ids == by_group["EyeBlink"] and m.lip_sync_ids == by_group["LipSync"]
    assert m.pose is not None and m.physics is not None and m.lipsync.weight == pytest.approx(0.8)


def test_bad_files_are_refused_naming_the_file(tmp_path, capfd):
    bad = tmp_path / "bad.motion3.json"
    bad.write_text('{"Version": 3, "Meta": {"Duration": -1}}')
    with pytest.raises(crowd.IoError):
        crowd.Motion3(bad)
    assert "bad.motion3.json" in capfd.readouterr().err
    with pytest.raises(crowd.IoError):
        crowd.Model3(tmp_path / "missing.model3.json")
    assert "missing.model3.json" in capfd.readouterr().err


def test_motion_golden_with_events():
    """Mark's m01 (the sample motion with user-data events), not looping, at 60 fps."""
    case = _case("motion", "motion_Mark_m01_60fps_noloop")
    a = case["motionA"]
    clip = crowd.Motion3(_input(a["file"]), a["effectiveFadeInSeconds"], a["effectiveFadeOutSeconds"])
    params = _parameters(case)
    ids = {p.id for p in params}
    with crowd.Engine(seed=1) as engine:
        rig = engine.rig(name="mark", parameters=params,
                         motions=crowd.Motions([clip], eye_blink_ids=[i for i in case["eyeBlinkIds"] if i in ids],
                                               lip_sync_ids=[i for i in case["lipSyncIds"] if i in ids]))
        h = rig.add(N)
        assert engine.motion_start(h, 0, priority="force", loop=a["loop"]).all()
        columns = case["columns"]
        pi = {c: rig.parameter_index(c[6:]) for c in columns if c.startswith("param:")}
        pseudo = {c: rig.motion_pseudo_index(c[14:]) for c in columns if c.startswith("notExistParam:")}
        span = {c: params[i].max - params[i].min for c, i in pi.items()}
        out = rig.column(Field.OUTPUT, 0)
        events, fired = np.empty(16, crowd.MOTION_EVENT_DTYPE), []
        worst = 0.0
        for f, (dt, row) in enumerate(zip(case["dt"], case["frames"])):
            engine.tick_exact(dt)
            values = np.stack([engine.get(Field.OUTPUT, h, i) for i in range(len(params))], axis=1)
            assert (values == values[0]).all()
            for c, i in pi.items():
                worst = max(worst, abs(float(values[0, i]) - row[columns.index(c)]) / span[c])
            for c, i in pseudo.items():
                want = row[columns.index(c)]
                if want is not None:
                    assert abs(float(engine.get(Field.MOTION_PSEUDO, h[0], i)[0]) - want) <= 1e-5, (c, f)
            st = engine.motion_status(h[0])
            assert (st.playing == 0) == bool(row[columns.index("managerIsFinished")]), f
            got, lost = engine.motion_events(events)
            assert lost == 0
            fired += [(f, clip.motion_event(int(e["clip"]), int(e["event"])), float(e["time"]))
                      for e in got if e["instance"] == h[0]]
        assert worst <= 1e-5, worst
        want = [(e["frame"], e["value"], e["userTime"]) for e in case["events"]]
        assert [(f, v) for f, v, _ in fired] == [(f, v) for f, v, _ in want]
        assert np.allclose([t for *_, t in fired], [t for *_, t in want], atol=1e-9, rtol=0)


def test_expression_golden_through_model3():
    """Haru's F04, F05 and F02 (three cross-fading at once), library from the model3."""
    case = _case("expression", "expression_Haru_F04_F05_F02_60fps")
    model = crowd.Model3(_input("Haru/Haru.model3.json"))
    params = _parameters(case)
    desc = model.rig_desc(params, name="haru")
    with crowd.Engine(seed=1) as engine:
        rig = engine.rig(crowd.RigDesc(name="haru", parameters=params, expressions=desc.expressions))
        h = rig.add(N)
        for i, v in enumerate(case["baseState"]["valuesFloat32"]):
            engine.set(Field.BASE, h, np.full(N, v, np.float32), index=i)
        names = model.expression_names
        starts = {e["startBeforeFrame"]: names.index(os.path.basename(e["file"]).split(".")[0])
                  for e in case["expressions"]}
        columns = case["columns"]
        pi = {k: rig.parameter_index(c[6:]) for k, c in enumerate(columns) if c.startswith("param:")}
        worst = 0.0
        for f, (dt, row) in enumerate(zip(case["dt"], case["frames"])):
            if f in starts:
                engine.expressions_start(h, starts[f])
            engine.tick(dt)
            for k, i in pi.items():
                v = engine.get(Field.OUTPUT, h, i)
                assert (v == v[0]).all()
                worst = max(worst, abs(float(v[0]) - row[k]) / (params[i].max - params[i].min))
        assert worst <= 1e-5, worst


def test_pose_golden_through_pose3():
    case = _case("pose", "pose_Haru_60fps")
    pose = crowd.Pose3(_input("Haru/Haru.pose3.json"))
    ids = [pose.pose.groups[g].parts[k].id.decode() for g in range(pose.pose.group_count)
           for k in range(pose.pose.groups[g].part_count)]
    assert [list(map(str, g)) for g in case["poseGroups"]] == [
        [pose.pose.groups[g].parts[k].id.decode() for k in range(pose.pose.groups[g].part_count)]
        for g in range(pose.pose.group_count)]
    with crowd.Engine(seed=1) as engine:
        rig = engine.rig(name="haru", parameters=[crowd.Parameter("ParamAngleX", -30, 30)], pose=crowd.Pose(pose))
        h = rig.add(N)
        columns = case["columns"]
        cols = [(k, Field.PART_OPACITY if c.startswith("partOpacity:") else Field.PART_PARAMETER,
                 ids.index(c.split(":", 1)[1])) for k, c in enumerate(columns) if ":" in c]
        assert len(cols) == 2 * len(ids)
        worst = 0.0
        for f, (dt, row) in enumerate(zip(case["dt"], case["frames"])):
            for step in case["schedule"]:
                if step["beforeUpdateOfFrame"] == f:
                    for part, v in step["setPseudoParameterValues"].items():
                        engine.set(Field.PART_PARAMETER, h, np.full(N, v, np.float32), index=ids.index(part))
            engine.tick(dt)
            for k, field, p in cols:
                v = engine.get(field, h, p)
                assert (v == v[0]).all()
                worst = max(worst, abs(float(v[0]) - row[k]))
        assert worst <= 1e-5, worst


def test_physics_golden_through_model3():
    case = _case("physics", "physics_Haru_60fps")
    model = crowd.Model3(_input("Haru/Haru.model3.json"))
    params = _parameters(case)
    with crowd.Engine(seed=1) as engine:
        rig = engine.rig(name="haru", parameters=params, physics=crowd.Physics(model))
        h = rig.add(N)
        columns = case["columns"]
        ins = {k: rig.parameter_index(c[3:]) for k, c in enumerate(columns) if c.startswith("in:")}
        outs = {k: rig.parameter_index(c[4:]) for k, c in enumerate(columns) if c.startswith("out:")}
        assert ins and outs
        worst = 0.0
        for f, (dt, row) in enumerate(zip(case["dt"], case["frames"])):
            for k, i in ins.items():
                engine.set(Field.BASE, h, np.full(N, row[k], np.float32), index=i)
            engine.tick(dt)
            for k, i in outs.items():
                v = engine.get(Field.OUTPUT, h, i)
                assert (v == v[0]).all()
                worst = max(worst, abs(float(v[0]) - row[k]) / (params[i].max - params[i].min))
        assert worst <= 1e-5, worst


@pytest.mark.parametrize("name", ["haru_talk_13_60fps", "haru_talk_13_30fps"])
def test_lipsync_golden_from_the_wav(name):
    case = _case("lipsync", "lipsync_" + name)
    info = case["wav"]
    wav = crowd.WavAudio(_input(info["file"]))
    assert (wav.channels, wav.rate, wav.bits, wav.frames) == (
        info["numberOfChannels"], info["samplingRate"], info["bitsPerSample"], info["samplesPerChannel"])
    levels = wav.levels(case["dt"])
    columns = case["columns"]
    rms = np.array([row[columns.index("rms")] for row in case["frames"]], np.float64)
    assert (levels == rms.astype(np.float32)).all()
    # the level field drives the model3's LipSync parameter as addParameterValueById(id, rms, 0.8)
    model = crowd.Model3(_input("Haru/Haru.model3.json"))
    params = _parameters(case)
    with crowd.Engine(seed=1) as engine:
        rig = engine.rig(name="haru", parameters=params, lipsync=model.rig_desc(params).lipsync)
        h = rig.add(N)
        mouth = columns.index("ParamMouthOpenY_after_add(rms,0.8)")
        for dt, level, row in zip(case["dt"], levels, case["frames"]):
            engine.set(Field.LIPSYNC_LEVEL, h, np.full(N, level, np.float32))
            engine.tick(dt)
            assert abs(float(engine.get(Field.OUTPUT, h, 0)[0]) - row[mouth]) <= 1e-6


# ---- fingers from a hand track (MediaPipe's own hand results) ----
def _pbtxt_hand(path):
    """The label, score and the 21 world and image landmarks of a HandLandmarker result in the
    proto's text form (MediaPipe's test data)."""
    import re
    text = open(path, encoding="utf-8").read()
    label = re.search(r'label: "(\w+)"', text).group(1)
    score = float(re.search(r"score: ([-\d.e]+)", text).group(1))

    def block(name):
        start = re.search(rf"^{name} {{", text, re.M).end()
        xyz = re.findall(r"x: ([-\d.e]+)\s+y: ([-\d.e]+)\s+z: ([-\d.e]+)", text[start:])[:21]
        return [{"x": float(x), "y": float(y), "z": float(z)} for x, y, z in xyz]
    return label, score, block("world_landmarks"), block("landmarks")


def _quat_rotate(q, v):
    x, y, z, w = (float(c) for c in q)
    u = np.array([x, y, z])
    return 2 * np.dot(u, v) * u + (w * w - np.dot(u, u)) * np.asarray(v, float) + 2 * w * np.cross(u, v)


def _curls(world, right):
    """tests/test_fingers.c's curl per finger (thumb .. little), degrees: the sum of the signed
    flexion angles from each parent bone's direction to its child's about the child's side axis."""
    def direction(k):
        return _quat_rotate(world[k], (0, 0, 1) if k == 0 else (0, 1, 0))
    out = []
    for f in range(5):
        first, total = 1 + 3 * f, 0.0
        for j in range(1 if f == 0 else 0, 3):
            child = first + j
            parent = 0 if j == 0 else child - 1
            pd, cd = direction(parent), direction(child)
            axis = _quat_rotate(world[child], (1, 0, 0)) * (-1 if f > 0 and not right else 1)
            total += np.arctan2(np.dot(np.cross(pd, cd), axis), np.dot(pd, cd))
        out.append(np.degrees(total))
    return out


def test_fist_from_a_hand_track_curls_every_finger(tmp_path):
    d = shared_data()
    path = os.path.join(d, "mediapipe", "hands", "fist_landmarks.pbtxt") if d else None
    if not path or not os.path.exists(path):
        pytest.skip("MediaPipe's hand results (../shared/data/mediapipe/hands) are absent")
    label, score, world, image = _pbtxt_hand(path)
    track = tmp_path / "fist.ndjson"
    line = {"timestampMs": 0, "worldLandmarks": [world], "landmarks": [image],
            "handedness": [[{"score": score, "categoryName": label, "index": 0}]]}
    track.write_text(json.dumps(line) + "\n" + json.dumps({**line, "timestampMs": 33}) + "\n")
    hands = crowd.HandTrack(track)
    assert len(hands) == 2 and list(hands.times) == [0.0, 0.033] and list(hands.lines) == [1, 2]
    slot = crowd.hand_from_handedness(label)
    assert hands.landmarks.shape == (2, 2, 64)
    assert hands.landmarks[0, slot, 63] == np.float32(score) and hands.landmarks[0, 1 - slot, 63] == 0
    assert np.allclose(hands.landmarks[0, slot, :63].reshape(21, 3), [[p["x"], p["y"], p["z"]] for p in world])
    with crowd.Engine(seed=1) as engine:
        rig = engine.rig(name="hands", fingers=crowd.Fingers())
        h = rig.add(3)
        bones = [rig.columns(Field.FINGER_WORLD, slot * crowd.HAND_BONE_COUNT + b) for b in range(crowd.HAND_BONE_COUNT)]
        for k in range(len(hands)):
            engine.set_hands(h, hands.landmarks[k])
            engine.tick(1 / 30)
        world_q = np.stack([np.asarray(b)[:, 0] for b in bones])  # (16, 4): (4, instances) views on the engine
        curls = _curls(world_q, slot == crowd.Hand.RIGHT)
        assert all(c > 90 for c in curls), curls


def test_bad_hand_track_names_line_and_field(tmp_path, capfd):
    track = tmp_path / "bad.ndjson"
    track.write_text('{"timestampMs": 0, "worldLandmarks": [[{"x": 0, "y": 0}]], "handedness": [[{"score": 1, "categoryName": "Left"}]]}\n')
    with pytest.raises(crowd.IoError):
        crowd.HandTrack(track)
    err = capfd.readouterr().err
    assert "bad.ndjson:1" in err and "worldLandmarks" in err


def test_level_of_detail_from_the_rig_desc():
    """RigDesc.lod_interval: new instances update on one tick of every k (crowd.h section 8a):
    with k = 2 and dt = 1/64 the elapsed time alternates 1/64, 0, and the harmonic's output
    holds between update ticks; lod_every_tick takes controllers by name."""
    with crowd.Engine(seed=3) as engine:
        harmonic = crowd.Harmonic([crowd.HarmonicParameter("ParamBreath")])
        rig = engine.rig(name="far", parameters=[crowd.Parameter("ParamBreath", 0, 1)], harmonic=harmonic,
                         lod_interval="2")
        h = rig.add(4)
        assert (engine.get(Field.LOD_INTERVAL, h) == 2).all()
        elapsed, outs = [], []
        for _ in range(8):
            engine.tick(1 / 64)
            elapsed.append(float(engine.get(Field.LOD_ELAPSED, h[:1])[0]))
            outs.append(float(engine.get(Field.OUTPUT, h[:1])[0]))
        assert sorted(set(elapsed)) == [0.0, 1 / 64]
        assert all(outs[k] == outs[k - 1] for k in range(1, 8) if elapsed[k] != 0)
        assert len(set(outs)) > 1
        every = engine.rig(name="near", parameters=[crowd.Parameter("ParamBreath", 0, 1)], harmonic=harmonic,
                           lod_interval="interval_4", lod_every_tick=["harmonic"])
        assert (engine.get(Field.LOD_INTERVAL, every.add(1)) == 4).all()
        with pytest.raises(ValueError):
            engine.rig(name="bad", lod_interval="3")


@pytest.mark.parametrize("name", ["motion_crossfade_Haru_m26_to_m06_60fps", "motion_crossfade_Hiyori_m01_to_m02_30fps"])
def test_motion_crossfade_golden_through_model3(name):
    """Two clips of the model3's library (its entries' fades), B started over A after 1 s."""
    case = _case("motion", name)
    model = crowd.Model3(_input(case["sources"][0]))
    params = _parameters(case)
    desc = model.rig_desc(params)
    motions = desc.motions
    motions.idle_clips = []  # the traces start no idle motion when one ends
    clip = {k: model.motion_groups[case[k]["modelGroup"]][case[k]["modelIndex"]] for k in ("motionA", "motionB")}
    for k, c in clip.items():
        assert model.motion.clips[c].fade_in == case[k]["effectiveFadeInSeconds"]
        assert model.motion.clips[c].fade_out == case[k]["effectiveFadeOutSeconds"]
    with crowd.Engine(seed=1) as engine:
        rig = engine.rig(name=name, parameters=params, motions=motions)
        h = rig.add(N)
        engine.motion_start(h, clip["motionA"], priority="force", loop=case["motionA"]["loop"])
        columns = case["columns"]
        pi = {k: rig.parameter_index(c[6:]) for k, c in enumerate(columns) if c.startswith("param:")}
        finished = columns.index("managerIsFinished")
        worst = 0.0
        for f, (dt, row) in enumerate(zip(case["dt"], case["frames"])):
            if f == case["crossfade"]["startBeforeFrame"]:
                engine.motion_start(h, clip["motionB"], priority="force", loop=case["motionB"]["loop"])
            engine.tick_exact(dt)
            for k, i in pi.items():
                v = engine.get(Field.OUTPUT, h, i)
                assert (v == v[0]).all()
                worst = max(worst, abs(float(v[0]) - row[k]) / (params[i].max - params[i].min))
            assert (engine.motion_status(h[0]).playing == 0) == bool(row[finished]), f
        assert worst <= 1e-5, worst
