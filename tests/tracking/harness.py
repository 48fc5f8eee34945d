"""Runs a `crowd pose` solver on mocap-derived clips and measures it against the mocap truth.

The solver is a command line (`path/to/crowd pose`, or `python3 .../pose_ref.py`) that takes a
SPEC §7 pose clip and the `crowd pose` flags and writes the bones CSV
`frame,instance,bone,qx,qy,qz,qw`. Nothing here imports a solver: the harness judges it only by
what it writes.

  python3 harness.py [--solver "CMD"] [--data DIR] [--reference DIR] [--seed N]
      prints the error and flip tables (default solver: the reference model's pose_ref.py)
"""
import argparse
import concurrent.futures
import csv
import os
import shlex
import subprocess
import sys
import tempfile

import numpy as np

import noise
import quat
import skeleton as sk

HERE = os.path.dirname(os.path.abspath(__file__))
PROJECT = os.path.normpath(os.path.join(HERE, '..', '..'))
DATA = os.path.normpath(os.path.join(PROJECT, '..', 'shared', 'data'))
REFERENCE = os.path.normpath(os.path.join(PROJECT, '..', 'shared', 'reference'))

CLIPS = {'walk': 'cmu_scaled_131_01.bvh', 'hop': 'cmu_scaled_131_03.bvh'}
STEPS = {10: 12, 15: 8, 30: 4, 60: 2}          # fps -> every n-th frame of the 120 fps capture
FLIP_FPS = (15, 30, 60)                        # the flip and re-acquisition rules hold at >= 14 fps
MODES = ('root', 'stable')
# clean: the mocap landmarks, visibility 1; jitter: the tracker's noise on every frame, all seen;
# noisy: jitter, dropouts, frames without detection and the legs out of frame for a segment;
# upper: jitter, and the legs out of frame for the whole clip (an upper-body shot).
VARIANTS = ('clean', 'jitter', 'noisy', 'upper')
SEED = 11
VIS_THRESHOLD = 0.5
DOWN = np.array([0.0, -1.0, 0.0])
BONE_AXIS = np.array([0.0, 1.0, 0.0])          # y_along_bone: a limb bone's +Y is on the bone
FLIP_BONES = (3, 4, 6, 7, 9, 10, 12, 13)       # the limbs, whose roll the side axis decides
REPORT_BONES = tuple(range(3, 15))             # limbs, hands and feet: reported for flips


class SolverError(RuntimeError):
    pass


def read_bones(path, frames):
    """A bones CSV -> quaternions (frames, 15, 4); checks the layout the command promises."""
    with open(path) as f:
        rows = list(csv.reader(f))
    if not rows or rows[0] != ['frame', 'instance', 'bone', 'qx', 'qy', 'qz', 'qw']:
        raise SolverError(f'{path}: not a bones CSV header: {rows[:1]}')
    body = rows[1:]
    if len(body) != frames * 15:
        raise SolverError(f'{path}: {len(body)} rows, expected {frames} frames x 15 bones')
    q = np.empty((frames, 15, 4))
    for i, r in enumerate(body):
        k, b = divmod(i, 15)
        if int(r[0]) != k + 1 or r[1] != '0' or r[2] != sk.BONES[b]:
            raise SolverError(f'{path}:{i + 2}: expected frame {k + 1}, instance 0, {sk.BONES[b]}: {r[:3]}')
        q[k, b] = [float(v) for v in r[3:7]]
    if not np.all(np.isfinite(q)):
        raise SolverError(f'{path}: non-finite rotation')
    return q


class Solver:
    def __init__(self, command):
        self.argv = shlex.split(command)
        self.command = command

    def run(self, clip_path, frames, out_path, flags=()):
        if os.path.exists(out_path):
            os.unlink(out_path)
        argv = self.argv + [clip_path, '--frame', 'engine', *flags, '--bones', out_path]
        p = subprocess.run(argv, capture_output=True, text=True, timeout=300)
        if p.returncode != 0:
            raise SolverError(f'{" ".join(argv)} exited {p.returncode}: {p.stderr.strip()[:500]}')
        return read_bones(out_path, frames)


