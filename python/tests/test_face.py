"""Face tracking from Python (crowd.h section 11): settings, mapping, fields and the head pose."""
import math

import numpy as np
import pytest

import crowd

PARAMS = [crowd.Parameter("ParamAngleX", -30, 30), crowd.Parameter("ParamAngleY", -30, 30),
          crowd.Parameter("ParamAngleZ", -30, 30), crowd.Parameter("ParamEyeLOpen", 0, 1, 1),
          crowd.Parameter("ParamEyeROpen", 0, 1, 1), crowd.Parameter("ParamEyeBallX", -1, 1),
          crowd.Parameter("ParamEyeBallY", -1, 1), crowd.Parameter("ParamMouthOpenY", 0, 1),
          crowd.Parameter("ParamMouthForm", -1, 1), crowd.Parameter("ParamBrowLY", -1, 1),
          crowd.Parameter("ParamBrowRY", -1, 1)]


def y_rotation_matrix(degrees, scale=1.0):
    """Column-major 4x4 of a rotation about +y (MediaPipe's facial transformation matrix)."""
    a = math.radians(degrees)
    c, s = math.cos(a) * scale, math.sin(a) * scale
    rows = [[c, 0, s, 0], [0, scale, 0, 0], [-s, 0, c, 0], [0, 0, 0, 1]]
    return [rows[r][k] for k in range(4) for r in range(4)]


def test_every_field_and_face_source_of_the_header_is_an_enum_member():
    names = [f.name.lower() for f in crowd.Field]
    first = names.index("face_scores")
    assert names[first:first + 5] == ["face_scores", "face_rotation", "face_presence", "face_weight", "face_control"]
    for f in crowd.Field:
        assert crowd.field_name(f) == f.name.lower()
    assert len(crowd.FaceSource) == crowd.FACE_SOURCE_COUNT == crowd.FACE_SCORE_COUNT + 3
    assert crowd.field_width("face_scores") == crowd.FACE_SCORE_COUNT


def test_source_names_are_mediapipes_and_both_spellings_are_taken():
    assert crowd.face_source_name(crowd.FaceSource.NEUTRAL) == "_neutral"
    assert crowd.face_source_name("jaw_open") == "jawOpen"
    assert crowd.face_source_name("jawOpen") == "jawOpen"
    assert crowd.face_source_name("head_yaw") == "headYaw"
    assert crowd.face_source_bit("eyeBlinkLeft") == 1 << 9
    with pytest.raises(ValueError, match="FaceSource"):
        crowd.face_source_name("jaw_closed")


def test_the_standard_mapping_is_the_headers():
    m = crowd.face_standard_mapping()
    assert len(m) == crowd.FACE_STANDARD_MAPPING_COUNT == 20
    by = {}
    for e in m:
        by.setdefault(e.id, []).append((crowd.face_source_name(e.source), e.gain, e.offset))
    # crowd.h's comment on crowd_face_standard_mapping, entry by entry
    assert by["ParamAngleX"] == [("headYaw", 1, 0)]
    assert by["ParamEyeLOpen"] == [("eyeBlinkLeft", -1, 1)]
    assert sorted(by["ParamEyeBallX"]) == sorted([("eyeLookOutLeft", 0.5, 0), ("eyeLookInLeft", -0.5, 0),
                                                  ("eyeLookInRight", 0.5, 0), ("eyeLookOutRight", -0.5, 0)])
    assert sorted(by["ParamBrowLY"]) == sorted([("browInnerUp", 1, 0), ("browDownLeft", -1, 0)])
    assert crowd.Face().mapping == m


@pytest.mark.parametrize("degrees", [0.0, 20.0, -35.0, 90.0])
def test_rotation_from_matrix_against_the_half_angle_formula(degrees):
    q = crowd.face_rotation_from_matrix(y_rotation_matrix(degrees, scale=0.8))
    half = math.radians(degrees) / 2
    want = np.array([0, math.sin(half), 0, math.cos(half)])
    assert np.allclose(q, want if want[3] >= 0 else -want, atol=1e-6)


