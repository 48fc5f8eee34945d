// Plays a VRM Animation written by `crowd pose CLIP --frame engine --vrma FILE` with
// @pixiv/three-vrm-animation (GLTFLoader + VRMAnimationLoaderPlugin, createVRMAnimationClip) on a
// VRM 1.0 humanoid built here (@pixiv/three-vrm's VRMHumanoid over bones with arbitrary rest
// rotations, as a real model's) and checks it against the clip:
//   node vrma_three.mjs NPM_DIR FILE.vrma CLIP.csv [TRACE.csv PARAMETER INSTANCE [MOUTH GAZE_X GAZE_Y]]
// - the file is a glTF binary that GLTFLoader reads, with one VRM animation of the clip's
//   duration whose keyframes sit at the clip's times;
// - at every keyframe every arm, leg and hand bone of the avatar (raw bones' world positions,
//   after VRMHumanoid.update()) points along the clip's landmark segment in glTF's frame
//   (x, y, -z) within 0.05 degrees (the hand: wrist to mid index/pinky, so a T-posed VRM hand lies
//   along its arm), and the left shoulder lies on the avatar's left;
// - expressions: with TRACE (crowd run --trace of a rig whose blink drives PARAMETER, default 1,
//   so its value is the eye opening) the avatar's blinkLeft and blinkRight weights (three-vrm's
//   VRMExpression objects, driven by the clip) are 1 - the opening, clamped to [0, 1], within
//   1e-5 at every keyframe; without it the file has no expression;
// - with MOUTH GAZE_X GAZE_Y (the trace's mouth and gaze parameters, the rig's ParamMouthOpenY,
//   ParamEyeBallX/Y) the avatar's aa weight is the mouth clamped to [0, 1] within 1e-5, and its
//   VRMLookAt (three-vrm's, driven by the clip's lookAt track) looks along Ry(30 deg * x) *
//   Rx(-20 deg * y) applied to +Z (x, y: the gaze clamped to [-1, 1]; +x the avatar's left, +y up)
//   within 0.001 degrees; the gaze must sweep past 10 degrees each way and the mouth past 0.5.
// Exit 0: all good; 1: a check failed (printed).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [npmDir, vrmaPath, clipPath, tracePath, parameter, instance, mouthParam, gazeX, gazeY] = process.argv.slice(2);
const mod = (p) => import(pathToFileURL(path.resolve(npmDir, 'node_modules', p)).href);
const THREE = await mod('three/build/three.module.js');
const { GLTFLoader } = await mod('three/examples/jsm/loaders/GLTFLoader.js');
const { VRMHumanoid, VRMExpression, VRMExpressionManager, VRMLookAt } = await mod('@pixiv/three-vrm/lib/three-vrm.module.js');
const { VRMAnimationLoaderPlugin, VRMLookAtQuaternionProxy, createVRMAnimationClip } = await mod(
  '@pixiv/three-vrm-animation/lib/three-vrm-animation.module.js');

let failures = 0;
function fail(msg) {
  if (failures < 25) console.error('vrma_three: ' + msg);
  failures++;
}

const bytes = readFileSync(vrmaPath);
const loader = new GLTFLoader();
loader.register((parser) => new VRMAnimationLoaderPlugin(parser));
const gltf = await new Promise((resolve, reject) =>
  loader.parse(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength), '', resolve, reject));
const animations = gltf.userData.vrmAnimations;
if (!animations || animations.length !== 1) throw new Error(`vrma_three: ${animations?.length} VRM animations, expected 1`);

const rows = readFileSync(clipPath, 'utf8').split('\n').slice(1).filter((l) => l.trim())
  .map((l) => l.split(',').map(Number));
const times = rows.map((r) => r[1] - rows[0][1]);
if (Math.abs(animations[0].duration - times[times.length - 1]) > 1e-5)
  fail(`duration ${animations[0].duration}, expected ${times[times.length - 1]}`);

// ---- the avatar: T-pose joints in glTF's frame, raw bones with arbitrary rest rotations ----
const joints = { hips: [0, 0.93, 0], spine: [0, 1.03, 0], head: [0, 1.59, 0],
  leftUpperArm: [0.18, 1.43, 0], leftLowerArm: [0.46, 1.43, 0], leftHand: [0.72, 1.43, 0],
  rightUpperArm: [-0.18, 1.43, 0], rightLowerArm: [-0.46, 1.43, 0], rightHand: [-0.72, 1.43, 0],
  leftUpperLeg: [0.1, 0.93, 0], leftLowerLeg: [0.1, 0.48, 0], leftFoot: [0.1, 0.05, 0],
  rightUpperLeg: [-0.1, 0.93, 0], rightLowerLeg: [-0.1, 0.48, 0], rightFoot: [-0.1, 0.05, 0] };