def reference_solver(reference=REFERENCE):
    path = os.path.join(reference, 'pose_ref.py')
    return f'{shlex.quote(sys.executable)} {shlex.quote(path)}' if os.path.exists(path) else None


# ------------------------------------------------------------------------------- metrics
def trusted(given):
    """SPEC §5.1's trust per bone (frames, 15) from the landmarks the solver is given."""
    vis = given[:, :, 3]
    return np.stack([np.all(vis[:, list(d)] >= VIS_THRESHOLD, axis=1) for d in sk.TRUST_LANDMARKS], axis=1)


def parents(world):
    """Each bone's parent world rotation (the root, identity, for the hips)."""
    p = np.empty_like(world)
    for b, a in enumerate(sk.PARENT):
        p[:, b] = world[:, a] if a >= 0 else np.array([0.0, 0.0, 0.0, 1.0])
    return p


def accuracy(world, truth, trust):
    """Per-bone angular error (frames, 15) in degrees against the mocap truth once the bone's
    constant offset C (est_t ~ truth_t * C, a robust mean over trusted frames) is removed."""
    err = np.full(world.shape[:2], np.nan)
    for b in range(15):
        m = trust[:, b]
        if m.sum() < 2:
            continue
        c = quat.robust_mean(quat.mul(quat.conj(truth[m, b]), world[m, b]))
        err[:, b] = quat.angle(quat.mul(truth[:, b], c), world[:, b])
    return err


def p95(err, trust):
    return np.array([np.percentile(err[trust[:, b], b], 95) if trust[:, b].sum() else np.nan for b in range(15)])


def flips(world, local, given):
    """Per bone: local steps over 90 deg between consecutive frames where the bone's landmark
    segment moved less than 30 deg in its parent's frame and the parent turned less than 90 deg.
    Returns (count (15,), list of (frame, bone, step, segment move, parent turn))."""
    par = parents(world)
    seg = sk.segment_directions(given[:, :, :3])
    seg_p = quat.rotate(quat.conj(par), seg)              # the segment in the parent's frame
    local_step = quat.angle(local[:-1], local[1:])
    parent_turn = quat.angle(par[:-1], par[1:])
    cosang = np.clip(np.sum(seg_p[:-1] * seg_p[1:], axis=-1), -1.0, 1.0)
    seg_move = np.degrees(np.arccos(cosang))
    hit = (local_step > 90.0) & (seg_move < 30.0) & (parent_turn < 90.0)
    count = np.zeros(15, dtype=int)
    cases = []
    for b in REPORT_BONES:
        idx = np.nonzero(hit[:, b])[0]
        count[b] = len(idx)
        cases += [(int(k) + 2, sk.BONES[b], float(local_step[k, b]), float(seg_move[k, b]),
                   float(parent_turn[k, b])) for k in idx]
    return count, cases


def unseen_legs(world, trust, t, after=1.0):
    """On frames where a leg bone has been untrusted for at least `after` seconds: the largest
    angle (deg) of its axis from world down, the largest from the hips' down (the torso it hangs
    from), and how many such bone-frames there were."""
    worst, worst_hips, n = 0.0, 0.0, 0
    for b in sk.LEG_BONES:
        start = None
        for k in range(len(t)):
            if trust[k, b]:
                start = None
                continue
            if start is None:
                start = t[k]
            if t[k] - start >= after - 1e-9:
                axis = quat.rotate(world[k, b], BONE_AXIS)
                hips_down = quat.rotate(world[k, 0], DOWN)
                worst = max(worst, float(np.degrees(np.arccos(np.clip(axis @ DOWN, -1, 1)))))
                worst_hips = max(worst_hips, float(np.degrees(np.arccos(np.clip(axis @ hips_down, -1, 1)))))
                n += 1
    return worst, worst_hips, n


