"""Quaternions (x, y, z, w) as numpy arrays (..., 4): Hamilton product, a*b applies b first."""
import numpy as np


def mul(a, b):
    ax, ay, az, aw = np.moveaxis(a, -1, 0)
    bx, by, bz, bw = np.moveaxis(b, -1, 0)
    return np.stack([aw * bx + ax * bw + ay * bz - az * by,
                     aw * by + ay * bw + az * bx - ax * bz,
                     aw * bz + az * bw + ax * by - ay * bx,
                     aw * bw - ax * bx - ay * by - az * bz], axis=-1)


def conj(q):
    return q * np.array([-1.0, -1.0, -1.0, 1.0])


def normalise(q):
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def rotate(q, v):
    """q applied to vectors v (..., 3)."""
    u, w = q[..., :3], q[..., 3:]
    t = 2.0 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


def angle(a, b):
    """Angle in degrees of the rotation a^-1 b (sign of either quaternion does not matter)."""
    d = np.abs(np.sum(normalise(a) * normalise(b), axis=-1))
    return np.degrees(2.0 * np.arccos(np.clip(d, 0.0, 1.0)))


def from_matrix(m):
    """Rotation matrices (..., 3, 3) -> unit quaternions with w >= 0 (Shepperd's method)."""
    m = np.asarray(m, dtype=np.float64)
    shape = m.shape[:-2]
    m = m.reshape(-1, 3, 3)
    q = np.empty((m.shape[0], 4))
    tr = np.trace(m, axis1=1, axis2=2)
    diag = np.stack([m[:, 0, 0], m[:, 1, 1], m[:, 2, 2], tr], axis=1)
    pick = diag.argmax(axis=1)
    for n in range(m.shape[0]):
        r, k = m[n], pick[n]
        if k == 3:
            s = 2.0 * np.sqrt(1.0 + tr[n])
            q[n] = [(r[2, 1] - r[1, 2]) / s, (r[0, 2] - r[2, 0]) / s, (r[1, 0] - r[0, 1]) / s, 0.25 * s]
        else:
            i, j, l = k, (k + 1) % 3, (k + 2) % 3
            s = 2.0 * np.sqrt(1.0 + r[i, i] - r[j, j] - r[l, l])
            v = np.empty(4)
            v[i] = 0.25 * s
            v[j] = (r[j, i] + r[i, j]) / s
            v[l] = (r[l, i] + r[i, l]) / s
            v[3] = (r[l, j] - r[j, l]) / s
            q[n] = v
    q *= np.where(q[:, 3:] < 0, -1.0, 1.0)
    return q.reshape(shape + (4,))


def robust_mean(q, iterations=20):
    """A rotation near the L1 (chordal) median of quaternions q (n, 4): the chordal mean (the
    principal eigenvector of sum q q^T), refined by Weiszfeld reweighting so that a minority of
    flipped frames cannot pull it."""
    q = normalise(np.asarray(q, dtype=np.float64))
    w = np.ones(len(q))
    mean = None
    for _ in range(iterations):
        m = (q * w[:, None]).T @ q
        vals, vecs = np.linalg.eigh(m)
        mean = vecs[:, -1]
        dist = np.radians(angle(np.broadcast_to(mean, q.shape), q))
        w = 1.0 / np.maximum(dist, 1e-4)
    return mean * (1.0 if mean[3] >= 0 else -1.0)
