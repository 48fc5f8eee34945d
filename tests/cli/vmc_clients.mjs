// The README's conversions of crowd's VMC rotations for three kinds of receiver, each checked
// against the landmarks:  node vmc_clients.mjs NPM_DIR CROWD CLIP.csv
// `crowd pose CLIP --frame engine --vmc` is received with the npm package osc; for every frame
// and every limb (upper and lower arms and legs) the bone's direction, posed from the received
// local rotations alone, must equal the clip's landmark segment within 0.05 degrees:
// - Unity (left-handed, Y up, the avatar facing +Z): the rotations as sent, composed down the
//   hierarchy; the T-pose's left arm points along -X; the landmarks are (-x, y, -z);
// - glTF / three-vrm (right-handed, Y up, a VRM 1.0 avatar facing +Z): each rotation as
//   (x, -y, -z, w) set on three-vrm's normalized bones of a humanoid built here from bones with
//   arbitrary rest rotations (as a real model's), VRMHumanoid.update() carrying them to the raw
//   bones; the directions are the raw bones' world positions; the landmarks are (x, y, -z); and
//   the left shoulder lies on the avatar's left (up x forward in a right-handed frame);
// - Unreal (left-handed, Z up, X forward, Y right): each rotation as (z, x, y, w), composed down
//   the hierarchy; the T-pose's left arm points along -Y; the landmarks are (-z, -x, y).
// Exit 0: all good; 1: a check failed (printed).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [npmDir, crowd, clipPath] = process.argv.slice(2);
const require = createRequire(path.resolve(npmDir, 'x.js'));
const osc = require('osc');
const THREE = await import(pathToFileURL(path.resolve(npmDir, 'node_modules/three/build/three.module.js')).href);
const { VRMHumanoid } = await import(
  pathToFileURL(path.resolve(npmDir, 'node_modules/@pixiv/three-vrm/lib/three-vrm.module.js')).href);

let failures = 0;
function fail(msg) {
  if (failures < 25) console.error('vmc_clients: ' + msg);
  failures++;
}

// ---- receive ----
const port = new osc.UDPPort({ localAddress: '127.0.0.1', localPort: 0, metadata: true });
const frames = [];
port.on('osc', (p) => {
  if (!p.packets) return;
  const bones = {};
  for (const m of p.packets)
    if (m.address === '/VMC/Ext/Bone/Pos') bones[m.args[0].value] = m.args.slice(4, 8).map((a) => a.value);
  frames.push(bones);
});
await new Promise((resolve) => { port.on('ready', resolve); port.open(); });
try { port.socket.setRecvBufferSize(4 << 20); } catch { /* the kernel's cap: short clips fit anyway */ }
const child = spawn(crowd, ['pose', clipPath, '--frame', 'engine', '--vmc', `127.0.0.1:${port.socket.address().port}`],
  { stdio: ['ignore', 'ignore', 'inherit'] });
const code = await new Promise((resolve) => child.on('close', resolve));
await new Promise((r) => setTimeout(r, 300));
port.close();
if (code !== 0) fail(`crowd pose --vmc exited ${code}`);

const rows = readFileSync(clipPath, 'utf8').split('\n').slice(1).filter((l) => l.trim())
  .map((l) => l.split(',').slice(2).map(Number));
if (frames.length !== rows.length) fail(`${frames.length} bundles for ${rows.length} clip rows`);

// ---- quaternions (x, y, z, w), Hamilton; the formulas hold in either handedness ----
const qmul = (a, b) => [a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
  a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
  a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
  a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]];
