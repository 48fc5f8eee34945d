// The finger bones `crowd pose --hands --vmc` sends, received by the npm package `osc`:
//   node vmc_fingers.mjs OSC_NPM_DIR CROWD CLIP.csv HANDS.ndjson HANDS.txt ROWS [SCENE.json K]
// (with SCENE.json and K: what `crowd run SCENE --vmc --instance K` sends, a scene whose group
// plays the same clip and hands with a rig with fingers)
// HANDS.txt holds per row the 2 x 21 hand landmarks (left, then right) in the engine frame.
// Checks, per bundle: the body's 15 bones and the 30 finger bones each once, by Unity's
// HumanBodyBones names (LeftThumbProximal ... RightLittleDistal: the thumb one joint off VRM
// 1.0's), unit rotations; and the values: composing the local rotations down Unity's hierarchy
// (Hips > Spine > LeftUpperArm > LeftLowerArm > LeftHand > the finger's chain) turns each bone's
// T-pose direction (tools' vmc.h: the flat hand, fingers along the arm, thumb 45 degrees forward)
// onto its landmark segment, both in Unity's frame (-x, y, -z of the engine's), within 0.01
// degrees (float32 rotations along a chain of up to nine).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const [oscDir, crowd, clip, handsFile, handsTxt, rowsText, sceneFile, instance] = process.argv.slice(2);
const osc = createRequire(path.resolve(oscDir, 'x.js'))('osc');
let failures = 0;
const fail = (m) => { if (failures++ < 20) console.error('vmc_fingers: ' + m); };

const unity = (v) => [-v[0], v[1], -v[2]];
const sub = (a, b) => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
function qmul(a, b) {
  return [a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1], a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
    a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3], a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]];
}
function rotate(q, v) { const r = qmul(qmul(q, [v[0], v[1], v[2], 0]), [-q[0], -q[1], -q[2], q[3]]); return r.slice(0, 3); }
function angle(a, b) {
  const c = [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
  return Math.atan2(Math.hypot(...c), a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) * 180 / Math.PI;
}

// vmc.h's T-pose hand (engine frame, left hand; the right mirrors x)
function tposeHand(side) {
  const s = side === 'Left' ? 1 : -1, p = [[0, 0, 0]];
  for (let k = 0; k < 4; k++) p.push([s * (0.02 + 0.025 * k), 0, -(0.02 + 0.025 * k)]);
  const xs = [[0.09, 0.13, 0.155, 0.175], [0.09, 0.135, 0.16, 0.185], [0.085, 0.125, 0.15, 0.17], [0.08, 0.11, 0.13, 0.145]];
  const zs = [-0.03, -0.01, 0.01, 0.03];
  for (let f = 0; f < 4; f++) for (let k = 0; k < 4; k++) p.push([s * xs[f][k], 0, zs[f]]);
  return p;
}
// Unity's names, each bone's landmark segment (the hand: wrist to the middle of 5 and 17) and parent
const chain = [['Hand', null, 'LowerArm']];
const thumb = ['ThumbProximal', 'ThumbIntermediate', 'ThumbDistal'];
thumb.forEach((n, j) => chain.push([n, [1 + j, 2 + j], j ? thumb[j - 1] : 'Hand']));
for (const [f, m] of [['Index', 5], ['Middle', 9], ['Ring', 13], ['Little', 17]]) {
  const segs = ['Proximal', 'Intermediate', 'Distal'];
  segs.forEach((s, j) => chain.push([f + s, [m + j, m + j + 1], j ? f + segs[j - 1] : 'Hand']));
}
const segment = (lm, seg) => (seg ? sub(lm[seg[1]], lm[seg[0]]) :
  sub([0, 1, 2].map((c) => (lm[5][c] + lm[17][c]) / 2), lm[0]));

const rows = Number(rowsText);
const hands = readFileSync(handsTxt, 'utf8').trim().split('\n').map((l) => {
  const v = l.trim().split(/\s+/).map(Number);
  return [0, 1].map((h) => Array.from({ length: 21 }, (_, k) => v.slice((h * 21 + k) * 3, (h * 21 + k) * 3 + 3)));
});

const port = new osc.UDPPort({ localAddress: '127.0.0.1', localPort: 0, metadata: true });
const bundles = [];
port.on('osc', (p) => bundles.push(p));
port.on('error', (e) => fail(`osc: ${e.message || e}`));
await new Promise((resolve) => { port.on('ready', resolve); port.open(); });
const where = `127.0.0.1:${port.socket.address().port}`;
const args = sceneFile ? ['run', sceneFile, '--vmc', where, '--instance', instance, '--realtime', '--quiet']
  : ['pose', clip, '--frame', 'engine', '--hands', handsFile, '--hand-threshold', '0', '--vmc', where, '--realtime'];
const child = spawn(crowd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
let err = '';
child.stderr.on('data', (d) => { err += d; });
const code = await new Promise((resolve) => child.on('close', resolve));
await new Promise((r) => setTimeout(r, 300));
port.close();
if (code !== 0) fail(`crowd ${args[0]} exited ${code}: ${err}`);
if (bundles.length !== rows) fail(`${bundles.length} bundles, expected ${rows}`);

let worst = 0, checked = 0;
bundles.forEach((b, k) => {
  const bones = {};
  for (const m of b.packets) {
    if (m.address !== '/VMC/Ext/Bone/Pos') continue;
    const name = m.args[0].value, q = m.args.slice(4, 8).map((a) => a.value);
    if (bones[name]) fail(`bundle ${k}: ${name} twice`);
    if (Math.abs(Math.hypot(...q) - 1) > 1e-5) fail(`bundle ${k}: ${name} not unit`);
    bones[name] = q;
  }
  const want = ['Hips', 'Spine', 'Head', 'LeftUpperArm', 'LeftLowerArm', 'RightUpperArm', 'RightLowerArm'];
  for (const side of ['Left', 'Right']) for (const [n] of chain) want.push(side + n);
  for (const n of want) if (!bones[n]) fail(`bundle ${k}: no ${n}`);
  if (Object.keys(bones).length !== 45) fail(`bundle ${k}: ${Object.keys(bones).length} bones, expected 45`);
  ['Left', 'Right'].forEach((side, h) => {
    const global = {};
    global[side + 'LowerArm'] = ['Hips', 'Spine', side + 'UpperArm', side + 'LowerArm'].reduce((g, n) => qmul(g, bones[n]), [0, 0, 0, 1]);
    const tpose = tposeHand(side);
    for (const [n, seg, parent] of chain) {
      global[side + n] = qmul(global[side + parent], bones[side + n]);
      const got = rotate(global[side + n], unity(segment(tpose, seg)));
      const a = angle(got, unity(segment(hands[k][h], seg)));
      worst = Math.max(worst, a);
      checked++;
      if (a > 0.01) fail(`bundle ${k} ${side}${n}: ${a.toFixed(4)} deg from its landmark segment`);
    }
  });
});
console.log(`vmc_fingers: ${bundles.length} bundles, ${checked} hand bones, worst direction ${worst.toExponential(2)} deg, ${failures} failures`);
process.exit(failures ? 1 : 0);
