// A VMC receiver built on the npm package `osc` (a decoder nobody here wrote) checking what
// `crowd stream --vmc` sends against the VMC protocol's specification:
//   node vmc_osc.mjs OSC_NPM_DIR CROWD WORK_DIR
// It writes one input (pose landmark lines in the engine frame, the pelvis away from the origin,
// interleaved with MediaPipe face landmarker lines), runs `crowd stream --frame engine --vmc
// 127.0.0.1:PORT --params FILE` on it with several settings and checks every bundle:
// - every address is one of the specification's performer-to-marionette addresses and has the
//   argument types the specification gives it (Root/Pos in 2.1's long form with scale 1 and
//   offset 0); every bone name is one of Unity's HumanBodyBones, every blend shape name one of
//   the VRM 0 presets (--vmc-blend vrm0) or ARKit's 52 (arkit), all case-sensitive; each bundle
//   ends with OK and T; quaternions unit;
// - pose bundles: Root/Pos and the 15 body bones once each; the hips' position is the pelvis of
//   the line in Unity's frame (-x, y, -z);
// - face bundles: LeftEye and RightEye = Ry(-30 deg * ParamEyeBallX) * Rx(-20 deg * ParamEyeBallY)
//   of the --params trace's frame (computed here in double), Blink_L/Blink_R = 1 - ParamEyeL/ROpen,
//   A = ParamMouthOpenY, I/U/E/O the documented means of the line's scores (vrm0); with arkit each
//   of the 51 ARKit names MediaPipe gives equals the line's score; within 1e-6;
// - --vmc-send face,eyes sends no Root/Pos and no body bone; --vmc-send bones no eyes and no blend
//   shapes; a bad --vmc-send list exits 2 naming the bad item.
// Exit 0: all good; 1: a check failed (printed).
import { spawnSync, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync, openSync, closeSync } from 'node:fs';
import path from 'node:path';

const [oscDir, crowd, work] = process.argv.slice(2);
const osc = createRequire(path.resolve(oscDir, 'x.js'))('osc'); // OSC_NPM_DIR holds node_modules/osc

let failures = 0;
function fail(msg) {
  if (failures < 25) console.error('vmc_osc: ' + msg);
  failures++;
}

// ---- the VMC specification (protocol.vmc.info, performer -> marionette), names case-sensitive ----
const specAddresses = {
  '/VMC/Ext/OK': ['i', 'iii', 'iiii', 'iiiii'],
  '/VMC/Ext/T': ['f'],
  '/VMC/Ext/Root/Pos': ['sfffffff', 'sfffffffffffff'],
  '/VMC/Ext/Bone/Pos': ['sfffffff'],
  '/VMC/Ext/Blend/Val': ['sf'],
  '/VMC/Ext/Blend/Apply': [''],
  '/VMC/Ext/Cam': ['sffffffff'],
  '/VMC/Ext/Con': ['isiiiffff'],
  '/VMC/Ext/Key': ['isi'],
  '/VMC/Ext/Midi/Note': ['iiif'],
  '/VMC/Ext/Midi/CC/Val': ['if'],
  '/VMC/Ext/Midi/CC/Bit': ['ii'],
  '/VMC/Ext/Hmd/Pos': ['sfffffff'],
  '/VMC/Ext/Con/Pos': ['sfffffff'],
  '/VMC/Ext/Tra/Pos': ['sfffffff'],
  '/VMC/Ext/Hmd/Pos/Local': ['sfffffff'],
  '/VMC/Ext/Con/Pos/Local': ['sfffffff'],
  '/VMC/Ext/Tra/Pos/Local': ['sfffffff'],
  '/VMC/Ext/Setting/Color': ['ffff'],
  '/VMC/Ext/Setting/Win': ['iiii'],
  '/VMC/Ext/Config': ['s'],
  '/VMC/Ext/Light': ['sfffffffffff'],
  '/VMC/Ext/VRM': ['ss', 'sss'],
  '/VMC/Ext/Remote': ['ss'],
  '/VMC/Ext/Opt': ['s'],
  '/VMC/Ext/Rcv': ['ii', 'iis'],
};
const humanBodyBones = ['Hips', 'LeftUpperLeg', 'RightUpperLeg', 'LeftLowerLeg', 'RightLowerLeg', 'LeftFoot',
  'RightFoot', 'Spine', 'Chest', 'UpperChest', 'Neck', 'Head', 'LeftShoulder', 'RightShoulder', 'LeftUpperArm',
  'RightUpperArm', 'LeftLowerArm', 'RightLowerArm', 'LeftHand', 'RightHand', 'LeftToes', 'RightToes', 'LeftEye',
  'RightEye', 'Jaw', 'LeftThumbProximal', 'LeftThumbIntermediate', 'LeftThumbDistal', 'LeftIndexProximal',
  'LeftIndexIntermediate', 'LeftIndexDistal', 'LeftMiddleProximal', 'LeftMiddleIntermediate', 'LeftMiddleDistal',
  'LeftRingProximal', 'LeftRingIntermediate', 'LeftRingDistal', 'LeftLittleProximal', 'LeftLittleIntermediate',
  'LeftLittleDistal', 'RightThumbProximal', 'RightThumbIntermediate', 'RightThumbDistal', 'RightIndexProximal',
  'RightIndexIntermediate', 'RightIndexDistal', 'RightMiddleProximal', 'RightMiddleIntermediate',
  'RightMiddleDistal', 'RightRingProximal', 'RightRingIntermediate', 'RightRingDistal', 'RightLittleProximal',
  'RightLittleIntermediate', 'RightLittleDistal'];
