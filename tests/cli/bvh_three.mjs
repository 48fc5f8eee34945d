// Reads a BVH written by `crowd pose --bvh` or `crowd run --bvh` with three.js's BVHLoader (a
// parser nobody here wrote) and checks it against a bones trace of the same run and the clip:
//   node bvh_three.mjs THREE_DIR FILE.bvh TRACE.csv local|world INSTANCE FRAMES FRAME_TIME CLIP.csv|- FRAME SEEN_FROM
// - the hierarchy: the 15 joints with their parents and 5 end sites; CHANNELS 6 on the hips and
//   3 on every other joint, in the order the writer documents; every frame line has 48 values;
// - the frame count and time (the clip's rows and mean interval);
// - the file is right-handed (the engine frame with x negated): every joint's rotation of every
//   frame equals the trace's rotation of that bone mirrored, (x, y, z, w) -> (x, -y, -z, w)
//   (local: the track's quaternion; world: the joint's world rotation in the loader's skeleton),
//   within 0.05 degrees;
// - geometry (SEEN_FROM > 0, with CLIP the clip fed one row a frame): with the skeleton posed by
//   the tracks, every limb bone's direction in the world (elbow to wrist, knee to ankle, ...) is
//   the clip's landmark direction within 0.5 degrees on frames from SEEN_FROM on where all
//   landmarks are seen (in FRAME: mediapipe_world has y down; the file's x is the landmarks' -x).
// Exit 0: all good; 1: a check failed (printed).
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const [threeDir, bvhPath, bonesPath, kind, instance, framesText, frameTimeText, clipPath, frameName, seenFromText] =
  process.argv.slice(2);
const THREE = await import(pathToFileURL(path.join(threeDir, 'build', 'three.module.js')).href);
const { BVHLoader } = await import(pathToFileURL(path.join(threeDir, 'examples', 'jsm', 'loaders', 'BVHLoader.js')).href);

let failures = 0;
function fail(msg) {
  if (failures < 20) console.error('bvh_three: ' + msg);
  failures++;
}

const names = ['hips', 'chest', 'head', 'left_upper_arm', 'left_lower_arm', 'left_hand', 'right_upper_arm',
  'right_lower_arm', 'right_hand', 'left_upper_leg', 'left_lower_leg', 'left_foot', 'right_upper_leg',
  'right_lower_leg', 'right_foot'];
const joints = ['Hips', 'Chest', 'Head', 'LeftUpperArm', 'LeftLowerArm', 'LeftHand', 'RightUpperArm', 'RightLowerArm',
  'RightHand', 'LeftUpperLeg', 'LeftLowerLeg', 'LeftFoot', 'RightUpperLeg', 'RightLowerLeg', 'RightFoot'];
const parents = { Hips: null, Chest: 'Hips', Head: 'Chest', LeftUpperArm: 'Chest', LeftLowerArm: 'LeftUpperArm',
  LeftHand: 'LeftLowerArm', RightUpperArm: 'Chest', RightLowerArm: 'RightUpperArm', RightHand: 'RightLowerArm',
  LeftUpperLeg: 'Hips', LeftLowerLeg: 'LeftUpperLeg', LeftFoot: 'LeftLowerLeg', RightUpperLeg: 'Hips',
  RightLowerLeg: 'RightUpperLeg', RightFoot: 'RightLowerLeg' };

const text = readFileSync(bvhPath, 'utf8');
const result = new BVHLoader().parse(text);
const bones = result.skeleton.bones;

// ---- hierarchy ----
const byName = new Map();
let endSites = 0;
for (const b of bones) {
  if (b.name === 'ENDSITE') { endSites++; continue; }
  if (byName.has(b.name)) fail(`joint ${b.name} twice`);
  byName.set(b.name, b);
}
for (const j of joints) {
  const b = byName.get(j);
  if (!b) { fail(`no joint ${j}`); continue; }
  const p = b.parent && b.parent.isBone ? b.parent.name : null;
  if (p !== parents[j]) fail(`${j}: parent ${p}, expected ${parents[j]}`);
}
if (byName.size !== 15) fail(`${byName.size} joints, expected 15`);
if (endSites !== 5) fail(`${endSites} end sites, expected 5`);
for (const b of bones)
  if (b.name === 'ENDSITE' && !['Head', 'LeftHand', 'RightHand', 'LeftFoot', 'RightFoot'].includes(b.parent.name))
    fail(`an end site under ${b.parent.name}`);

// ---- channels (the loader reads values by them; checked in the text too) ----
const channelLines = text.split('\n').filter((l) => l.trim().startsWith('CHANNELS')).map((l) => l.trim());
if (channelLines.length !== 15) fail(`${channelLines.length} CHANNELS lines, expected 15`);
channelLines.forEach((l, k) => {
  const want = k === 0 ? 'CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation'
    : 'CHANNELS 3 Zrotation Xrotation Yrotation';
  if (l !== want) fail(`CHANNELS line ${k + 1}: "${l}", expected "${want}"`);
});
const motion = text.split('\n');
const m = motion.findIndex((l) => l.trim() === 'MOTION');
const frameLines = motion.slice(m + 3).filter((l) => l.trim() !== '');
for (const [k, l] of frameLines.entries()) {
  const n = l.trim().split(/\s+/).length;
  if (n !== 48) fail(`frame ${k + 1}: ${n} values, expected 48 (6 + 14 * 3)`);
}