const rotate = (q, v) => qmul(qmul(q, [...v, 0]), [-q[0], -q[1], -q[2], q[3]]).slice(0, 3);
const angle = (a, b) => {
  const c = [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
  return Math.atan2(Math.hypot(...c), a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) * 180 / Math.PI;
};

const parent = { Hips: null, Spine: 'Hips', Head: 'Spine', LeftUpperArm: 'Spine', LeftLowerArm: 'LeftUpperArm',
  LeftHand: 'LeftLowerArm', RightUpperArm: 'Spine', RightLowerArm: 'RightUpperArm', RightHand: 'RightLowerArm',
  LeftUpperLeg: 'Hips', LeftLowerLeg: 'LeftUpperLeg', LeftFoot: 'LeftLowerLeg', RightUpperLeg: 'Hips',
  RightLowerLeg: 'RightUpperLeg', RightFoot: 'RightLowerLeg' };
// limb: [bone, child bone, landmark at its start, at its end]
const limbs = [['LeftUpperArm', 'LeftLowerArm', 11, 13], ['LeftLowerArm', 'LeftHand', 13, 15],
  ['RightUpperArm', 'RightLowerArm', 12, 14], ['RightLowerArm', 'RightHand', 14, 16],
  ['LeftUpperLeg', 'LeftLowerLeg', 23, 25], ['LeftLowerLeg', 'LeftFoot', 25, 27],
  ['RightUpperLeg', 'RightLowerLeg', 24, 26], ['RightLowerLeg', 'RightFoot', 26, 28],
  ['LeftHand', 'LeftHandTip', 15, [17, 19]], ['RightHand', 'RightHandTip', 16, [18, 20]]];
// the T-pose's bone directions in Unity's frame (io/pose/vmc.h: arms out along the sides, legs down)
const restUnity = { LeftUpperArm: [-1, 0, 0], LeftLowerArm: [-1, 0, 0], RightUpperArm: [1, 0, 0],
  RightLowerArm: [1, 0, 0], LeftUpperLeg: [0, -1, 0], LeftLowerLeg: [0, -1, 0], RightUpperLeg: [0, -1, 0],
  RightLowerLeg: [0, -1, 0], LeftHand: [-1, 0, 0], RightHand: [1, 0, 0] };
// a point: a landmark or the mean of several
const point = (row, p, c) => [p].flat().reduce((s, i) => s + row[i * 4 + c], 0) / [p].flat().length;
const segment = (row, a, b) => [0, 1, 2].map((c) => point(row, b, c) - point(row, a, c)); // engine frame

// Composes locals (already in the client's frame) into world rotations.
function worlds(locals) {
  const w = {};
  for (const name of Object.keys(parent)) w[name] = parent[name] ? qmul(w[parent[name]], locals[name]) : locals[name];
  return w;
}

const worst = { unity: 0, three: 0, unreal: 0 };
function check(client, k, name, got, want) {
  const deg = angle(got, want);
  worst[client] = Math.max(worst[client], deg);
  if (deg > 0.05) fail(`${client}: frame ${k + 1} ${name}: ${deg.toFixed(4)} deg from the landmarks`);
}

// ---- Unity and Unreal: composition by hand ----
const toUnreal = (v) => [v[2], v[0], v[1]]; // Unity (x right, y up, z forward) -> Unreal (X forward, Y right, Z up)
for (const [k, bones] of frames.entries()) {
  const row = rows[k];
  if (!row) break;
  const unity = worlds(bones);
  const unreal = worlds(Object.fromEntries(Object.entries(bones).map(([n, q]) => [n, [q[2], q[0], q[1], q[3]]])));
  for (const [a, , la, lb] of limbs) {
    const d = segment(row, la, lb);
    check('unity', k, a, rotate(unity[a], restUnity[a]), [-d[0], d[1], -d[2]]);
    check('unreal', k, a, rotate(unreal[a], toUnreal(restUnity[a])), toUnreal([-d[0], d[1], -d[2]]));
  }
}

// ---- three-vrm: a humanoid whose raw bones have arbitrary rest rotations ----
// T-pose joints in glTF's frame (the engine's (x, y, -z); the avatar faces +Z, its left is +X)
const joints = { hips: [0, 0.93, 0], spine: [0, 1.03, 0], head: [0, 1.59, 0],
  leftUpperArm: [0.18, 1.43, 0], leftLowerArm: [0.46, 1.43, 0], leftHand: [0.72, 1.43, 0],
  rightUpperArm: [-0.18, 1.43, 0], rightLowerArm: [-0.46, 1.43, 0], rightHand: [-0.72, 1.43, 0],
  leftUpperLeg: [0.1, 0.93, 0], leftLowerLeg: [0.1, 0.48, 0], leftFoot: [0.1, 0.05, 0],
  rightUpperLeg: [-0.1, 0.93, 0], rightLowerLeg: [-0.1, 0.48, 0], rightFoot: [-0.1, 0.05, 0] };
const vrmParent = { hips: null, spine: 'hips', head: 'spine', leftUpperArm: 'spine', leftLowerArm: 'leftUpperArm',
  leftHand: 'leftLowerArm', rightUpperArm: 'spine', rightLowerArm: 'rightUpperArm', rightHand: 'rightLowerArm',
  leftUpperLeg: 'hips', leftLowerLeg: 'leftUpperLeg', leftFoot: 'leftLowerLeg', rightUpperLeg: 'hips',
  rightLowerLeg: 'rightUpperLeg', rightFoot: 'rightLowerLeg' };
const scene = new THREE.Scene();
const raw = {};
let seed = 7;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
for (const name of Object.keys(joints)) {
  const bone = new THREE.Bone();
  bone.name = name;
  const p = vrmParent[name] ? raw[vrmParent[name]] : scene;
  p.add(bone);
  p.updateMatrixWorld(true);
  // an arbitrary rest rotation, and the position that puts the joint where the T-pose has it
  bone.quaternion.setFromAxisAngle(new THREE.Vector3(random() - 0.5, random() - 0.5, random() - 0.5).normalize(),
    random() * Math.PI);
  const local = new THREE.Vector3(...joints[name]);
  p.worldToLocal(local);
  bone.position.copy(local);
  bone.updateMatrixWorld(true);
  raw[name] = bone;
}
// the hands' tips (mid index/pinky in the T-pose), children of the raw hands: not humanoid bones
for (const [hand, x] of [['leftHand', 0.805], ['rightHand', -0.805]]) {
  const tip = new THREE.Object3D();
  raw[hand].add(tip);
  tip.position.copy(raw[hand].worldToLocal(new THREE.Vector3(x, 1.43, 0)));
  raw[hand + 'Tip'] = tip;
}
const humanoid = new VRMHumanoid(Object.fromEntries(Object.entries(raw).map(([n, node]) => [n, { node }])));
scene.add(humanoid.normalizedHumanBonesRoot);
const vrmName = (unityName) => unityName[0].toLowerCase() + unityName.slice(1);
const at = (name) => new THREE.Vector3().setFromMatrixPosition(raw[name].matrixWorld);
for (const [k, bones] of frames.entries()) {
  const row = rows[k];
  if (!row) break;
  for (const [name, q] of Object.entries(bones)) {
    const node = humanoid.getNormalizedBoneNode(vrmName(name));
    if (node) node.quaternion.set(q[0], -q[1], -q[2], q[3]); // Unity -> glTF: mirror x
  }
  humanoid.update();
  scene.updateMatrixWorld(true);
  for (const [a, b, la, lb] of limbs) {
    const got = at(vrmName(b)).sub(at(vrmName(a)));
    const d = segment(row, la, lb);
    check('three', k, a, [got.x, got.y, got.z], [d[0], d[1], -d[2]]);
  }
  // handedness: the left shoulder on the avatar's left (up x forward, right-handed)
  const hipsQ = new THREE.Quaternion();
  humanoid.getNormalizedBoneNode('hips').getWorldQuaternion(hipsQ);
  const up = new THREE.Vector3(0, 1, 0).applyQuaternion(hipsQ), forward = new THREE.Vector3(0, 0, 1).applyQuaternion(hipsQ);
  if (at('leftUpperArm').sub(at('rightUpperArm')).dot(up.clone().cross(forward)) <= 0)
    fail(`three: frame ${k + 1}: the left shoulder is on the avatar's right (mirrored)`);
}

console.log(`vmc_clients: ${frames.length} frames; worst limb direction: Unity ${worst.unity.toExponential(2)} deg, ` +
  `three-vrm ${worst.three.toExponential(2)} deg, Unreal ${worst.unreal.toExponential(2)} deg; ${failures} failures`);
process.exit(failures ? 1 : 0);