const bodyBones = ['Hips', 'Spine', 'Head', 'LeftUpperArm', 'LeftLowerArm', 'LeftHand', 'RightUpperArm',
  'RightLowerArm', 'RightHand', 'LeftUpperLeg', 'LeftLowerLeg', 'LeftFoot', 'RightUpperLeg', 'RightLowerLeg',
  'RightFoot'];
const vrm0Presets = ['Neutral', 'A', 'I', 'U', 'E', 'O', 'Blink', 'Joy', 'Angry', 'Sorrow', 'Fun', 'LookUp',
  'LookDown', 'LookLeft', 'LookRight', 'Blink_L', 'Blink_R'];
const arkit52 = ['eyeBlinkLeft', 'eyeLookDownLeft', 'eyeLookInLeft', 'eyeLookOutLeft', 'eyeLookUpLeft',
  'eyeSquintLeft', 'eyeWideLeft', 'eyeBlinkRight', 'eyeLookDownRight', 'eyeLookInRight', 'eyeLookOutRight',
  'eyeLookUpRight', 'eyeSquintRight', 'eyeWideRight', 'jawForward', 'jawLeft', 'jawRight', 'jawOpen', 'mouthClose',
  'mouthFunnel', 'mouthPucker', 'mouthLeft', 'mouthRight', 'mouthSmileLeft', 'mouthSmileRight', 'mouthFrownLeft',
  'mouthFrownRight', 'mouthDimpleLeft', 'mouthDimpleRight', 'mouthStretchLeft', 'mouthStretchRight',
  'mouthRollLower', 'mouthRollUpper', 'mouthShrugLower', 'mouthShrugUpper', 'mouthPressLeft', 'mouthPressRight',
  'mouthLowerDownLeft', 'mouthLowerDownRight', 'mouthUpperUpLeft', 'mouthUpperUpRight', 'browDownLeft',
  'browDownRight', 'browInnerUp', 'browOuterUpLeft', 'browOuterUpRight', 'cheekPuff', 'cheekSquintLeft',
  'cheekSquintRight', 'noseSneerLeft', 'noseSneerRight', 'tongueOut'];
// MediaPipe's face landmarker categories, in its order (index 0 is its _neutral)
const mediapipe = ['_neutral', 'browDownLeft', 'browDownRight', 'browInnerUp', 'browOuterUpLeft', 'browOuterUpRight',
  'cheekPuff', 'cheekSquintLeft', 'cheekSquintRight', 'eyeBlinkLeft', 'eyeBlinkRight', 'eyeLookDownLeft',
  'eyeLookDownRight', 'eyeLookInLeft', 'eyeLookInRight', 'eyeLookOutLeft', 'eyeLookOutRight', 'eyeLookUpLeft',
  'eyeLookUpRight', 'eyeSquintLeft', 'eyeSquintRight', 'eyeWideLeft', 'eyeWideRight', 'jawForward', 'jawLeft',
  'jawOpen', 'jawRight', 'mouthClose', 'mouthDimpleLeft', 'mouthDimpleRight', 'mouthFrownLeft', 'mouthFrownRight',
  'mouthFunnel', 'mouthLeft', 'mouthLowerDownLeft', 'mouthLowerDownRight', 'mouthPressLeft', 'mouthPressRight',
  'mouthPucker', 'mouthRight', 'mouthRollLower', 'mouthRollUpper', 'mouthShrugLower', 'mouthShrugUpper',
  'mouthSmileLeft', 'mouthSmileRight', 'mouthStretchLeft', 'mouthStretchRight', 'mouthUpperUpLeft',
  'mouthUpperUpRight', 'noseSneerLeft', 'noseSneerRight'];