def reacquisition(world, truth, trust, t, baseline, window=1.0):
    """After each dropout (a bone trusted again after an untrusted frame), over `window` seconds
    while it stays trusted: the largest step of the bone (deg per frame) beyond both what the
    mocap truth turned on that frame and what the same solver did on that frame of the same
    clip without the dropouts (`baseline`: world rotations on the jitter-only clip, whose noise is
    the same), so that only the pop of re-acquisition counts, not the motion or the noise's own
    flips. Returns (worst excess (15,), worst raw step (15,), count of re-acquisitions)."""
    step = quat.angle(world[:-1], world[1:])
    allowed = np.maximum(quat.angle(truth[:-1], truth[1:]), quat.angle(baseline[:-1], baseline[1:]))
    excess = np.zeros(15)
    raw = np.zeros(15)
    count = 0
    for b in range(15):
        for k in range(1, len(t)):
            if not (trust[k, b] and not trust[k - 1, b]):
                continue
            count += 1
            j = k
            while j < len(t) and trust[j, b] and t[j] - t[k] < window:
                excess[b] = max(excess[b], step[j - 1, b] - allowed[j - 1, b])
                raw[b] = max(raw[b], step[j - 1, b])
                j += 1
    return excess, raw, count


# ------------------------------------------------------------------------------- the study
class Run:
    """One solve: the clip as given, the truth, world and local rotations, and the metrics."""

    def __init__(self, truth, clip, world, local):
        self.truth, self.clip, self.world, self.local = truth, clip, world, local
        self.given = clip.given()
        self.trust = trusted(self.given)
        self.fps = truth.fps
        self.err = accuracy(world, truth.rotations, self.trust)
        self.p95 = p95(self.err, self.trust)
        self.flip_count, self.flip_cases = flips(world, local, self.given)


class Study:
    """Every clip x fps x noise variant x mode, solved once (two workers) and kept. A solve
    that fails is kept as its error, raised by run() for the tests that need it only."""

    def __init__(self, solver, data, workdir=None, seed=SEED, clips=CLIPS, fps=tuple(STEPS),
                 variants=VARIANTS, modes=MODES, noise_level=1.0):
        self.solver = Solver(solver) if isinstance(solver, str) else solver
        self.data, self.seed, self.noise_level = data, seed, noise_level
        self.workdir = workdir or tempfile.mkdtemp(prefix='tracking-')
        self.fps, self.variants, self.modes = tuple(fps), tuple(variants), tuple(modes)
        self.truths, self.clips, self.runs = {}, {}, {}
        for name, file in clips.items():
            for f in fps:
                tr = sk.Truth(os.path.join(data, 'bvh', file), STEPS[f])
                self.truths[name, f] = tr
                for v in variants:
                    c = noise.clean(tr) if v == 'clean' else noise.noisy(
                        tr, seed, name, dropouts=v == 'noisy', upper_body=v == 'upper', level=noise_level)
                    path = os.path.join(self.workdir, f'{name}_{f}fps_{v}.csv')
                    c.write(path)
                    self.clips[name, f, v] = (c, path)
        self.names = tuple(clips)
        jobs = [(k, m, loc) for k in self.clips for m in modes for loc in (False, True)]
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            out = dict(zip(jobs, pool.map(self._solve, jobs)))
        for (name, f, v) in self.clips:
            for m in modes:
                w, l = out[(name, f, v), m, False], out[(name, f, v), m, True]
                err = w if isinstance(w, Exception) else l if isinstance(l, Exception) else None
                self.runs[name, f, v, m] = err or Run(self.truths[name, f], self.clips[name, f, v][0], w, l)

    def _solve(self, job):
        (name, f, v), mode, local = job
        clip, path = self.clips[name, f, v]
        out = os.path.join(self.workdir, f'{name}_{f}fps_{v}_{mode}{"_local" if local else ""}.bones.csv')
        flags = ['--fallback', mode] + (['--local'] if local else [])
        try:
            return self.solver.run(path, len(clip.t), out, flags)
        except SolverError as e:
            return e

    def run(self, name, fps, variant, mode):
        r = self.runs[name, fps, variant, mode]
        if isinstance(r, Exception):
            raise r
        return r

    def ok(self, *key):
        return not isinstance(self.runs[key], Exception)


