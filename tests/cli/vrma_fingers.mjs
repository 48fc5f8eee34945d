// Plays the VRM Animation of `crowd pose CLIP --frame engine --hands HANDS --vrma FILE` with
// @pixiv/three-vrm-animation on a VRM 1.0 humanoid with finger bones built here (@pixiv/three-vrm's
// VRMHumanoid over raw bones with arbitrary rest rotations, as vrma_three.mjs does for the body):
//   node vrma_fingers.mjs NPM_DIR FILE.vrma HANDS.txt ROWS FPS
// HANDS.txt holds per row the 2 x 21 hand landmarks (left, then right) in the engine frame. At
// every keyframe every finger bone of the avatar (raw bones' world positions, after
// VRMHumanoid.update(): a bone to the next joint; a distal bone to a tip object at its T-pose
// fingertip) points along its landmark segment in glTF's frame (x, y, -z) within 0.05 degrees.
// The avatar's T-pose hand is tools' vmc.h's (fingers along the arm, the thumb 45 degrees forward).
// Exit 0: all good; 1: a check failed (printed).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [npmDir, vrmaPath, handsTxt, rowsText, fpsText] = process.argv.slice(2);
const mod = (p) => import(pathToFileURL(path.resolve(npmDir, 'node_modules', p)).href);
const THREE = await mod('three/build/three.module.js');
const { GLTFLoader } = await mod('three/examples/jsm/loaders/GLTFLoader.js');
const { VRMHumanoid } = await mod('@pixiv/three-vrm/lib/three-vrm.module.js');
const { VRMAnimationLoaderPlugin, createVRMAnimationClip } = await mod('@pixiv/three-vrm-animation/lib/three-vrm-animation.module.js');

let failures = 0;
const fail = (m) => { if (failures++ < 25) console.error('vrma_fingers: ' + m); };
const bytes = readFileSync(vrmaPath);
const loader = new GLTFLoader();
loader.register((parser) => new VRMAnimationLoaderPlugin(parser));
const gltf = await new Promise((resolve, reject) =>
  loader.parse(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength), '', resolve, reject));
const anim = gltf.userData.vrmAnimations[0];

// the T-pose in glTF's frame (engine (x, y, z) -> (x, y + 0.93, -z))
const joints = { hips: [0, 0.93, 0], spine: [0, 1.03, 0], leftUpperArm: [0.18, 1.43, 0], leftLowerArm: [0.46, 1.43, 0],
  leftHand: [0.72, 1.43, 0], rightUpperArm: [-0.18, 1.43, 0], rightLowerArm: [-0.46, 1.43, 0], rightHand: [-0.72, 1.43, 0] };
const parentOf = { hips: null, spine: 'hips', leftUpperArm: 'spine', leftLowerArm: 'leftUpperArm', leftHand: 'leftLowerArm',
  rightUpperArm: 'spine', rightLowerArm: 'rightUpperArm', rightHand: 'rightLowerArm' };
