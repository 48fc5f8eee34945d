"""Ground truth from the CMU motion capture: 33 MediaPipe-layout landmarks and the mocap world
rotation of each of the 15 bones, in the engine frame, at 120 fps or any subsampling of it.

The engine frame is the BVH's with x negated (data README): a mirror, so a BVH rotation R is
M R M there (M = diag(-1, 1, 1)), still a proper rotation, and BVH "Left*" joints stay the
subject's left. Landmarks sit as the shared pose clips place them: body joints on the skeleton's
joints; face points on the Head joint, hand points on the hand joint, the heel on the ankle joint
and the foot index on the toe's end site, each at a fixed offset in that joint's frame (offsets
below, in metres, BVH frame).
"""
import numpy as np

import bvh
import quat

BVH_FPS = 120
MIRROR = np.diag([-1.0, 1.0, 1.0])

# SPEC §5: the 15 bones in output order, their parents (hips outward) and the landmarks each is
# computed from (its trust: SPEC §5.1).
BONES = ('hips', 'chest', 'head', 'left_upper_arm', 'left_lower_arm', 'left_hand',
         'right_upper_arm', 'right_lower_arm', 'right_hand', 'left_upper_leg', 'left_lower_leg',
         'left_foot', 'right_upper_leg', 'right_lower_leg', 'right_foot')
PARENT = (-1, 0, 1, 1, 3, 4, 1, 6, 7, 0, 9, 10, 0, 12, 13)
TRUST_LANDMARKS = ((11, 12, 23, 24), (11, 12, 23, 24), (0, 7, 8),
                   (11, 13, 15), (11, 13, 15), (15, 17, 19),
                   (12, 14, 16), (12, 14, 16), (16, 18, 20),
                   (23, 25, 27), (23, 25, 27), (27, 29, 31),
                   (24, 26, 28), (24, 26, 28), (28, 30, 32))
LIMB_BONES = (3, 4, 6, 7, 9, 10, 12, 13)        # upper/lower arms and legs (y_along_bone: +Y on the bone)
LEG_BONES = (9, 10, 12, 13)
# The landmark segment that gives each bone's direction (from, to); a pair means its midpoint.
SEGMENT = {3: (11, 13), 4: (13, 15), 5: (15, (17, 19)), 6: (12, 14), 7: (14, 16), 8: (16, (18, 20)),
           9: (23, 25), 10: (25, 27), 11: (29, 31), 12: (24, 26), 13: (26, 28), 14: (30, 32),
           2: ((7, 8), 0)}

# Which mocap joint's world rotation is each bone's truth (CMU subject 131's skeleton): the
# joint whose rotation carries that body segment.
TRUTH_JOINT = ('Hips', 'Chest2', 'Head', 'LeftShoulder', 'LeftElbow', 'lhand', 'RightShoulder',
               'RightElbow', 'rhand', 'LeftHip', 'LeftKnee', 'LeftAnkle', 'RightHip', 'RightKnee',
               'RightAnkle')

# landmark -> (joint, offset in the joint's frame; None: the joint itself)
_FACE = {0: (0.0, 0.06, 0.10), 1: (0.02, 0.09, 0.085), 2: (0.032, 0.09, 0.085), 3: (0.045, 0.09, 0.08),
         4: (-0.02, 0.09, 0.085), 5: (-0.032, 0.09, 0.085), 6: (-0.045, 0.09, 0.08),
         7: (0.075, 0.07, 0.0), 8: (-0.075, 0.07, 0.0), 9: (0.025, 0.02, 0.09), 10: (-0.025, 0.02, 0.09)}
LANDMARK_SOURCE = {k: ('Head', v) for k, v in _FACE.items()}
LANDMARK_SOURCE.update({
    11: ('LeftShoulder', None), 12: ('RightShoulder', None), 13: ('LeftElbow', None),
    14: ('RightElbow', None), 15: ('LeftWrist', None), 16: ('RightWrist', None),
    17: ('lhand', (0.0, -0.08, -0.03)), 18: ('rhand', (0.0, -0.08, -0.03)),     # pinky
    19: ('lhand', (0.0, -0.08, 0.03)), 20: ('rhand', (0.0, -0.08, 0.03)),       # index
    21: ('lhand', (0.0, -0.04, 0.05)), 22: ('rhand', (0.0, -0.04, 0.05)),       # thumb
    23: ('LeftHip', None), 24: ('RightHip', None), 25: ('LeftKnee', None), 26: ('RightKnee', None),
    27: ('LeftAnkle', None), 28: ('RightAnkle', None),
    29: ('LeftAnkle', (0.0, -0.045, -0.05)), 30: ('RightAnkle', (0.0, -0.045, -0.05)),  # heels
    31: ('LeftToe', 'end'), 32: ('RightToe', 'end'),                          # foot index: toe tip
})


class Truth:
    """A BVH clip subsampled every `step` frames: t (n), landmarks (n, 33, 3), bone world
    rotations (n, 15, 4), all in the engine frame."""

    def __init__(self, path, step=1, frames=None):
        self.motion = bvh.read(path)
        idx = np.arange(0, self.motion.frames, step)
        if frames is not None:
            idx = idx[:frames]
        self.step = step
        self.fps = BVH_FPS / step
        self.t = idx * self.motion.frame_time          # the shared clips' t_s: index * frame time
        pos, rot = bvh.forward_kinematics(self.motion, idx)
        mi = self.motion.index
        lm = np.zeros((len(idx), 33, 3))
        for k, (joint, off) in LANDMARK_SOURCE.items():
            j = mi[joint]
            if off is None:
                lm[:, k] = pos[:, j]
            else:
                o = self.motion.joints[j].end_offset if off == 'end' else np.array(off)
                lm[:, k] = pos[:, j] + rot[:, j] @ o
        self.landmarks = lm @ MIRROR
        mats = np.stack([MIRROR @ rot[:, mi[name]] @ MIRROR for name in TRUTH_JOINT], axis=1)
        self.rotations = quat.from_matrix(mats)

    def __len__(self):
        return len(self.t)


def segment_directions(landmarks):
    """Unit direction (n, 15, 3) of each bone's landmark segment (NaN where a bone has none)."""
    def point(p):
        return landmarks[:, p] if isinstance(p, int) else 0.5 * (landmarks[:, p[0]] + landmarks[:, p[1]])
    out = np.full(landmarks.shape[:1] + (15, 3), np.nan)
    for b, (a, c) in SEGMENT.items():
        v = point(c) - point(a)
        out[:, b] = v / np.maximum(np.linalg.norm(v, axis=-1, keepdims=True), 1e-12)
    return out