# ------------------------------------------------------------------------------- tables
def _p95(study, key, b):
    return study.runs[key].p95[b] if study.ok(*key) else float('nan')


def _flips(study, key, b):
    return study.runs[key].flip_count[b] if study.ok(*key) else -1


def error_table(study, clip, variant='noisy'):
    fps = study.fps
    head = f'{"p95 error (deg), " + clip + " " + variant:<34}' + ''.join(f'{f"{f} fps root/stable":>20}' for f in fps)
    lines = [head]
    for b in range(15):
        cells = ''.join(f'{_p95(study, (clip, f, variant, "root"), b):>11.1f}/{_p95(study, (clip, f, variant, "stable"), b):<8.1f}' for f in fps)
        lines.append(f'  {sk.BONES[b]:<32}' + cells)
    return '\n'.join(lines)


def flip_table(study, variant='noisy'):
    keys = [(c, f) for c in study.names for f in study.fps if f in FLIP_FPS]
    head = f'{"flips (" + variant + "), root/stable":<34}' + ''.join(f'{f"{c} {f}":>12}' for c, f in keys)
    lines = [head]
    for b in REPORT_BONES:
        lines.append(f'  {sk.BONES[b]:<32}' + ''.join(
            f'{_flips(study, (c, f, variant, "root"), b):>8}/{_flips(study, (c, f, variant, "stable"), b):<3}' for c, f in keys))
    tot = [sum(_flips(study, (c, f, variant, m), b) for b in FLIP_BONES for c, f in keys) for m in MODES]
    lines.append(f'  {"total on the limbs":<32}{tot[0]:>8}/{tot[1]}')
    return '\n'.join(lines)


def report(study):
    """The error tables (per clip and noise variant) and flip tables; a failed solve shows as
    nan / -1 and is listed at the end."""
    out = [f'solver: {study.solver.command}\nseed {study.seed}; noise model: tests/tracking/noise.py NOISY, '
           f'jitter x{study.noise_level:g}']
    shown = [v for v in study.variants if v != 'clean']
    for clip in study.names:
        for v in shown:
            out.append(error_table(study, clip, v))
    for v in shown:
        out.append(flip_table(study, v))
    failed = [f'{k}: {e}' for k, e in study.runs.items() if isinstance(e, Exception)]
    if failed:
        out.append(f'{len(failed)} solves failed, the first: {failed[0]}')
    return '\n\n'.join(out)


def main(argv):
    ap = argparse.ArgumentParser(description='Error and flip tables of a crowd pose solver against the CMU mocap truth.')
    ap.add_argument('--solver', help='the solver command (default: the reference model pose_ref.py)')
    ap.add_argument('--data', default=DATA, help='the shared data folder (bvh/)')
    ap.add_argument('--reference', default=REFERENCE, help='the reference models folder (pose_ref.py)')
    ap.add_argument('--seed', type=int, default=SEED)
    ap.add_argument('--noise-level', type=float, default=1.0, help='scale the jitter (sensitivity runs; the tests use 1)')
    a = ap.parse_args(argv)
    solver = a.solver or reference_solver(a.reference)
    if solver is None or not os.path.isdir(os.path.join(a.data, 'bvh')):
        sys.exit(f'harness: no solver, or no mocap under {a.data}')
    print(report(Study(solver, a.data, seed=a.seed, noise_level=a.noise_level)))


if __name__ == '__main__':
    main(sys.argv[1:])