const parentOf = { hips: null, spine: 'hips', head: 'spine', leftUpperArm: 'spine', leftLowerArm: 'leftUpperArm',
  leftHand: 'leftLowerArm', rightUpperArm: 'spine', rightLowerArm: 'rightUpperArm', rightHand: 'rightLowerArm',
  leftUpperLeg: 'hips', leftLowerLeg: 'leftUpperLeg', leftFoot: 'leftLowerLeg', rightUpperLeg: 'hips',
  rightLowerLeg: 'rightUpperLeg', rightFoot: 'rightLowerLeg' };
const scene = new THREE.Scene();
const raw = {};
let seed = 11;
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
for (const [hand, x] of [['leftHand', 0.805], ['rightHand', -0.805]]) {
  const tip = new THREE.Object3D();
  raw[hand].add(tip);
  tip.position.copy(raw[hand].worldToLocal(new THREE.Vector3(x, 1.43, 0)));
  raw[hand + 'Tip'] = tip;
}
const humanoid = new VRMHumanoid(Object.fromEntries(Object.keys(joints).map((n) => [n, { node: raw[n] }])));
scene.add(humanoid.normalizedHumanBonesRoot);
const expressionManager = new VRMExpressionManager();
const blinks = ['blinkLeft', 'blinkRight'].map((name) => {
  const e = new VRMExpression(name);
  scene.add(e);
  expressionManager.registerExpression(e);
  return e;
});
let mouth = null, lookAt = null;
if (mouthParam) {
  mouth = new VRMExpression('aa');
  scene.add(mouth);
  expressionManager.registerExpression(mouth);
  lookAt = new VRMLookAt(humanoid, { applyYawPitch() {} }); // the angles alone are checked
  const proxy = new VRMLookAtQuaternionProxy(lookAt); // what the lookAt track drives
  proxy.name = 'VRMLookAtQuaternionProxy';
  scene.add(proxy);
}
const vrm = { humanoid, scene, meta: { metaVersion: '1' }, expressionManager, lookAt };
const clip = createVRMAnimationClip(animations[0], vrm);
const mixer = new THREE.AnimationMixer(scene);
const expressionTracks = animations[0].expressionTracks.preset;
const wantTracks = mouthParam ? 3 : 2;
if (tracePath && expressionTracks.size !== wantTracks)
  fail(`${expressionTracks.size} expression tracks, expected blinkLeft, blinkRight${mouthParam ? ' and aa' : ''}`);
if (mouthParam && !animations[0].lookAtTrack) fail('no lookAt track');
if (!mouthParam && animations[0].lookAtTrack) fail('a lookAt track, expected none');
if (!tracePath && expressionTracks.size !== 0) fail(`${expressionTracks.size} expression tracks, expected none`);
const traced = (id) => { // frame -> the parameter's value
  const m = new Map();
  for (const l of readFileSync(tracePath, 'utf8').split('\n').slice(1)) {
    const f = l.split(',');
    if (f[1] === instance && f[2] === id) m.set(Number(f[0]), Number(f[3]));
  }
  return m;
};
const opening = tracePath ? traced(parameter) : null;
const mouthOf = mouthParam ? traced(mouthParam) : null, gazeXOf = mouthParam ? traced(gazeX) : null;
const gazeYOf = mouthParam ? traced(gazeY) : null;
const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));
let worstMouth = 0, worstLook = 0, highestMouth = 0, yawRange = [0, 0], pitchRange = [0, 0];
const action = mixer.clipAction(clip);
action.setLoop(THREE.LoopOnce); // (a looping action shows the first frame at the clip's end)
action.clampWhenFinished = true;
action.play();

// ---- the pose at every keyframe ----
const limbs = [['leftUpperArm', 'leftLowerArm', 11, 13], ['leftLowerArm', 'leftHand', 13, 15],
  ['rightUpperArm', 'rightLowerArm', 12, 14], ['rightLowerArm', 'rightHand', 14, 16],
  ['leftUpperLeg', 'leftLowerLeg', 23, 25], ['leftLowerLeg', 'leftFoot', 25, 27],
  ['rightUpperLeg', 'rightLowerLeg', 24, 26], ['rightLowerLeg', 'rightFoot', 26, 28],
  ['leftHand', 'leftHandTip', 15, [17, 19]], ['rightHand', 'rightHandTip', 16, [18, 20]]];