// ---- the input: pose lines (engine frame) and face lines, interleaved ----
const FRAMES = 12;
const tpose = { 0: [0, 0.66, -0.10], 2: [0.04, 0.69, -0.075], 1: [0.03, 0.69, -0.075], 3: [0.05, 0.69, -0.07],
  7: [0.075, 0.66, 0], 9: [0.02, 0.62, -0.085], 11: [0.18, 0.5, 0], 13: [0.46, 0.5, 0], 15: [0.72, 0.5, 0],
  17: [0.8, 0.49, 0.03], 19: [0.81, 0.49, -0.03], 21: [0.77, 0.49, -0.06], 23: [0.1, 0, 0], 25: [0.1, -0.45, 0],
  27: [0.1, -0.88, 0], 29: [0.1, -0.93, 0.04], 31: [0.1, -0.93, -0.13] };
const mirror = { 0: 0, 2: 5, 1: 4, 3: 6, 7: 8, 9: 10, 11: 12, 13: 14, 15: 16, 17: 18, 19: 20, 21: 22, 23: 24, 25: 26,
  27: 28, 29: 30, 31: 32 };
function poseLandmarks(k) {
  const lm = new Array(33);
  const shift = [0.3 + 0.01 * k, 0.93 + 0.005 * Math.sin(k), 1.5 - 0.02 * k];
  for (const [l, p] of Object.entries(tpose)) {
    const r = mirror[l];
    // the arms come down a little each frame, the knees bend
    let [x, y, z] = p;
    const drop = 0.03 * k * Math.max(0, Math.abs(x) - 0.18);
    const bend = (Number(l) >= 25 && Number(l) <= 32) ? 0.01 * k : 0;
    lm[l] = [x + shift[0], y - drop + shift[1], z + bend + shift[2]];
    lm[r] = [-x + shift[0], y - drop + shift[1], z + bend * 0.5 + shift[2]];
  }
  return lm;
}
function poseLine(k) {
  const lm = poseLandmarks(k);
  return JSON.stringify({ timestamp_ms: k * 40, worldLandmarks: [lm.map(([x, y, z]) => ({ x, y, z, visibility: 1 }))] });
}
function faceScores(k) {
  return mediapipe.map((_, i) => Number((((i * 37 + k * 11) % 97) / 97).toFixed(4)));
}
function faceLine(k) {
  const sc = faceScores(k);
  return JSON.stringify({ timestamp_ms: k * 40 + 5,
    faceBlendshapes: [{ categories: sc.map((score, index) => ({ index, score, categoryName: mediapipe[index] })) }],
    facialTransformationMatrixes: [{ rows: 4, columns: 4, data: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1] }] });
}
const input = path.join(work, 'vmc_osc_input.ndjson');
writeFileSync(input, Array.from({ length: FRAMES }, (_, k) => poseLine(k) + '\n' + faceLine(k) + '\n').join(''));

