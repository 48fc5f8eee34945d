"""The fingers controller through the package: settings, the rest hand, hand landmarks in,
finger bones out (unit, +y on the landmark segments with the default y_along_bone fix)."""
import numpy as np
import pytest

import crowd
from crowd import Field


def test_fingers_rig_solves_the_rest_hand():
    engine = crowd.Engine(seed=1)
    rig = engine.rig(name="hands", fingers=crowd.Fingers(frame="engine"))
    h = rig.add(2)
    left, right = crowd.rest_hand_landmarks("engine", "left"), crowd.rest_hand_landmarks("engine", "right")
    assert left[63] == 1 and np.allclose(left[0::3][:21], -right[0::3][:21])
    engine.set(Field.HAND_LANDMARKS, h, np.stack([left, left]), index=crowd.Hand.LEFT)
    engine.set(Field.HAND_LANDMARKS, h, np.stack([right, right]), index=crowd.Hand.RIGHT)
    engine.tick(1 / 30)
    lm = left[:63].reshape(21, 3).astype(np.float64)
    for bone in range(1, crowd.HAND_BONE_COUNT):
        q = engine.get(Field.FINGER_WORLD, h, bone)[0].astype(np.float64)
        assert abs(np.dot(q, q) - 1) < 1e-5
        x, y, z, w = q
        # +y of the rotation: its second column
        axis = np.array([2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x)])
        start = [0, 1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15, 17, 18, 19][bone]
        seg = lm[start + 1] - lm[start]
        assert np.allclose(axis, seg / np.linalg.norm(seg), atol=1e-5), crowd.hand_bone_name(bone)


def test_fingers_names_and_slots():
    assert crowd.hand_bone_name(crowd.HandBone.THUMB_METACARPAL) == "thumb_metacarpal"
    assert crowd.hand_from_handedness("Right") == crowd.Hand.RIGHT
    assert crowd.hand_from_handedness("Right", mirrored=True) == crowd.Hand.LEFT
    with pytest.raises(ValueError):
        crowd.hand_from_handedness("Up")


def test_fingers_bad_settings_name_the_field():
    engine = crowd.Engine(seed=1)
    with pytest.raises(crowd.Error, match="desc->fingers->presence_threshold"):
        engine.rig(name="bad", fingers=crowd.Fingers(presence_threshold=2))