const xs = [[0.09, 0.13, 0.155, 0.175], [0.09, 0.135, 0.16, 0.185], [0.085, 0.125, 0.15, 0.17], [0.08, 0.11, 0.13, 0.145]];
const zs = [-0.03, -0.01, 0.01, 0.03];
const tpose = (s) => { // vmc.h's T-pose hand, engine frame from the wrist
  const p = [[0, 0, 0]];
  for (let k = 0; k < 4; k++) p.push([s * (0.02 + 0.025 * k), 0, -(0.02 + 0.025 * k)]);
  for (let f = 0; f < 4; f++) for (let k = 0; k < 4; k++) p.push([s * xs[f][k], 0, zs[f]]);
  return p;
};
const fingers = []; // [vrm name, first landmark, parent name]
for (const side of ['left', 'right']) {
  const thumb = ['ThumbMetacarpal', 'ThumbProximal', 'ThumbDistal'];
  thumb.forEach((n, j) => fingers.push([side, side + n, 1 + j, j ? side + thumb[j - 1] : side + 'Hand']));
  for (const [f, m] of [['Index', 5], ['Middle', 9], ['Ring', 13], ['Little', 17]])
    ['Proximal', 'Intermediate', 'Distal'].forEach((s, j, a) =>
      fingers.push([side, side + f + s, m + j, j ? side + f + a[j - 1] : side + 'Hand']));
}
for (const [side, name, lm, parent] of fingers) {
  const s = side === 'left' ? 1 : -1, t = tpose(s)[lm], w = joints[side + 'Hand'];
  joints[name] = [w[0] + t[0], w[1] + t[1], w[2] - t[2]];
  parentOf[name] = parent;
}
const scene = new THREE.Scene();
const raw = {};
let seed = 7;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
for (const name of Object.keys(joints)) {
  const bone = new THREE.Bone();
  bone.name = name;
  const p = parentOf[name] ? raw[parentOf[name]] : scene;
  p.add(bone);
  p.updateMatrixWorld(true);
  bone.quaternion.setFromAxisAngle(new THREE.Vector3(random() - 0.5, random() - 0.5, random() - 0.5).normalize(),
    random() * Math.PI);
  bone.position.copy(p.worldToLocal(new THREE.Vector3(...joints[name])));
  bone.updateMatrixWorld(true);
  raw[name] = bone;
}
for (const [side, name, lm] of fingers) { // fingertips
  if (!name.endsWith('Distal')) continue;
  const s = side === 'left' ? 1 : -1, t = tpose(s)[lm + 1], w = joints[side + 'Hand'];
  const tip = new THREE.Object3D();
  raw[name].add(tip);
  tip.position.copy(raw[name].worldToLocal(new THREE.Vector3(w[0] + t[0], w[1] + t[1], w[2] - t[2])));
  raw[name + 'Tip'] = tip;
}
scene.updateMatrixWorld(true);
const humanoid = new VRMHumanoid(Object.fromEntries(Object.keys(joints).map((n) => [n, { node: raw[n] }])));
scene.add(humanoid.normalizedHumanBonesRoot);
const vrm = { humanoid, scene, meta: { metaVersion: '1' }, expressionManager: null, lookAt: null };
const clip = createVRMAnimationClip(anim, vrm);
const mixer = new THREE.AnimationMixer(scene);
const action = mixer.clipAction(clip);
action.setLoop(THREE.LoopOnce);
action.clampWhenFinished = true;
action.play();
const tracked = clip.tracks.filter((t) => /(Thumb|Index|Middle|Ring|Little)/.test(t.name)).length;
if (tracked !== 30) fail(`${tracked} finger tracks in the clip, expected 30`);

const hands = readFileSync(handsTxt, 'utf8').trim().split('\n').map((l) => l.trim().split(/\s+/).map(Number));
const rows = Number(rowsText), fps = Number(fpsText);
const at = (name) => new THREE.Vector3().setFromMatrixPosition(raw[name].matrixWorld);
let worst = 0, checked = 0;
for (let k = 0; k < rows; k++) {
  mixer.setTime(k / fps);
  humanoid.update();
  scene.updateMatrixWorld(true);
  fingers.forEach(([side, name, lm], i) => {
    const next = name.endsWith('Distal') ? name + 'Tip' : fingers[i + 1][1];
    const got = at(next).sub(at(name)).normalize();
    const h = side === 'left' ? 0 : 1, p = (j, c) => hands[k][(h * 21 + j) * 3 + c];
    const d = new THREE.Vector3(p(lm + 1, 0) - p(lm, 0), p(lm + 1, 1) - p(lm, 1), -(p(lm + 1, 2) - p(lm, 2))).normalize();
    const deg = 2 * Math.asin(Math.min(1, got.distanceTo(d) / 2)) * 180 / Math.PI;
    worst = Math.max(worst, deg);
    checked++;
    if (!(deg <= 0.05)) fail(`frame ${k + 1} ${name}: ${deg.toFixed(4)} deg from its landmark segment`);
  });
}
console.log(`vrma_fingers: ${rows} keyframes, ${checked} finger bones, worst direction ${worst.toExponential(2)} deg, ${failures} failures`);
process.exit(failures ? 1 : 0);
