// The JavaScript API over the module: rigs, instances, fields, zero-copy columns and their
// refresh after memory growth, error codes and messages, and MediaPipe's JS landmarks.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { load, root } from './common.mjs';

const { api, crowd } = await load();

const FACE = {
  name: 'face',
  parameters: [
    { id: 'ParamAngleX', min: -30, max: 30, default: 0 },
    { id: 'ParamEyeLOpen', min: 0, max: 1, default: 1 },
    { id: 'ParamBreath', min: 0, max: 1, default: 0 },
  ],
  look: { parameters: [{ id: 'ParamAngleX', axis: 'x', factor: 30 }], damping: 0.15 },
  harmonic: { parameters: [{ id: 'ParamBreath', duration: 3.2345 }] },
  blink: { parameters: ['ParamEyeLOpen'] },
};

function throwsCrowd(fn, codeName, pattern) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof api.CrowdError, `a CrowdError, not ${e}`);
    assert.equal(e.codeName, codeName);
    assert.match(e.message, pattern);
    return true;
  });
}

test('a rig, instances, fields and a tick', () => {
  const engine = crowd.engine({ seed: 7 });
  const rig = engine.rig(FACE);
  assert.equal(rig.parameterCount, 3);
  assert.equal(rig.parameterIndex('ParamBreath'), 2);
  const all = rig.add(5, { harmonicPhase: 'zero' });
  assert.equal(rig.instanceCount, 5);
  assert.equal(all.ids.length, 5);
  // look target straight right of centre, active: ParamAngleX moves toward +30 * x
  engine.set('look_target', all, new Float32Array(15).fill(0).map((_, k) => (k % 3 === 0 ? 1 : 0)));
  engine.set('look_active', all, [1, 1, 1, 1, 1]);
  for (let k = 0; k < 60; k++) engine.tick(1 / 60);
  const out = rig.column('output', 0);
  for (const v of out) assert.ok(v > 25 && v <= 30, `ParamAngleX ${v} after a second of gazing at x = 1`);
  // the harmonic from T = 0: breath = origin + range * sin(2 pi t / D), within [0, 1]
  const breath = engine.get('output', all, 2);
  const t = 1.0, expected = 0.5 + 0.5 * Math.sin((2 * Math.PI * t) / 3.2345);
  for (const v of breath) assert.ok(Math.abs(v - expected) < 1e-4, `breath ${v}, expected about ${expected}`);
  assert.deepEqual(Array.from(engine.outputs(all.slice(2, 3), rig)), [out[2], engine.get('output', all, 1)[2], breath[2]]);
  engine.destroy();
});

test('columns are views on the engine: writes reach the tick, no copy', () => {
  const engine = crowd.engine();
  const rig = engine.rig({ parameters: [{ id: 'a', min: -10, max: 10, default: 0 }] });
  const h = rig.add(8);
  const base = rig.column('base', 0);
  assert.equal(base.buffer, crowd.module.HEAPF32.buffer, 'a view on the module memory');
  base.set([1, 2, 3, 4, 5, 6, 7, 8]);
  engine.tick(0.1);
  assert.deepEqual(Array.from(engine.get('output', h, 0)), [1, 2, 3, 4, 5, 6, 7, 8]);
  // the engine's writes show through the same view
  engine.set('base', h.slice(3, 4), [-9]);
  assert.equal(base[3], -9);
  engine.destroy();
});

test('memory growth detaches views; a Column re-fetches and keeps the values', () => {
  const M = crowd.module;
  const engine = crowd.engine();
  const rig = engine.rig({ parameters: [{ id: 'a', min: -1e6, max: 1e6, default: 0 }] });
  rig.add(16);
  const raw = rig.column('base', 0);
  const view = rig.columnView('base', 0);
  raw.set(Array.from({ length: 16 }, (_, k) => k * 0.5));
  assert.equal(view.array, view.array, 'the same view while nothing moved');
  // any allocation in the module may grow its memory: here a block as large as all of it
  const before = M.HEAPU8.buffer.byteLength;
  const block = M._malloc(before);
  assert.ok(block && M.HEAPU8.buffer.byteLength > before, 'the memory grew');
  assert.equal(raw.length, 0, 'the old view is detached');
  const now = view.array;
  assert.equal(now.buffer, M.HEAPF32.buffer);
  assert.deepEqual(Array.from(now), Array.from({ length: 16 }, (_, k) => k * 0.5));
  // adding past the capacity moves the rig's columns: the Column follows
  const at = now.byteOffset;
  rig.add(1000);
  const moved = view.array;
  assert.equal(moved.length, 1016);
  assert.notEqual(moved.byteOffset, at, 'the column moved');
  assert.deepEqual(Array.from(moved.subarray(0, 16)), Array.from({ length: 16 }, (_, k) => k * 0.5));
  M._free(block);
  engine.destroy();
});