def test_rotation_from_matrix_refuses_a_reflection():
    m = y_rotation_matrix(10)
    m[0], m[1], m[2] = -m[0], -m[1], -m[2]  # first column negated: det -1
    with pytest.raises(crowd.RangeError):
        crowd.face_rotation_from_matrix(m)


def test_a_present_face_drives_its_parameters():
    with crowd.Engine(seed=3) as engine:
        rig = engine.rig(name="face", parameters=PARAMS, face=crowd.Face())
        h = rig.add(2)
        scores = np.zeros((2, crowd.FACE_SCORE_COUNT), np.float32)
        scores[:, crowd.FaceSource.JAW_OPEN] = [0.7, 0.25]
        rotation = np.tile(crowd.face_rotation_from_matrix(y_rotation_matrix(20)), (2, 1))
        engine.set_faces(h, scores=scores, rotation=rotation, presence=[1.0, 1.0])
        for _ in range(120):  # 2 s: control reaches 1 (half-life 0.1 s, snapped within 2^-10)
            engine.tick(1 / 60)
        assert np.allclose(engine.get("face_control", h), 1.0)
        mouth = rig.column("output", rig.parameter_index("ParamMouthOpenY")).array
        assert mouth.tolist() == [np.float32(0.7), np.float32(0.25)]  # override at weight 1: the value itself
        yaw = engine.get_one(h[0], "output", rig.parameter_index("ParamAngleX"))
        assert yaw == pytest.approx(20.0, abs=1e-4)  # nose toward +x: positive yaw
        eye = engine.get_one(h[0], "output", rig.parameter_index("ParamEyeLOpen"))
        assert eye == pytest.approx(1.0)  # 1 - eyeBlinkLeft (0)


def test_face_settings_are_checked_with_the_field_named():
    with crowd.Engine() as engine:
        with pytest.raises(crowd.RangeError, match="presence_threshold"):
            engine.rig(parameters=PARAMS, face=crowd.Face(presence_threshold=2))
        with pytest.raises(crowd.UnknownIdError, match="ParamNope"):
            engine.rig(parameters=PARAMS, face=crowd.Face(mapping=[crowd.FaceMapping("jaw_open", "ParamNope")]))


def test_smoothed_sources_by_name_or_mask_are_the_same_settings():
    with crowd.Engine() as engine:
        by_name = engine.rig(parameters=PARAMS, face=crowd.Face(smoothed_sources=["jawOpen", "head_yaw"]))
        by_mask = engine.rig(parameters=PARAMS, face=crowd.Face(
            smoothed_sources=crowd.face_source_bit("jaw_open") | crowd.face_source_bit(crowd.FaceSource.HEAD_YAW)))
        plain = engine.rig(parameters=PARAMS, face=crowd.Face())
        assert by_name.settings_digest == by_mask.settings_digest != plain.settings_digest


def test_a_face_rig_with_its_own_mapping_and_dict_settings():
    with crowd.Engine() as engine:
        rig = engine.rig(parameters=PARAMS, face={"mapping": [{"source": "mouthSmileLeft", "id": "ParamMouthForm",
                                                               "gain": 2, "curve": "smoothstep"}],
                                                  "handoff_half_life": 0.05})
        h = rig.add(1)
        scores = np.zeros(crowd.FACE_SCORE_COUNT, np.float32)
        scores[crowd.FaceSource.MOUTH_SMILE_LEFT] = 0.25
        engine.set_faces(h, scores=scores, presence=[1.0])
        for _ in range(60):
            engine.tick(1 / 60)
        t = np.float32(0.25)
        want = np.float32(2) * ((t * t) * (np.float32(3) - np.float32(2) * t))  # smoothstep, then gain
        assert engine.get_one(h[0], "output", rig.parameter_index("ParamMouthForm")) == pytest.approx(float(want), abs=1e-6)