// ---- receiving ----
async function receive(args) {
  const port = new osc.UDPPort({ localAddress: '127.0.0.1', localPort: 0, metadata: true });
  const packets = [];
  port.on('osc', (p) => packets.push(p));
  port.on('error', (e) => fail(`osc: ${e.message || e}`));
  await new Promise((resolve) => { port.on('ready', resolve); port.open(); });
  const where = `127.0.0.1:${port.socket.address().port}`;
  const fd = openSync(input, 'r');
  const child = spawn(crowd, ['stream', '--frame', 'engine', '--vmc', where, ...args], { stdio: [fd, 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => { err += d; });
  const code = await new Promise((resolve) => child.on('close', resolve));
  closeSync(fd);
  await new Promise((r) => setTimeout(r, 300));
  port.close();
  if (code !== 0) fail(`crowd stream ${args.join(' ')} exited ${code}: ${err}`);
  return packets;
}

const f32 = Math.fround;
function near(a, b, what) {
  if (!(Math.abs(a - b) <= 1e-6)) fail(`${what}: ${a}, expected ${b}`);
}
function eyeRotation(gx, gy) { // Ry(-30 deg gx) * Rx(-20 deg gy), (x, y, z, w)
  const yaw = -30 * Math.PI / 180 * gx, pitch = -20 * Math.PI / 180 * gy;
  const [sy, cy, sp, cp] = [Math.sin(yaw / 2), Math.cos(yaw / 2), Math.sin(pitch / 2), Math.cos(pitch / 2)];
  return [cy * sp, sy * cp, -sy * sp, cy * cp];
}

function readParams(file) {
  const frames = [];
  for (const l of readFileSync(file, 'utf8').split('\n').slice(1)) {
    if (!l) continue;
    const [frame, , id, value] = l.split(',');
    (frames[Number(frame) - 1] ||= {})[id] = Number(value);
  }
  return frames;
}

// Checks every packet; returns the bundles split into pose and face ones.
function checkPackets(packets, blendNames, label) {
  const pose = [], face = [];
  for (const [n, b] of packets.entries()) {
    if (!b.packets) { fail(`${label}: packet ${n + 1} is a bare message (${b.address}), not a bundle`); continue; }
    const msgs = b.packets;
    for (const m of msgs) {
      const types = m.args.map((a) => a.type).join('');
      const allowed = specAddresses[m.address];
      if (!allowed) { fail(`${label}: ${m.address} is not a VMC address`); continue; }
      if (!allowed.includes(types)) fail(`${label}: ${m.address} with types "${types}" (the specification: ${allowed.join(' | ')})`);
      if (m.address === '/VMC/Ext/Bone/Pos' && !humanBodyBones.includes(m.args[0].value))
        fail(`${label}: bone "${m.args[0].value}" is not a HumanBodyBones name`);
      if (m.address === '/VMC/Ext/Blend/Val' && !blendNames.includes(m.args[0].value))
        fail(`${label}: blend shape "${m.args[0].value}" is not one of the expected vocabulary`);
      if (m.address === '/VMC/Ext/Blend/Val' && !(m.args[1].value >= 0 && m.args[1].value <= 1))
        fail(`${label}: blend shape ${m.args[0].value} = ${m.args[1].value}, outside [0, 1]`);
      if (m.address.endsWith('/Pos')) {
        const q = m.args.slice(4, 8).map((a) => a.value);
        if (Math.abs(Math.hypot(...q) - 1) > 1e-6) fail(`${label}: ${m.args[0].value}: |q| = ${Math.hypot(...q)}`);
      }
      if (m.address === '/VMC/Ext/Root/Pos') {
        const extra = m.args.slice(8).map((a) => a.value);
        if (extra.join(',') !== '1,1,1,0,0,0') fail(`${label}: Root/Pos scale and offset ${extra}`);
      }
    }
    const tail = msgs.slice(-2).map((m) => m.address).join(' ');
    if (tail !== '/VMC/Ext/OK /VMC/Ext/T') fail(`${label}: bundle ${n + 1} ends with ${tail}, expected OK then T`);
    const bones = new Map();
    for (const m of msgs) if (m.address === '/VMC/Ext/Bone/Pos') {
      if (bones.has(m.args[0].value)) fail(`${label}: bone ${m.args[0].value} twice in a bundle`);
      bones.set(m.args[0].value, m.args.slice(1, 8).map((a) => a.value));
    }
    const blends = new Map(msgs.filter((m) => m.address === '/VMC/Ext/Blend/Val').map((m) => [m.args[0].value, m.args[1].value]));
    const applies = msgs.filter((m) => m.address === '/VMC/Ext/Blend/Apply').length;
    if (blends.size && applies !== 1) fail(`${label}: bundle ${n + 1}: ${applies} Blend/Apply after its values`);
    const roots = msgs.filter((m) => m.address === '/VMC/Ext/Root/Pos').length;
    const entry = { bones, blends, roots };
    if (roots || bodyBones.some((name) => bones.has(name))) pose.push(entry);
    else face.push(entry);
  }
  return { pose, face };
}

// 1. defaults: VRM 0 names, everything
{
  const params = path.join(work, 'vmc_osc_params.csv');
  const { pose, face } = checkPackets(await receive(['--params', params]), vrm0Presets, 'vrm0');
  const trace = readParams(params);
  if (pose.length !== FRAMES || face.length !== FRAMES) fail(`vrm0: ${pose.length} pose and ${face.length} face bundles, expected ${FRAMES} each`);
  for (const [k, p] of pose.entries()) {
    if (p.roots !== 1) fail(`vrm0: pose bundle ${k + 1} has ${p.roots} Root/Pos`);
    for (const name of bodyBones) if (!p.bones.has(name)) fail(`vrm0: pose bundle ${k + 1} lacks ${name}`);
    if (p.bones.size !== 15) fail(`vrm0: pose bundle ${k + 1} has ${p.bones.size} bones, expected the 15 body bones`);
    const lm = poseLandmarks(k).map((v) => v.map(f32));
    const hips = p.bones.get('Hips');
    if (hips) {
      near(hips[0], -0.5 * (lm[23][0] + lm[24][0]), `hips x, frame ${k + 1}`);
      near(hips[1], 0.5 * (lm[23][1] + lm[24][1]), `hips y, frame ${k + 1}`);
      near(hips[2], -0.5 * (lm[23][2] + lm[24][2]), `hips z, frame ${k + 1}`);
    }
  }
  for (const [k, f] of face.entries()) {
    const t = trace[k], sc = faceScores(k).map(f32);
    if (!t) { fail(`vrm0: the params trace has no frame ${k + 1}`); continue; }
    const want = eyeRotation(t.ParamEyeBallX, t.ParamEyeBallY);
    for (const eye of ['LeftEye', 'RightEye']) {
      const got = f.bones.get(eye);
      if (!got) { fail(`vrm0: face bundle ${k + 1} lacks ${eye}`); continue; }
      const sign = Math.sign(got[6]) === Math.sign(want[3]) ? 1 : -1;
      for (let c = 0; c < 4; c++) near(got[3 + c], sign * want[c], `${eye} q[${c}], face frame ${k + 1}`);
    }
    const expect = {
      Blink_L: 1 - t.ParamEyeLOpen, Blink_R: 1 - t.ParamEyeROpen, A: t.ParamMouthOpenY,
      I: 0.5 * (sc[mediapipe.indexOf('mouthStretchLeft')] + sc[mediapipe.indexOf('mouthStretchRight')]),
      U: sc[mediapipe.indexOf('mouthPucker')],
      E: 0.5 * (sc[mediapipe.indexOf('mouthLowerDownLeft')] + sc[mediapipe.indexOf('mouthLowerDownRight')]),
      O: sc[mediapipe.indexOf('mouthFunnel')] };
    for (const [name, v] of Object.entries(expect)) {
      if (!f.blends.has(name)) fail(`vrm0: face bundle ${k + 1} lacks ${name}`);
      else near(f.blends.get(name), Math.min(1, Math.max(0, v)), `${name}, face frame ${k + 1}`);
    }
    if (f.blends.size !== 7) fail(`vrm0: face bundle ${k + 1} has ${f.blends.size} blend shapes, expected 7`);
  }
}

// 2. ARKit names: the scores as the tracker gave them
{
  const { face } = checkPackets(await receive(['--vmc-blend', 'arkit']), arkit52, 'arkit');
  if (face.length !== FRAMES) fail(`arkit: ${face.length} face bundles, expected ${FRAMES}`);
  for (const [k, f] of face.entries()) {
    const sc = faceScores(k).map(f32);
    if (f.blends.size !== 51) fail(`arkit: face bundle ${k + 1} has ${f.blends.size} blend shapes, expected 51`);
    for (const [i, name] of mediapipe.entries()) {
      if (i === 0) continue;
      if (!f.blends.has(name)) fail(`arkit: face bundle ${k + 1} lacks ${name}`);
      else near(f.blends.get(name), sc[i], `${name}, face frame ${k + 1}`);
    }
  }
}

// 3. face and eyes only (a full-body tracker sends the bones), 4. bones only
{
  const { pose, face } = checkPackets(await receive(['--vmc-send', 'face,eyes']), vrm0Presets, 'face,eyes');
  if (pose.length !== 0) fail(`face,eyes: ${pose.length} bundles with Root/Pos or body bones`);
  if (face.length !== 2 * FRAMES) fail(`face,eyes: ${face.length} bundles, expected ${2 * FRAMES} (the pose ones empty)`);
  if (!face.some((f) => f.bones.has('LeftEye') && f.blends.has('Blink_L'))) fail('face,eyes: no eyes and blinks');
  const only = checkPackets(await receive(['--vmc-send', 'bones']), vrm0Presets, 'bones');
  if (only.pose.length !== FRAMES) fail(`bones: ${only.pose.length} pose bundles, expected ${FRAMES}`);
  for (const f of [...only.pose, ...only.face])
    if (f.blends.size || f.bones.has('LeftEye')) fail('bones: a bundle with blend shapes or eyes');
  const bad = spawnSync(crowd, ['stream', '--vmc', '127.0.0.1:9', '--vmc-send', 'bones,hands'], { input: '' });
  if (bad.status !== 2 || !String(bad.stderr).includes('"hands" is not one of bones, fingers, face, eyes'))
    fail(`--vmc-send bones,hands: exit ${bad.status}, ${bad.stderr}`);
}

console.log(`vmc_osc: ${FRAMES} pose and ${FRAMES} face frames in four settings, ${failures} failures`);
process.exit(failures ? 1 : 0);