test('errors: the engine\'s code and a message naming the field; nothing changes', () => {
  const engine = crowd.engine();
  throwsCrowd(() => engine.rig({ parameters: [{ id: 'a', min: 5, max: 1 }] }), 'CROWD_ERR_RANGE', /parameters\[0\]\.min/);
  throwsCrowd(() => engine.rig({ parameters: [{ id: 'a', min: 0, max: 1 }, { id: 'a', min: 0, max: 1 }] }), 'CROWD_ERR_DUPLICATE_ID', /"a"|parameters\[1\]/);
  throwsCrowd(() => engine.rig({ parameters: [{ id: 'a', min: 0, max: 1 }], look: { parameters: [{ id: 'nope', axis: 'x' }] } }), 'CROWD_ERR_UNKNOWN_ID', /nope/);
  throwsCrowd(() => engine.rig({ parameters: [], look: { blend: 'sideways' } }), 'CROWD_ERR_BAD_ENUM', /look\.blend.*sideways/);
  throwsCrowd(() => engine.rig({ parameters: [], limbs: { bend_min: 50, bend_full: 40 } }), 'CROWD_ERR_RANGE', /bend/);
  throwsCrowd(() => engine.rig({ parameters: [], limbs: { arm_image_bend: 91 } }), 'CROWD_ERR_RANGE', /arm_image_bend/);
  throwsCrowd(() => engine.rig({ parameters: [], blink: { dampng: 1 } }), 'CROWD_ERR_RANGE', /blink\.dampng: not a setting of blink/);
  const rig = engine.rig({ parameters: [{ id: 'a', min: 0, max: 1, default: 0.25 }] });
  const h = rig.add(3);
  throwsCrowd(() => engine.set('base', h, [0.5, NaN, 0.5]), 'CROWD_ERR_NOT_FINITE', /base|value/);
  assert.deepEqual(Array.from(engine.get('base', h)), [0.25, 0.25, 0.25], 'nothing written');
  throwsCrowd(() => engine.set('base', h, [1, 2]), 'CROWD_ERR_RANGE', /2 values for 3 instances/);
  throwsCrowd(() => engine.set('look_target', h, new Float32Array(9)), 'CROWD_ERR_NO_CONTROLLER', /look/);
  throwsCrowd(() => engine.tick(2), 'CROWD_ERR_RANGE', /dt/);
  throwsCrowd(() => engine.tick(NaN), 'CROWD_ERR_NOT_FINITE', /dt/);
  throwsCrowd(() => rig.parameterIndex('b'), 'CROWD_ERR_UNKNOWN_ID', /"?b"?/);
  throwsCrowd(() => rig.column('pose', 0, 0), 'CROWD_ERR_NO_CONTROLLER', /limbs|pose/);
  // limbs outputs: the kind a rig does not store is refused, naming the field and the rig
  const worldOnly = engine.rig({ name: 'w', parameters: [], limbs: { outputs: 'world' } });
  const hw = worldOnly.add(1);
  engine.tick(0.1);
  assert.equal(engine.get('bone_world', hw, 0).length, 4);
  throwsCrowd(() => worldOnly.column('bone_local', 0, 0), 'CROWD_ERR_NOT_STORED', /bone_local: rig "w" stores world rotations only/);
  throwsCrowd(() => engine.get('bone_local', hw, 0), 'CROWD_ERR_NOT_STORED', /bone_local/);
  throwsCrowd(() => engine.rig({ parameters: [], limbs: { outputs: 'all' } }), 'CROWD_ERR_BAD_ENUM', /limbs\.outputs/);
  throwsCrowd(() => engine.set('bogus', h, []), 'CROWD_ERR_BAD_ENUM', /field: "bogus" is not one of base, look_target/);
  throwsCrowd(() => crowd.engine({ simd: 'sse2' }), 'CROWD_ERR_UNSUPPORTED', /simd "sse2"/);
  throwsCrowd(() => crowd.defaultCrowd({ first: 9000, count: 2000 }), 'CROWD_ERR_RANGE', /9000 \.\. 10999/);
  engine.remove(h.slice(1, 2));
  throwsCrowd(() => engine.set('base', h, [0, 0, 0]), 'CROWD_ERR_HANDLE', /handle/);
  assert.equal(crowd.resultText(api.Result.RANGE), 'a value is outside its allowed range');
  engine.destroy();
});

// MediaPipe's JS result as the pose landmarker gives it: worldLandmarks = [[{x, y, z, visibility}, ...]].
function mediapipeResult(pose, extra = {}) {
  const lms = [];
  for (let k = 0; k < 33; k++)
    lms.push({ x: pose[4 * k], y: pose[4 * k + 1], z: pose[4 * k + 2], visibility: pose[4 * k + 3], presence: 0.99, ...extra });
  return { landmarks: [lms.map((l) => ({ ...l, x: 0.5, y: 0.5 }))], worldLandmarks: [lms] };
}

