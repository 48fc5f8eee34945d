// The package's generated enums against the module's own names, loading under Node without
// options, and what the generated bindings brought to the npm package: face tracking,
// snapshots, pause, digests, rest pose.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { load, pkgDir } from './common.mjs';

const { api, crowd } = await load();

const FACE_PARAMS = [
  { id: 'ParamAngleX', min: -30, max: 30 }, { id: 'ParamAngleY', min: -30, max: 30 },
  { id: 'ParamAngleZ', min: -30, max: 30 }, { id: 'ParamEyeLOpen', min: 0, max: 1, default: 1 },
  { id: 'ParamEyeROpen', min: 0, max: 1, default: 1 }, { id: 'ParamEyeBallX', min: -1, max: 1 },
  { id: 'ParamEyeBallY', min: -1, max: 1 }, { id: 'ParamMouthOpenY', min: 0, max: 1 },
  { id: 'ParamMouthForm', min: -1, max: 1 }, { id: 'ParamBrowLY', min: -1, max: 1 },
  { id: 'ParamBrowRY', min: -1, max: 1 },
];

// Column-major 4x4 rotation about +y by `degrees`, times `scale` (MediaPipe's matrix).
function yRotation(degrees, scale = 1) {
  const a = (degrees * Math.PI) / 180, c = Math.cos(a) * scale, s = Math.sin(a) * scale;
  const rows = [[c, 0, s, 0], [0, scale, 0, 0], [-s, 0, c, 0], [0, 0, 0, 1]];
  const out = [];
  for (let k = 0; k < 4; k++) for (let r = 0; r < 4; r++) out.push(rows[r][k]);
  return out;
}

