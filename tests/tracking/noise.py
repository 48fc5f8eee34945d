"""A tracker-noise model for the mocap landmarks, and pose clips in SPEC §7's CSV format.

Parameters are what MediaPipe Pose's world landmarks show on webcam and video input (`NOISY`
below, with the reason for each). Everything is seeded and deterministic. Events that last in
time (dropouts, lost detections, legs out of frame) are drawn in seconds from a generator that
does not depend on the frame rate, so a clip at 10 fps and at 60 fps has the same dropouts at the
same times; the per-frame noise is drawn per frame, as a tracker produces it per frame.
"""
import zlib

import numpy as np

ARM_DISTAL = {'left_arm': (13, 15, 17, 19, 21), 'right_arm': (14, 16, 18, 20, 22)}
LEG_DISTAL = {'left_leg': (25, 27, 29, 31), 'right_leg': (26, 28, 30, 32)}
LIMBS = {**ARM_DISTAL, **LEG_DISTAL}
LEGS = tuple(range(25, 33))

# Per-landmark noise scale: the tracker is surest on the torso and face and least sure on the
# small, fast distal points (wrists, hands, ankles, feet), which blur and self-occlude.
SCALE = np.ones(33)
SCALE[[13, 14, 25, 26]] = 1.3          # elbows, knees
SCALE[[15, 16, 27, 28]] = 1.6          # wrists, ankles
SCALE[[17, 18, 19, 20, 21, 22, 29, 30, 31, 32]] = 2.0   # hand and foot points

NOISY = dict(
    # Frame-to-frame jitter of MediaPipe world landmarks on a still subject is about 0.5-1 cm
    # in the image plane.
    sigma_xy=0.008,
    # Depth is regressed from one view: its error is several times the in-plane error (3-4x on
    # BlazePose GHUM's world landmarks), so z gets 3.5x.
    sigma_z=0.028,
    # The tracker's errors persist over a few frames (it tracks a region of interest from the
    # previous frame and smooths internally): AR(1) per frame, correlation length 1/(1 - phi) =
    # 2 frames in x/y and 4 in depth.
    phi_xy=0.5,
    phi_z=0.75,
    # Visibility of a seen landmark: 0.6-1 (MediaPipe reports 0.9+ for the torso, lower at the
    # extremities); kept clear of the 0.5 threshold so float32 and double agree on trust.
    vis_seen=(0.6, 1.0),
    vis_unseen=(0.0, 0.4),
    # Single-frame dropouts (motion blur, a limb crossing the body): per limb, per second of
    # clip (so a clip has as many at every frame rate).
    blink_rate_arm=0.5,
    blink_rate_leg=0.25,
    blink_noise=3.0,                     # the dropped frame's points are 3x noisier
    # A dropout of seconds per limb and clip (a limb behind the body or out of the frame), its
    # duration uniform in these ranges (legs shorter: they also leave the frame, below); the
    # points drift away as the tracker hallucinates them.
    long_duration_arm=(0.5, 2.0),
    long_duration_leg=(0.5, 1.0),
    drift_sigma=0.08, drift_tau=0.7,     # Ornstein-Uhlenbeck drift of unseen points: 8 cm, 0.7 s
    # Frames with no detection at all (rows of empty fields): single frames (per second of
    # clip), and one longer loss.
    lost_rate=0.2,
    lost_gap=0.5,                        # seconds, once per clip
    # An upper-body shot: the legs leave the frame for a whole segment (seconds, once per clip),
    # at near-zero visibility, their points drifting far (15 cm, 1.5 s), the hips at the frame's
    # edge twice as noisy.
    legs_out=(2.0, 3.0),
    legs_out_vis=(0.0, 0.15),
    legs_drift_sigma=0.15, legs_drift_tau=1.5,
    hips_edge_noise=2.0,
)


def _rng(seed, *keys):
    return np.random.default_rng([seed] + [zlib.crc32(str(k).encode()) for k in keys])


def _ar1(rng, n, shape, sigma, phi):
    """Stationary AR(1) series (n, *shape) with standard deviation sigma."""
    e = rng.normal(0.0, sigma * np.sqrt(1.0 - phi * phi), (n,) + shape)
    x = np.empty_like(e)
    x[0] = rng.normal(0.0, sigma, shape)
    for k in range(1, n):
        x[k] = phi * x[k - 1] + e[k]
    return x


def _drift(rng, t, sigma, tau, shape):
    """Ornstein-Uhlenbeck drift sampled at times t, starting at 0."""
    x = np.zeros((len(t),) + shape)
    for k in range(1, len(t)):
        a = np.exp(-(t[k] - t[k - 1]) / tau)
        x[k] = a * x[k - 1] + rng.normal(0.0, sigma * np.sqrt(1.0 - a * a), shape)
    return x


def _mask(t, intervals):
    m = np.zeros(len(t), dtype=bool)
    for a, b in intervals:
        m |= (t >= a) & (t < b)
    return m


def _hold_and_drift(points, mask, rng, t, sigma, tau):
    """Within each run of True in mask, points hold their value at the run's start plus a drift."""
    out = points.copy()
    k, n = 0, len(t)
    while k < n:
        if not mask[k]:
            k += 1
            continue
        e = k
        while e < n and mask[e]:
            e += 1
        out[k:e] = points[k] + _drift(rng, t[k:e], sigma, tau, points.shape[1:])
        k = e
    return out


