"""BVH reader and forward kinematics for the CMU clips in the shared data (120 fps, metres).

World rotation of a joint = parent world * (channel rotations in the file's channel order), its
position = parent position + parent world * OFFSET. Channel order is read per joint from the
file (the CMU clips: root Xpos Ypos Zpos Zrot Yrot Xrot, joints Zrot Yrot Xrot, arms Zrot Xrot
Yrot), so `Zrotation Yrotation Xrotation` means R = Rz * Ry * Rx applied to column vectors.
"""
import numpy as np


class Joint:
    def __init__(self, name, parent):
        self.name, self.parent = name, parent
        self.offset = np.zeros(3)
        self.channels = []
        self.end_offset = None     # the End Site's offset, when the joint has one
        self.first_channel = 0


class Motion:
    """A parsed BVH: joints (parents before children), frame time and the channel matrix."""

    def __init__(self, joints, frame_time, data):
        self.joints, self.frame_time, self.data = joints, frame_time, data
        self.index = {j.name: i for i, j in enumerate(joints)}

    @property
    def frames(self):
        return self.data.shape[0]


def read(path):
    """Parse a BVH file. Raises ValueError naming the line on malformed input."""
    with open(path) as f:
        lines = f.read().split('\n')
    joints, stack, channel_count = [], [], 0
    in_end = False
    i = 0
    while i < len(lines):
        tok = lines[i].split()
        i += 1
        if not tok:
            continue
        key = tok[0]
        if key == 'HIERARCHY' or key == '{':
            continue
        if key in ('ROOT', 'JOINT'):
            joints.append(Joint(tok[1], stack[-1] if stack else -1))
            stack.append(len(joints) - 1)
        elif key == 'End':
            in_end = True
        elif key == 'OFFSET':
            off = np.array([float(v) for v in tok[1:4]])
            if in_end:
                joints[stack[-1]].end_offset = off
            else:
                joints[stack[-1]].offset = off
        elif key == 'CHANNELS':
            j = joints[stack[-1]]
            j.channels = tok[2:2 + int(tok[1])]
            j.first_channel = channel_count
            channel_count += len(j.channels)
        elif key == '}':
            if in_end:
                in_end = False
            else:
                stack.pop()
        elif key == 'MOTION':
            break
        else:
            raise ValueError(f'{path}:{i}: unexpected {key!r}')
    frames = int(lines[i].split(':')[1])
    frame_time = float(lines[i + 1].split(':')[1])
    rows = [l.split() for l in lines[i + 2:] if l.strip()]
    data = np.array(rows, dtype=np.float64)
    if data.shape != (frames, channel_count):
        raise ValueError(f'{path}: motion is {data.shape}, expected ({frames}, {channel_count})')
    return Motion(joints, frame_time, data)


def _axis_rotation(axis, deg):
    """Rotation matrices (n, 3, 3) about one axis by angles in degrees."""
    a = np.radians(deg)
    c, s = np.cos(a), np.sin(a)
    m = np.zeros(a.shape + (3, 3))
    i, j, k = {'X': (0, 1, 2), 'Y': (1, 2, 0), 'Z': (2, 0, 1)}[axis]
    m[..., i, i] = 1.0
    m[..., j, j] = c
    m[..., j, k] = -s
    m[..., k, j] = s
    m[..., k, k] = c
    return m


def forward_kinematics(motion, frames=None):
    """World positions (n, J, 3) and rotations (n, J, 3, 3) of every joint, in the BVH frame."""
    data = motion.data if frames is None else motion.data[frames]
    n, nj = data.shape[0], len(motion.joints)
    pos = np.zeros((n, nj, 3))
    rot = np.zeros((n, nj, 3, 3))
    for ji, j in enumerate(motion.joints):
        local = np.broadcast_to(np.eye(3), (n, 3, 3)).copy()
        translation = np.zeros((n, 3))
        for ci, ch in enumerate(j.channels):
            col = data[:, j.first_channel + ci]
            if ch.endswith('position'):
                translation[:, 'XYZ'.index(ch[0])] = col
            else:
                local = local @ _axis_rotation(ch[0], col)
        if j.parent < 0:
            pos[:, ji] = j.offset + translation
            rot[:, ji] = local
        else:
            p = j.parent
            pos[:, ji] = pos[:, p] + np.einsum('nij,j->ni', rot[:, p], j.offset) + translation
            rot[:, ji] = rot[:, p] @ local
    return pos, rot