test('loadCrowd() under Node finds its own .wasm, from wherever the package lies', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crowd-pkg-'));
  try {
    for (const f of ['crowd.js', 'crowd_enums.js', 'landmarks.js', 'crowd_wasm.mjs', 'crowd_wasm.wasm'])
      fs.copyFileSync(path.join(pkgDir, f), path.join(dir, f));
    const moved = await import(pathToFileURL(path.join(dir, 'crowd.js')).href);
    const c = await moved.loadCrowd();
    const engine = c.engine({ seed: 1 });
    engine.rig({ parameters: [{ id: 'p', min: 0, max: 1 }] }).add(3);
    engine.tick(1 / 60);
    assert.equal(engine.simd, 'wasm128');
    fs.rmSync(path.join(dir, 'crowd_wasm.wasm'));
    await assert.rejects(moved.loadCrowd(), /crowd_wasm\.wasm.*ENOENT/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the generated enums are the compiled module\'s: fields, SIMD targets, results, face sources', () => {
  assert.deepEqual({ ...api.Field }, { ...crowd.Field }); // crowd.Field: from crowd_field_name at load
  assert.deepEqual({ ...api.Simd }, { ...crowd.Simd });
  assert.equal(api.FIELD_COUNT, Object.keys(crowd.Field).length);
  for (let k = 0; k < api.RESULT_COUNT; k++) assert.equal(api.RESULT_TEXTS[k], crowd.resultText(k));
  assert.equal(Object.keys(api.FaceSource).length, api.FACE_SOURCE_COUNT);
  assert.equal(crowd.faceSourceName(api.FaceSource.jaw_open), 'jawOpen');
  assert.equal(crowd.faceSourceName('headYaw'), 'headYaw');
  for (const [name, k] of Object.entries(api.Bone)) assert.equal(crowd.boneName(k), name);
  assert.equal(api.LANDMARK_COUNT * 4, api.POSE_FLOATS);
});

test('faceRotationFromMatrix against the half-angle formula', () => {
  for (const deg of [0, 20, -35, 90]) {
    const q = crowd.faceRotationFromMatrix({ data: yRotation(deg, 0.8) });
    const h = (deg * Math.PI) / 360;
    const want = [0, Math.sin(h), 0, Math.cos(h)];
    for (let k = 0; k < 4; k++) assert.ok(Math.abs(q[k] - want[k]) < 1e-6, `${deg} degrees: ${q} vs ${want}`);
  }
  assert.throws(() => crowd.faceRotationFromMatrix([1, 2, 3]), /16 numbers/);
});

test('a present face drives its parameters (the standard mapping by default)', () => {
  const engine = crowd.engine({ seed: 3 });
  const rig = engine.rig({ name: 'face', parameters: FACE_PARAMS, face: {} });
  const h = rig.add(2);
  const scores = new Float32Array(2 * api.FACE_SCORE_COUNT);
  scores[api.FaceSource.jaw_open] = 0.7;
  scores[api.FACE_SCORE_COUNT + api.FaceSource.jaw_open] = 0.25;
  const q = crowd.faceRotationFromMatrix(yRotation(20));
  engine.set('face_scores', h, scores);
  engine.set('face_rotation', h, [...q, ...q]);
  engine.set('face_presence', h, [1, 1]);
  for (let k = 0; k < 120; k++) engine.tick(1 / 60);
  assert.deepEqual([...engine.get('face_control', h)], [1, 1]);
  const mouth = rig.column('output', rig.parameterIndex('ParamMouthOpenY'));
  assert.deepEqual([...mouth], [Math.fround(0.7), Math.fround(0.25)]); // override at weight 1
  const yaw = engine.get('output', h.slice(0, 1), rig.parameterIndex('ParamAngleX'))[0];
  assert.ok(Math.abs(yaw - 20) < 1e-4, `yaw ${yaw}`);
});

test('face settings: own mapping by either source name, smoothed sources, refusals naming the field', () => {
  const engine = crowd.engine();
  const a = engine.rig({ parameters: FACE_PARAMS, face: { smoothed_sources: ['jawOpen', 'head_yaw'] } });
  const b = engine.rig({ parameters: FACE_PARAMS, face: { smoothed_sources: 2 ** api.FaceSource.jaw_open + 2 ** api.FaceSource.head_yaw } });
  const plain = engine.rig({ parameters: FACE_PARAMS, face: {} });
  assert.equal(a.settingsDigest, b.settingsDigest);
  assert.notEqual(a.settingsDigest, plain.settingsDigest);
  assert.equal(typeof a.settingsDigest, 'bigint');
  const own = engine.rig({ parameters: FACE_PARAMS, face: { mapping: [{ source: 'mouthSmileLeft', id: 'ParamMouthForm', gain: 2 }] } });
  const h = own.add(1);
  const scores = new Float32Array(api.FACE_SCORE_COUNT);
  scores[api.FaceSource.mouth_smile_left] = 0.25;
  engine.set('face_scores', h, scores);
  engine.set('face_presence', h, [1]);
  for (let k = 0; k < 120; k++) engine.tick(1 / 60); // 20 half-lives: control snapped to 1
  assert.equal(engine.get('output', h, own.parameterIndex('ParamMouthForm'))[0], 0.5);
  assert.equal(engine.get('output', h, own.parameterIndex('ParamMouthOpenY'))[0], 0); // the standard mapping is gone
  assert.throws(() => engine.rig({ parameters: FACE_PARAMS, face: { presence_threshold: 2 } }), /presence_threshold/);
  assert.throws(() => engine.rig({ parameters: FACE_PARAMS, face: { mapping: [{ source: 'jawShut', id: 'ParamMouthOpenY' }] } }),
    /face\.mapping\[0\]\.source/);
});

// crowd.js passes only the fields an entry sets; the module starts each entry from the C library's
// crowd_*_defaults. Leaving the fields out must tick the same bytes as spelling crowd.h's documented
// defaults (look: axis x, factor 1; harmonic: channel 0, centric, origin 0.5, range 0.5, duration 3;
// face mapping: gain 1, offset 0, linear).
test('rig entries left without fields take crowd.h\'s defaults from the C library', () => {
  const engine = crowd.engine({ seed: 3 });
  const parameters = [{ id: 'X', min: -30, max: 30 }, { id: 'B', min: 0, max: 1 }, { id: 'M', min: -1, max: 1 }];
  const bare = engine.rig({ parameters, look: { parameters: [{ id: 'X' }] }, harmonic: { parameters: [{ id: 'B' }] },
    face: { mapping: [{ source: 'jawOpen', id: 'M' }] } });
  const spelled = engine.rig({ parameters, look: { parameters: [{ id: 'X', axis: 'x', factor: 1 }] },
    harmonic: { parameters: [{ id: 'B', channel: 0, direction: 'centric', origin: 0.5, range: 0.5, duration: 3 }] },
    face: { mapping: [{ source: 'jaw_open', id: 'M', gain: 1, offset: 0, curve: 'linear' }] } });
  const outputs = [];
  for (const rig of [bare, spelled]) {
    const h = rig.add(2, { harmonicPhase: 'zero' });
    engine.set('look_target', h, [0.5, 0.2, 0, 0.5, 0.2, 0]);
    engine.set('look_active', h, [1, 1]);
    const scores = new Float32Array(2 * api.FACE_SCORE_COUNT);
    scores[api.FaceSource.jaw_open] = scores[api.FACE_SCORE_COUNT + api.FaceSource.jaw_open] = 0.25;
    engine.set('face_scores', h, scores);
    engine.set('face_presence', h, [1, 1]);
    outputs.push([h, rig]);
  }
  for (let k = 0; k < 120; k++) engine.tick(1 / 60);
  const [a, b] = outputs.map(([h, rig]) => Array.from(engine.outputs(h, rig)));
  const h = outputs[0][0];
  assert.deepEqual(a, b);
  const x = engine.get('output', h, 0)[0], breath = engine.get('output', h, 1)[0];
  assert.ok(x > 0.4 && x <= 0.5, `X ${x}: factor 1 on the target's x (0.5)`);
  const expected = 0.5 + 0.5 * Math.sin((2 * Math.PI * 2) / 3);
  assert.ok(Math.abs(breath - expected) < 1e-4, `breath ${breath}, expected about ${expected}`);
  assert.ok(Math.abs(engine.get('output', h, 2)[0] - 0.25) < 1e-6, 'jaw 0.25 through gain 1, offset 0, linear');
  // a field given as NaN is passed on (and refused), never taken for "left out"
  assert.throws(() => engine.rig({ parameters, look: { parameters: [{ id: 'X', factor: NaN }] } }), /factor|finite/);
  assert.throws(() => engine.rig({ parameters, harmonic: { parameters: [{ id: 'B', duration: NaN }] } }), /duration|finite/);
  engine.destroy();
});

test('snapshots, pause, random draws, rest pose and bytes per instance', () => {
  const desc = { parameters: [{ id: 'ParamBreath', min: 0, max: 1 }], harmonic: { parameters: [{ id: 'ParamBreath' }] }, limbs: {} };
  const a = crowd.engine({ seed: 9 });
  const ra = a.rig(desc);
  const h = ra.add(4, { harmonicPhase: 'random' });
  for (let k = 0; k < 10; k++) a.tick(1 / 60);
  const bytes = a.snapshot();
  assert.ok(bytes instanceof Uint8Array && bytes.length > 0);
  const b = crowd.engine();
  b.load(bytes);
  const rb = new api.Rig(b, ra.id);
  assert.equal(rb.settingsDigest, ra.settingsDigest);
  for (let k = 0; k < 10; k++) a.tick(1 / 60), b.tick(1 / 60);
  assert.deepEqual([...rb.column('output', 0)], [...ra.column('output', 0)]);
  a.pause(h.slice(1, 2));
  assert.equal(a.paused(h.slice(1, 2)), true);
  assert.equal(ra.runningCount, 3);
  a.resume(h.slice(1, 2));
  assert.equal(ra.runningCount, 4);
  const r = a.random(h.slice(0, 1), 8);
  assert.ok(r.every((v) => v >= 0 && v < 1) && new Set(r).size === 8);
  const { world, local } = ra.restPose();
  assert.equal(world.length, 60);
  for (let k = 0; k < 15; k++) {
    const n = Math.hypot(...local.slice(4 * k, 4 * k + 4));
    assert.ok(Math.abs(n - 1) < 1e-5, `bone ${k}: |q| ${n}`);
  }
  assert.ok(ra.bytesPerInstance > 4 * 132); // at least the pose columns
  assert.equal(a.threads, 1);
  assert.throws(() => a.blinkNow(h), (e) => e.codeName === 'CROWD_ERR_NO_CONTROLLER'); // the rig has no blink
});

// crowd.h's formula in double precision: sqrt(sum of squares / (channels * frames)), as float32.
function rms(samples, frames, channels) {
  let sum = 0;
  for (let k = 0; k < frames * channels; k++) sum += Math.fround(samples[k]) * Math.fround(samples[k]);
  return Math.fround(Math.sqrt(sum / (channels * frames)));
}

test('lipsyncRms: crowd_lipsync_rms against the double formula; never past the samples', () => {
  let seed = 7;
  const next = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 1073741824) - 1;
  for (const channels of [1, 2, 3]) {
    const samples = Float32Array.from({ length: 735 * channels + 1 }, next);
    for (const frames of [1, 8, 735]) assert.equal(crowd.lipsyncRms(samples, frames, channels), rms(samples, frames, channels));
    assert.equal(crowd.lipsyncRms(samples, undefined, channels), rms(samples, Math.floor(samples.length / channels), channels)); // every whole frame
  }
  assert.equal(crowd.lipsyncRms([0.5, 0.5, 100, 100], 1, 2), Math.fround(0.5));
  assert.equal(crowd.lipsyncRms([], 0, 1), 0);
  assert.equal(crowd.lipsyncRms([1, Infinity]), 0);
  assert.throws(() => crowd.lipsyncRms([1, 2, 3, 4, 5], 3, 2), { name: 'RangeError', message: /3 frames of 2 channels need 6 samples, got 5/ });
  assert.throws(() => crowd.lipsyncRms([1], 1, 2 ** 32 + 1), { name: 'RangeError', message: /channels/ });
  assert.throws(() => crowd.lipsyncRms([1], 0.5), { name: 'TypeError', message: /frames/ });
});

test('the face and random integers are checked; a smoothed mask keeps all 55 bits', () => {
  const engine = crowd.engine({ seed: 2 });
  const faceRig = (smoothed) => engine.rig({ parameters: [{ id: 'ParamMouthOpenY', min: 0, max: 1 }],
    face: { mapping: [{ source: 'jawOpen', id: 'ParamMouthOpenY' }], smoothed_sources: smoothed } });
  // bits 0 and 54 together need 55 bits: a double sum would drop bit 0
  const both = faceRig(['_neutral', 'headRoll']).settingsDigest;
  assert.notEqual(both, faceRig(['headRoll']).settingsDigest);
  assert.equal(both, faceRig((1n << 54n) | 1n).settingsDigest);
  assert.equal(faceRig(['jawOpen']).settingsDigest, faceRig(2 ** 25).settingsDigest);
  assert.throws(() => faceRig(2.5), { name: 'TypeError', message: /face\.smoothed_sources/ });
  assert.throws(() => faceRig(1n << 64n), { name: 'RangeError', message: /face\.smoothed_sources/ });
  assert.throws(() => faceRig([api.FACE_SOURCE_COUNT]), { name: 'CrowdError', message: /smoothed_sources\[0\]/ });
  assert.throws(() => engine.rig({ parameters: [{ id: 'b', min: 0, max: 1 }], harmonic: { parameters: [{ id: 'b', channel: 2 ** 32 }] } }),
    { name: 'RangeError', message: /harmonic\.parameters\[0\]\.channel/ });
  const h = engine.rig({ parameters: [{ id: 'p', min: 0, max: 1 }] }).add(1);
  assert.throws(() => engine.random(h, 2 ** 32 + 3), { name: 'RangeError', message: /count/ });
  assert.throws(() => engine.random(h, 1.5), { name: 'TypeError', message: /count/ });
  assert.equal(engine.random(h, 2).length, 2);
  engine.destroy();
});