class Clip:
    """A pose clip: t (n), landmarks (n, 33, 4) = x, y, z, visibility, lost (n) = rows with no
    detection; `events` lists what the noise did, for reports."""

    def __init__(self, t, landmarks, lost=None, events=None):
        self.t, self.landmarks = t, landmarks
        self.lost = np.zeros(len(t), dtype=bool) if lost is None else lost
        self.events = events or {}

    def given(self):
        """The landmarks as the solver's reader sees them (SPEC §7): a lost row repeats the
        previous row's points at visibility 0 (NaN before any detection: the rest pose)."""
        lm = self.landmarks.copy()
        for k in np.nonzero(self.lost)[0]:
            lm[k] = lm[k - 1] if k > 0 else np.nan
            lm[k, :, 3] = 0.0
        return lm

    def write(self, path):
        head = 'frame,t_s,' + ','.join(f'lm{j}_{c}' for j in range(33) for c in ('x', 'y', 'z', 'vis'))
        empty = ',' * 131
        with open(path, 'w') as f:
            f.write(head + '\n')
            for k in range(len(self.t)):
                if self.lost[k]:
                    f.write(f'{k + 1},{self.t[k]:.6f},{empty}\n')
                else:
                    f.write(f'{k + 1},{self.t[k]:.6f},' + ','.join('%.9g' % v for v in self.landmarks[k].ravel()) + '\n')


def clean(truth):
    lm = np.concatenate([truth.landmarks, np.ones(truth.landmarks.shape[:2] + (1,))], axis=2)
    return Clip(truth.t.copy(), lm)


def noisy(truth, seed, name, dropouts=True, upper_body=False, level=1.0, p=NOISY):
    """The tracker model on a Truth: noise, and with `dropouts` dropouts, lost frames and the
    legs out of frame for a segment; `upper_body`: the legs out of frame for the whole clip;
    `level` scales the jitter (sensitivity studies)."""
    t, n = truth.t, len(truth.t)
    length = truth.motion.frames * truth.motion.frame_time
    ev = _rng(seed, name, 'events')         # the schedule: the same at every frame rate
    fr = _rng(seed, name, 'frames', truth.step)    # per-frame dropout draws
    # the jitter and seen visibilities have their own stream, so that a clip with dropouts has
    # exactly the jitter of the same clip without them (tests compare the two)
    jr = _rng(seed, name, 'jitter', truth.step)
    long_iv = {}
    for limb in LIMBS:
        d = ev.uniform(*p['long_duration_arm' if 'arm' in limb else 'long_duration_leg'])
        a = ev.uniform(0.05 * length, 0.95 * length - d)
        long_iv[limb] = [(a, a + d)] if dropouts else []
    if upper_body:
        legs_iv = [(0.0, length)]
    elif not dropouts:
        legs_iv = []
    else:
        d = ev.uniform(*p['legs_out'])
        a = ev.uniform(0.2 * length, 0.8 * length - d)
        legs_iv = [(a, a + d)]
    g = ev.uniform(0.1 * length, 0.9 * length - p['lost_gap'])
    gap_iv = [(g, g + p['lost_gap'])]
    events = {'long': long_iv, 'legs_out': legs_iv, 'lost_gap': gap_iv, 'blink': {}}
    pts = truth.landmarks.copy()
    sig = np.empty((33, 3))
    sig[:, :2] = p['sigma_xy']
    sig[:, 2] = p['sigma_z']
    sig *= SCALE[:, None] * level
    scale = np.ones((n, 33, 1))
    vis = jr.uniform(*p['vis_seen'], (n, 33))
    noise = np.concatenate([_ar1(jr, n, (33, 2), 1.0, p['phi_xy']),
                            _ar1(jr, n, (33, 1), 1.0, p['phi_z'])], axis=2)
    unseen = np.zeros((n, 33), dtype=bool)
    # seconds-long dropouts per limb, with drifting points
    for limb, idx in LIMBS.items():
        m = _mask(t, long_iv[limb])
        for j in idx:
            pts[:, j] = _hold_and_drift(pts[:, j], m, fr, t, p['drift_sigma'], p['drift_tau'])
            unseen[m, j] = True
    # legs out of frame for a segment (or the whole clip)
    m_legs = _mask(t, legs_iv)
    for j in LEGS:
        pts[:, j] = _hold_and_drift(pts[:, j], m_legs, fr, t, p['legs_drift_sigma'], p['legs_drift_tau'])
    scale[m_legs, 23:25] = p['hips_edge_noise']
    # single-frame dropouts, drawn per frame (a tracker's per-frame failure)
    for limb, idx in LIMBS.items():
        rate = p['blink_rate_arm'] if 'arm' in limb else p['blink_rate_leg']
        m = (fr.random(n) < rate / truth.fps) & dropouts
        events['blink'][limb] = np.nonzero(m)[0].tolist()
        for j in idx:
            unseen[m, j] = True
            scale[m, j] = p['blink_noise']
    vis[unseen] = fr.uniform(*p['vis_unseen'], int(unseen.sum()))
    vis[:, 25:33][m_legs] = fr.uniform(*p['legs_out_vis'], (int(m_legs.sum()), 8))
    pts = pts + noise * sig * scale
    # frames with no detection: single frames and one gap
    lost = fr.random(n) < p['lost_rate'] / truth.fps
    lost |= _mask(t, gap_iv)
    lost &= dropouts
    lost[0] = False
    events['lost'] = np.nonzero(lost)[0].tolist()
    lm = np.concatenate([pts, vis[:, :, None]], axis=2)
    return Clip(t.copy(), lm, lost, events)