const point = (row, p, c) => [p].flat().reduce((s, i) => s + row[2 + i * 4 + c], 0) / [p].flat().length;
const at = (name) => new THREE.Vector3().setFromMatrixPosition(raw[name].matrixWorld);
let worst = 0, checked = 0, worstWeight = 0, highest = 0;
for (const [k, row] of rows.entries()) {
  if (![...Array(33).keys()].every((i) => row[2 + i * 4 + 3] >= 0.5)) continue;
  mixer.setTime(times[k]);
  humanoid.update();
  scene.updateMatrixWorld(true);
  if (tracePath) {
    const want = Math.min(1, Math.max(0, 1 - opening.get(k + 1)));
    highest = Math.max(highest, want);
    for (const e of blinks) {
      const err = Math.abs(e.weight - want);
      worstWeight = Math.max(worstWeight, err);
      if (!(err <= 1e-5)) fail(`frame ${k + 1} ${e.expressionName}: weight ${e.weight}, expected ${want}`);
    }
  }
  if (mouthParam) {
    const want = clamp(mouthOf.get(k + 1), 0, 1);
    highestMouth = Math.max(highestMouth, want);
    const err = Math.abs(mouth.weight - want);
    worstMouth = Math.max(worstMouth, err);
    if (!(err <= 1e-5)) fail(`frame ${k + 1} aa: weight ${mouth.weight}, expected ${want}`);
    // the direction expected, in double: yaw toward +X (the avatar's left), up toward +Y
    const yaw = 30 * clamp(gazeXOf.get(k + 1), -1, 1) * Math.PI / 180;
    const up = 20 * clamp(gazeYOf.get(k + 1), -1, 1) * Math.PI / 180;
    yawRange = [Math.min(yawRange[0], yaw), Math.max(yawRange[1], yaw)];
    pitchRange = [Math.min(pitchRange[0], up), Math.max(pitchRange[1], up)];
    const want3 = new THREE.Vector3(Math.sin(yaw) * Math.cos(up), Math.sin(up), Math.cos(yaw) * Math.cos(up));
    const got = new THREE.Vector3(0, 0, 1).applyEuler(lookAt.getEuler(new THREE.Euler()));
    const deg = 2 * Math.asin(Math.min(1, got.distanceTo(want3) / 2)) * 180 / Math.PI;
    worstLook = Math.max(worstLook, deg);
    if (!(deg <= 0.001)) fail(`frame ${k + 1} lookAt: yaw ${lookAt.yaw} pitch ${lookAt.pitch}, ${deg} deg off`);
  }
  for (const [a, b, la, lb] of limbs) {
    const got = at(b).sub(at(a)).normalize();
    const d = [0, 1, 2].map((c) => point(row, lb, c) - point(row, la, c));
    const want = new THREE.Vector3(d[0], d[1], -d[2]).normalize();
    // the angle from the chord, in double
    const deg = 2 * Math.asin(Math.min(1, got.distanceTo(want) / 2)) * 180 / Math.PI;
    worst = Math.max(worst, deg);
    checked++;
    if (deg > 0.05) fail(`frame ${k + 1} ${a}: ${deg.toFixed(4)} deg from the landmarks`);
  }
  const hipsQ = new THREE.Quaternion();
  humanoid.getNormalizedBoneNode('hips').getWorldQuaternion(hipsQ);
  const left = new THREE.Vector3(0, 1, 0).applyQuaternion(hipsQ).cross(new THREE.Vector3(0, 0, 1).applyQuaternion(hipsQ));
  if (at('leftUpperArm').sub(at('rightUpperArm')).dot(left) <= 0) fail(`frame ${k + 1}: the left shoulder on the avatar's right`);
}
if (checked === 0) fail('no frame with every landmark seen');
const tenDeg = 10 * Math.PI / 180;
if (mouthParam && !(highestMouth > 0.5)) fail(`the mouth never opens past half (${highestMouth})`);
if (mouthParam && !(yawRange[0] < -tenDeg && yawRange[1] > tenDeg && pitchRange[0] < -tenDeg && pitchRange[1] > tenDeg))
  fail(`the gaze sweeps yaw ${yawRange} and pitch ${pitchRange} rad: too little to prove the lookAt's axes`);
if (tracePath && !(highest > 0.5)) fail(`the eyes never close past half (${highest}): the blink check proves little`);
console.log(`vrma_three: ${rows.length} keyframes, worst bone direction ${worst.toExponential(2)} deg over ${checked} bones` +
  (tracePath ? `, blink weights up to ${highest.toFixed(3)}, worst ${worstWeight.toExponential(2)} off` : '') +
  (mouthParam ? `, aa worst ${worstMouth.toExponential(2)} off, lookAt worst ${worstLook.toExponential(2)} deg` : '') +
  `, ${failures} failures`);
process.exit(failures ? 1 : 0);