// ---- frames and time ----
const track = (j, what) => result.clip.tracks.find((t) => t.name === `${j}.${what}`);
const hipsQ = track('Hips', 'quaternion');
if (!hipsQ) throw new Error('no Hips.quaternion track');
const frames = hipsQ.times.length;
if (frames !== Number(framesText)) fail(`${frames} frames, expected ${framesText}`);
const frameTime = Number(frameTimeText);
if (frames > 1 && Math.abs(hipsQ.times[1] - hipsQ.times[0] - frameTime) > 1e-6)
  fail(`frame time ${hipsQ.times[1] - hipsQ.times[0]}, expected ${frameTime}`);
if (Math.abs(result.clip.duration - (frames - 1) * frameTime) > 1e-4)
  fail(`duration ${result.clip.duration}, expected ${(frames - 1) * frameTime}`);

// ---- rotations against the trace ----
const trace = new Map(); // "frame,bone" -> quaternion
for (const l of readFileSync(bonesPath, 'utf8').split('\n').slice(1)) {
  if (!l) continue;
  const f = l.split(',');
  if (f[1] === instance) trace.set(`${f[0]},${f[2]}`, f.slice(3, 7).map(Number));
}
const root = bones[0];
function pose(k) {
  for (const j of joints) {
    const q = track(j, 'quaternion').values.slice(k * 4, k * 4 + 4);
    byName.get(j).quaternion.set(q[0], q[1], q[2], q[3]);
  }
  const p = track('Hips', 'position').values.slice(k * 3, k * 3 + 3);
  root.position.set(p[0], p[1], p[2]);
  root.updateMatrixWorld(true);
}
let worst = 0;
for (let k = 0; k < frames; k++) {
  if (kind === 'world') pose(k);
  for (let b = 0; b < 15; b++) {
    let q = track(joints[b], 'quaternion').values.slice(k * 4, k * 4 + 4);
    if (kind === 'world') {
      const wq = new THREE.Quaternion();
      byName.get(joints[b]).matrixWorld.decompose(new THREE.Vector3(), wq, new THREE.Vector3());
      q = [wq.x, wq.y, wq.z, wq.w];
    }
    const engine = trace.get(`${k + 1},${names[b]}`);
    if (!engine) { fail(`the trace has no ${names[b]} at frame ${k + 1}`); continue; }
    const w = [engine[0], -engine[1], -engine[2], engine[3]];
    // the angle between the rotations from the chord (acos near 1 would lose half the digits)
    const n = Math.hypot(...w);
    const minus = Math.hypot(...q.map((v, i) => v - w[i] / n)), plus = Math.hypot(...q.map((v, i) => v + w[i] / n));
    const deg = 4 * Math.asin(Math.min(1, Math.min(minus, plus) / 2)) * 180 / Math.PI;
    worst = Math.max(worst, deg);
    if (deg > 0.05) fail(`frame ${k + 1} ${joints[b]}: ${deg.toFixed(4)} deg from the trace's ${kind} rotation`);
  }
}
if (trace.size !== frames * 15) fail(`the trace has ${trace.size / 15} frames of instance ${instance}, the BVH ${frames}`);

// ---- geometry: limb directions ----
const limbs = [['LeftUpperArm', 'LeftLowerArm', 11, 13], ['LeftLowerArm', 'LeftHand', 13, 15],
  ['RightUpperArm', 'RightLowerArm', 12, 14], ['RightLowerArm', 'RightHand', 14, 16],
  ['LeftUpperLeg', 'LeftLowerLeg', 23, 25], ['LeftLowerLeg', 'LeftFoot', 25, 27],
  ['RightUpperLeg', 'RightLowerLeg', 24, 26], ['RightLowerLeg', 'RightFoot', 26, 28]];
const ySign = frameName === 'mediapipe_world' ? -1 : 1;
const seenFrom = Number(seenFromText);
let checked = 0, worstDir = 0;
if (seenFrom > 0) {
  const clipRows = readFileSync(clipPath, 'utf8').split('\n').slice(1).filter((l) => l.trim() !== '')
    .map((l) => l.split(',').slice(2).map(Number));
  if (clipRows.length !== frames) fail(`the clip has ${clipRows.length} rows, the BVH ${frames} frames`);
  for (let k = seenFrom - 1; k < Math.min(frames, clipRows.length); k++) {
    const row = clipRows[k];
    if (row.length !== 132 || !row.every((v, i) => i % 4 !== 3 || v >= 0.5)) continue;
    pose(k);
    for (const [a, c, la, lc] of limbs) {
      const pa = new THREE.Vector3().setFromMatrixPosition(byName.get(a).matrixWorld);
      const pc = new THREE.Vector3().setFromMatrixPosition(byName.get(c).matrixWorld);
      const got = pc.sub(pa).normalize();
      const want = new THREE.Vector3(-(row[lc * 4] - row[la * 4]), ySign * (row[lc * 4 + 1] - row[la * 4 + 1]),
        row[lc * 4 + 2] - row[la * 4 + 2]).normalize();
      const deg = got.angleTo(want) * 180 / Math.PI;
      worstDir = Math.max(worstDir, deg);
      checked++;
      if (deg > 0.5) fail(`frame ${k + 1} ${a} -> ${c}: ${deg.toFixed(3)} deg from the landmarks' direction`);
    }
  }
  if (checked === 0) fail('no frame with every landmark seen to check the geometry on');
}

console.log(`bvh_three: ${frames} frames, worst rotation ${worst.toFixed(5)} deg, worst limb direction ` +
  `${worstDir.toFixed(4)} deg over ${checked} bones, ${failures} failures`);
process.exit(failures ? 1 : 0);