test('landmarks: MediaPipe JS results pass straight in and pose like the raw column', () => {
  const rest = crowd.restLandmarks('mediapipe_world');
  const walk = crowd.defaultCrowd({ count: 4 });
  const limbsRig = { parameters: [], limbs: { frame: 'mediapipe_world' } };
  const a = crowd.engine(), b = crowd.engine();
  const ra = a.rig(limbsRig), rb = b.rig(limbsRig);
  const ha = ra.add(2), hb = rb.add(2);
  const seen = new Set();
  for (let k = 1; k <= 30; k++) {
    walk.step();
    // the walk's engine-frame landmarks, moved into MediaPipe's frame (+y down)
    const pose = walk.engine.get('pose', walk.rig.handles().slice(0, 1));
    for (let j = 1; j < pose.length; j += 4) pose[j] = -pose[j];
    const result = k === 12 ? { worldLandmarks: [] } : mediapipeResult(Array.from(pose, (v) => Number(v)));
    const text = JSON.stringify(result);
    // a: the result object (every other frame its JSON text); b: the raw floats, as the C reader gives them
    assert.equal(a.setPoseFromWorldLandmarks(ha, k % 2 ? result : text), k !== 12);
    if (k === 12) {
      const held = b.get('pose', hb);
      for (let j = 3; j < held.length; j += 4) held[j] = 0;
      b.set('pose', hb, held);
    } else b.set('pose', hb, [...pose, ...pose]);
    a.tick(1 / 30);
    b.tick(1 / 30);
    assert.deepEqual(a.get('bone_world', ha, 4), b.get('bone_world', hb, 4), `frame ${k}`);
    seen.add(a.get('bone_world', ha, 4).join());
  }
  assert.ok(seen.size > 20, 'the lower arm moves with the walk');
  assert.equal(rest.length, 132);
  const x = api.poseFromWorldLandmarks(mediapipeResult(Array.from(rest)).worldLandmarks);
  assert.deepEqual(Array.from(x), Array.from(rest));
  assert.equal(api.poseFromWorldLandmarks({ pose_world_landmarks: [] }), null);
  walk.destroy();
  a.destroy();
  b.destroy();
});

test('landmarks: bad results are refused, naming the field', () => {
  const good = mediapipeResult(Array.from(crowd.restLandmarks()));
  const bad = (edit) => {
    const r = structuredClone(good);
    edit(r);
    return r;
  };
  const refuses = (input, pattern) =>
    assert.throws(() => api.poseFromWorldLandmarks(input), (e) => e instanceof api.LandmarkError && pattern.test(e.message));
  refuses(bad((r) => r.worldLandmarks[0].pop()), /^worldLandmarks\[0\]: 32 landmarks, a pose has 33$/);
  refuses(bad((r) => (r.worldLandmarks[0][4].z = 'x')), /^worldLandmarks\[0\]\[4\]\.z: not a number/);
  refuses(bad((r) => delete r.worldLandmarks[0][7].y), /^worldLandmarks\[0\]\[7\]\.y: missing/);
  refuses(bad((r) => (r.worldLandmarks[0][2].x = 1e39)), /^worldLandmarks\[0\]\[2\]\.x: outside the float32 range/);
  refuses(bad((r) => (r.worldLandmarks[0][9].visibility = 1.5)), /^worldLandmarks\[0\]\[9\]\.visibility: not a number in \[0, 1\]/);
  refuses(JSON.stringify(good).replace('"x"', '"x":Infinity,"q"'), /^\(JSON text\)/);
  refuses({ landmarks: [] }, /^worldLandmarks: missing/);
  // a refused pose changes nothing in the engine
  const engine = crowd.engine();
  const rig = engine.rig({ parameters: [], limbs: {} });
  const h = rig.add(1);
  const before = engine.get('pose', h);
  assert.throws(() => engine.setPoseFromWorldLandmarks(h, bad((r) => (r.worldLandmarks[0][32].x = NaN))), /\[32\]\.x: not finite/);
  assert.deepEqual(engine.get('pose', h), before);
  engine.destroy();
});

test("the README's browser example runs as written", async () => {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## crowd in the browser'));
  const code = section.match(/```js\n([\s\S]*?)```/)[1];
  const body = code.replace(/^import .*$/m, '').replace('await loadCrowd()', 'loaded') +
    '\nreturn { engine, avatars, frame };';
  const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;
  let drawn = null;
  const run = await new AsyncFunction('loaded', 'draw', body)(crowd, (a) => (drawn = a));
  const result = { worldLandmarks: [Array.from({ length: 33 }, (_, k) => ({ x: 0.01 * k, y: -0.02 * k, z: 0.1, visibility: 0.9 }))] };
  for (let k = 0; k < 3; k++) run.frame(result);
  assert.ok(drawn instanceof Float32Array && drawn.length === 1000);
  assert.equal(drawn.buffer, crowd.module.HEAPF32.buffer);
  run.engine.destroy();
});

test('the result names follow crowd.h: each code has its own text', () => {
  const texts = api.RESULT_NAMES.map((_, k) => crowd.resultText(k));
  assert.equal(new Set(texts).size, texts.length);
  assert.equal(crowd.resultText(api.RESULT_NAMES.length), crowd.resultText(9999), 'no code past the list');
});
