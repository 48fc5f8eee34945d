// Side by side with kalidokit 1.1.5's Hand.solve (npm `kalidokit`, a solver nobody here wrote):
//   node kalidokit_fingers.mjs NPM_DIR TEST_FINGERS_EXE WORK_DIR
// test_fingers (CROWD_FINGERS_EXPORT=FILE) writes its double-precision hand skeleton's truth
// sequences (open, fist, pinch, point, wave, counting at 15, 30 and 60 fps, both hands) under
// tracker-like noise: per frame the 21 noisy landmarks, the true joint flexion angles and
// crowd's. Here kalidokit solves the same landmarks. Flexion per joint:
// - crowd: the signed turn from the parent bone's direction to the child's about the child's
//   side axis (test_fingers' curls(), per joint);
// - kalidokit: its fingers turn about one axis (z), so a finger joint's flexion is |z|; its thumb
//   joints get three Euler angles (XYZ) from one tracked angle, so a thumb joint's flexion is
//   the turn of its rotation away from the one kalidokit gives a straight thumb (solved here
//   from a straight hand).
// Compared: index, middle, ring, little MCP, PIP, DIP (kalidokit's Proximal, Intermediate,
// Distal) and the thumb's MCP and IP (kalidokit's ThumbIntermediate and ThumbDistal; the
// metacarpal's carpometacarpal joint is a two-axis saddle the truth gives no single flexion to).
// Prints the p95 and mean absolute flexion error per finger for both, overall and per frame
// rate, on noise-free landmarks and under tracker noise (crowd's One Euro filter on, and off, at
// the full noise and at 0.3x); exit 1 unless crowd's p95 is the lower on every finger in every
// row (overall, and at each frame rate from 15 fps on).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const [npmDir, exe, work] = process.argv.slice(2);
// the package's main (dist/index.js) imports directories, which Node's ES modules refuse: its UMD build
const { Hand } = createRequire(path.resolve(npmDir, 'x.js'))('kalidokit/dist/kalidokit.umd.js');
const fingers = ['Index', 'Middle', 'Ring', 'Little'];
const segs = ['Proximal', 'Intermediate', 'Distal'];
const deg = 180 / Math.PI;

function quat(e) { // three.js Euler order XYZ: q = qx * qy * qz
  const [cx, sx] = [Math.cos(e.x / 2), Math.sin(e.x / 2)], [cy, sy] = [Math.cos(e.y / 2), Math.sin(e.y / 2)],
    [cz, sz] = [Math.cos(e.z / 2), Math.sin(e.z / 2)];
  return [sx * cy * cz + cx * sy * sz, cx * sy * cz - sx * cy * sz, cx * cy * sz + sx * sy * cz,
    cx * cy * cz - sx * sy * sz];
}
function turn(a, b) {
  const qa = quat(a), qb = quat(b);
  const d = Math.abs(qa[0] * qb[0] + qa[1] * qb[1] + qa[2] * qb[2] + qa[3] * qb[3]);
  return 2 * Math.acos(Math.min(1, d)) * deg;
}
// kalidokit's straight thumb: a straight hand along +y
const straightHand = Array.from({ length: 21 }, (_, k) => (k === 0 ? { x: 0, y: 0, z: 0 } :
  { x: (((k - 1) >> 2) - 2) * 0.02, y: -(0.03 + ((k - 1) & 3) * 0.03), z: 0 }));
const straight = { Left: Hand.solve(straightHand, 'Left'), Right: Hand.solve(straightHand, 'Right') };

const names = ['thumb', 'index', 'middle', 'ring', 'little'];
const p95 = (a) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(0.95 * (s.length - 1))]; };
const mean = (a) => a.reduce((x, y) => x + y, 0) / a.length;
let failures = 0;

function compare(title, env) {
  const file = path.join(work, 'fingers_truth.txt');
  const run = spawnSync(exe, [], { env: { ...process.env, ...env, CROWD_FINGERS_EXPORT: file }, encoding: 'utf8' });
  if (run.status !== 0) {
    console.error(`kalidokit_fingers: ${exe} failed (${run.status}): ${run.stderr}`);
    process.exit(1);
  }
  const err = {}; // err[fps][solver][finger] = [abs errors]
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    const v = line.split(' ');
    const [fps, side] = [v[1], v[2]];
    const n = v.slice(4).map(Number);
    const lm = Array.from({ length: 21 }, (_, k) => ({ x: n[3 * k], y: n[3 * k + 1], z: n[3 * k + 2] }));
    const truth = n.slice(63, 77), ours = n.slice(77, 91);
    const k = Hand.solve(lm, side);
    if (!k) throw new Error(`kalidokit returned nothing for: ${line.slice(0, 60)}`);
    const theirs = [];
    for (const f of fingers) for (const s of segs) theirs.push(Math.abs(k[side + f + s].z) * deg);
    for (const s of ['Intermediate', 'Distal']) theirs.push(turn(k[side + 'Thumb' + s], straight[side][side + 'Thumb' + s]));
    for (const key of [fps, 'all']) {
      err[key] ??= { crowd: names.map(() => []), kalidokit: names.map(() => []) };
      for (let j = 0; j < 14; j++) {
        const finger = j < 12 ? 1 + Math.floor(j / 3) : 0;
        err[key].crowd[finger].push(Math.abs(ours[j] - truth[j]));
        err[key].kalidokit[finger].push(Math.abs(theirs[j] - truth[j]));
      }
    }
  }
    console.log(`\n${title}: flexion error against the truth, degrees, crowd vs kalidokit 1.1.5 Hand.solve`);
  console.log('fps  finger   crowd p95  kalidokit p95  crowd mean  kalidokit mean  samples');
  for (const key of ['15', '30', '60', 'all']) {
    names.forEach((name, f) => {
      const c = err[key].crowd[f], kd = err[key].kalidokit[f];
      console.log(`${key.padEnd(4)} ${name.padEnd(8)} ${p95(c).toFixed(2).padStart(9)}  ${p95(kd).toFixed(2).padStart(13)}` +
        `  ${mean(c).toFixed(2).padStart(10)}  ${mean(kd).toFixed(2).padStart(14)}  ${String(c.length).padStart(7)}`);
      if (!(p95(c) < p95(kd))) {
        console.error(`kalidokit_fingers: ${title}, ${key} fps, ${name}: crowd's p95 flexion error ${p95(c).toFixed(2)} is not below kalidokit's ${p95(kd).toFixed(2)}`);
        failures++;
      }
    });
  }
}

compare('noise-free landmarks', { CROWD_FINGERS_NOISE: '0' });
// test_truth's tracker noise (x/y 1.5 mm, depth 5 mm, correlated over 0.1 s): crowd with its
// One Euro filter on (crowd_fingers_desc.smoothing, default settings) ...
compare('tracker noise, crowd smoothing on', { CROWD_FINGERS_SMOOTHING: '1' });
// ... and with crowd's defaults (no filter, joint limits on): both solvers follow the noise
compare('tracker noise, crowd smoothing off', {});
compare('tracker noise at 0.3x, crowd smoothing off', { CROWD_FINGERS_NOISE: '0.3' });
console.log(`kalidokit_fingers: ${failures} failures`);
process.exit(failures ? 1 : 0);
