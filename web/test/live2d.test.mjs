// The package's Live2D controllers, fingers and level of detail against what nobody here wrote:
// the real Cubism Web Framework's golden traces (../shared/data/cubism, its README) for a motion
// (from the model3 and its files, with events), a looping Cardano-bezier motion, expressions,
// a pose and a fixed-step physics rig, each within the tolerances of the C tests
// (tests/test_motion_engine.c, tests/test_cubism_engine.c, tests/test_cubism_controllers.c);
// lip sync from the sample WAV decoded here; fingers from MediaPipe's own hand results (the
// four gestures' curl pattern, as tests/test_fingers.c); bad Cubism JSON refused by its path.
// Skips with a message when the shared data is absent.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { load, root } from './common.mjs';

const { api, crowd } = await load();
const data = path.resolve(process.env.CROWD_DATA ?? path.join(root, '..', 'shared', 'data'));
const cubism = path.join(data, 'cubism');
const skipCubism = fs.existsSync(path.join(cubism, 'motion')) ? false : `no Cubism golden traces in ${cubism}`;
const hands = path.join(data, 'mediapipe', 'hands');
const skipHands = fs.existsSync(hands) ? false : `no MediaPipe hand results in ${hands}`;
const json = (p) => JSON.parse(fs.readFileSync(p, 'utf8'));
const input = (rel) => json(path.join(cubism, 'inputs', rel));
const trace = (kind, name) => json(path.join(cubism, kind, `${kind}_${name}.json`));
const parametersOf = (c) => c.parameters.map((p) => ({ id: p.id, min: p.min, max: p.max, default: p.default }));

// Every JSON file a model3 names, read from its folder (what a page fetches).
function model3Files(model, file) {
  const model3 = input(`${model}/${file}`);
  const files = {};
  for (const f of api.live2dFiles(model3)) files[f] = input(`${model}/${f}`);
  return { model3, files };
}

test('motion from a model3: Mark m01 (events, model3 fades) within 1e-5 of the framework', { skip: skipCubism }, () => {
  const c = trace('motion', 'Mark_m01_60fps_noloop');
  const engine = crowd.engine();
  const { model3, files } = model3Files('Mark', 'Mark.model3.json');
  const rig = engine.rig({ name: 'Mark', parameters: parametersOf(c), model3, files, motions: {} });
  const clip = rig.motionGroups[c.motionA.modelGroup][c.motionA.modelIndex];
  const n = 5; // a whole block and a tail on every target
  const h = rig.add(n);
  const started = engine.startMotion(h, clip, { priority: 'force', loop: false });
  assert.deepEqual([...started], [1, 1, 1, 1, 1]);
  const cols = c.columns.map((name) => {
    if (name.startsWith('param:')) return { kind: 'param', index: rig.parameterIndex(name.slice(6)) };
    if (name.startsWith('notExistParam:')) {
      try {
        return { kind: 'pseudo', index: rig.motionPseudoIndex(name.slice(14)) };
      } catch {
        return null; // an id no curve writes (a PartOpacity id of another motion)
      }
    }
    return { modelOpacity: { kind: 'opacity' }, motionUpdated: { kind: 'updated' }, managerIsFinished: { kind: 'finished' } }[name] ?? null;
  });
  const ints = new Int32Array(4 * 16), times = new Float64Array(16);
  const fired = [];
  let worst = 0, flags = 0;
  for (let f = 0; f < c.frames.length; f++) {
    engine.tickExact(c.dt[f]);
    const out = engine.outputs(h.slice(0, 1), rig);
    for (let k = 1; k < n; k++) assert.deepEqual(engine.outputs(h.slice(k, k + 1), rig), out, `instance ${k} differs at frame ${f}`);
    const st = engine.motionStatus(h);
    c.frames[f].forEach((want, k) => {
      const col = cols[k];
      if (!col || want === null) return;
      if (col.kind === 'param') {
        const p = c.parameters[col.index];
        worst = Math.max(worst, Math.abs(out[col.index] - want) / (p.max - p.min));
      } else if (col.kind === 'pseudo') {
        worst = Math.max(worst, Math.abs(engine.get('motion_pseudo', h.slice(0, 1), col.index)[0] - want));
      } else if (col.kind === 'opacity') {
        worst = Math.max(worst, Math.abs(engine.get('motion_opacity', h.slice(0, 1))[0] - want));
      } else if (col.kind === 'updated') {
        flags += engine.get('motion_updated', h.slice(0, 1))[0] !== (want ? 1 : 0);
      } else if (col.kind === 'finished') {
        flags += (st.playing === 0) !== Boolean(want);
      }
    });
    const { count, lost } = engine.motionEvents(ints, times);
    assert.equal(lost, 0);
    for (let k = 0; k < count; k++)
      if (ints[4 * k] === rig.id && ints[4 * k + 1] === 0)
        fired.push({ frame: f, value: rig.motionEventValues[ints[4 * k + 2]][ints[4 * k + 3]], time: times[k] });
  }
  assert.ok(worst <= 1e-5, `worst error ${worst} of the range`);
  assert.equal(flags, 0);
  assert.equal(fired.length, c.events.length);
  fired.forEach((e, k) => {
    assert.equal(e.frame, c.events[k].frame);
    assert.equal(e.value, c.events[k].value);
    assert.ok(Math.abs(e.time - c.events[k].userTime) <= 1e-9);
  });
  // events beyond the caller's capacity are counted, not lost silently
  const engine2 = crowd.engine();
  const rig2 = engine2.rig({ name: 'Mark', parameters: parametersOf(c), model3, files, motions: {} });
  const h2 = rig2.add(3);
  engine2.startMotion(h2, clip, { priority: 'force', offset: 1.1 });
  let total = 0, lostTotal = 0;
  for (let f = 0; f < 10; f++) {
    engine2.tickExact(1 / 60);
    const r = engine2.motionEvents(new Int32Array(4), new Float64Array(1));
    total += r.count;
    lostTotal += r.lost;
  }
  assert.equal(total, 1);
  assert.equal(lostTotal, 2); // timing1 at 1.133 s fired on all three instances
  engine.destroy();
  engine2.destroy();
});

test('motion clips given directly: Hiyori m01 looping (Cardano beziers) within 1e-5', { skip: skipCubism }, () => {
  const c = trace('motion', 'Hiyori_m01_30fps_loop');
  const engine = crowd.engine();
  const rig = engine.rig({ parameters: parametersOf(c),
    motions: { clips: [{ json: input(c.motionA.file), fade_in: c.motionA.effectiveFadeInSeconds, fade_out: c.motionA.effectiveFadeOutSeconds }],
      eye_blink_ids: ['ParamEyeLOpen', 'ParamEyeROpen'].filter((id) => c.parameters.some((p) => p.id === id)) } });
  const h = rig.add(3);
  engine.startMotion(h, 0, { priority: 'force', loop: true });
  let worst = 0;
  for (let f = 0; f < c.frames.length; f++) {
    engine.tickExact(c.dt[f]);
    const out = engine.outputs(h.slice(2, 3), rig);
    c.columns.forEach((name, k) => {
      if (!name.startsWith('param:')) return;
      const i = rig.parameterIndex(name.slice(6)), p = c.parameters[i];
      worst = Math.max(worst, Math.abs(out[i] - c.frames[f][k]) / (p.max - p.min));
    });
  }
  assert.ok(worst <= 1e-5, `worst error ${worst} of the range`);
  const st = engine.motionStatus(h);
  assert.equal(st.playing, 1);
  assert.equal(st.clip, 0);
  assert.equal(st.current, 'force');
  engine.destroy();
});

test('expressions from a model3: Haru F04, F05, F02 cross-fading within 1e-5', { skip: skipCubism }, () => {
  const c = trace('expression', 'Haru_F04_F05_F02_60fps');
  const engine = crowd.engine();
  const { model3, files } = model3Files('Haru', 'Haru.model3.json');
  const rig = engine.rig({ parameters: parametersOf(c), model3, files, expressions: {} });
  const h = rig.add(3);
  c.baseState.valuesFloat32.forEach((v, i) => engine.set('base', h, [v, v, v], i));
  const starts = c.expressions.map((x) => ({ frame: x.startBeforeFrame, index: rig.expressionNames.indexOf(path.basename(x.file, '.exp3.json')) }));
  assert.ok(starts.every((x) => x.index >= 0), `expression names ${rig.expressionNames}`);
  let worst = 0;
  for (let f = 0; f < c.frames.length; f++) {
    for (const x of starts) if (x.frame === f) engine.startExpression(h, x.index);
    engine.tick(c.dt[f]);
    const out = engine.outputs(h.slice(1, 2), rig);
    c.columns.forEach((name, k) => {
      if (!name.startsWith('param:')) return;
      const i = rig.parameterIndex(name.slice(6)), p = c.parameters[i];
      worst = Math.max(worst, Math.abs(out[i] - c.frames[f][k]) / (p.max - p.min));
    });
  }
  assert.ok(worst <= 1e-5, `worst error ${worst} of the range`);
  engine.destroy();
});

test('pose: Hiyori pose3 part opacities within 1e-5', { skip: skipCubism }, () => {
  const c = trace('pose', 'Hiyori_60fps');
  const engine = crowd.engine();
  const rig = engine.rig({ pose: { json: input(c.sources[0]) } });
  const parts = c.poseGroups.flat();
  const h = rig.add(2);
  let worst = 0;
  for (let f = 0; f < c.frames.length; f++) {
    for (const step of c.schedule)
      if (step.beforeUpdateOfFrame === f)
        for (const [id, v] of Object.entries(step.setPseudoParameterValues)) engine.set('part_parameter', h, [v, v], parts.indexOf(id));
    engine.tick(c.dt[f]);
    c.columns.forEach((name, k) => {
      const [kind, id] = name.split(':');
      if (!id) return;
      const field = kind === 'partOpacity' ? 'part_opacity' : 'part_parameter';
      const got = engine.get(field, h, parts.indexOf(id));
      worst = Math.max(worst, Math.abs(got[0] - c.frames[f][k]), Math.abs(got[1] - c.frames[f][k]));
    });
  }
  assert.ok(worst <= 1e-5, `worst error ${worst}`);
  engine.destroy();
});

test('physics: Mao physics3 (fixed 30 fps steps) within the C test tolerance', { skip: skipCubism }, () => {
  const c = trace('physics', 'Mao_60fps');
  const engine = crowd.engine();
  const rig = engine.rig({ parameters: parametersOf(c), physics: { json: input(c.sources[0]) } });
  const h = rig.add(3);
  const ins = c.inputIds.map((id) => rig.parameterIndex(id)), outs = c.outputIds.map((id) => rig.parameterIndex(id));
  let worst = 0, worst60 = 0, remain = 0;
  for (let f = 0; f < c.frames.length; f++) {
    const row = c.frames[f];
    ins.forEach((i, k) => engine.set('base', h, [row[4 + k], row[4 + k], row[4 + k]], i));
    engine.tick(c.dt[f]);
    const out = engine.outputs(h.slice(0, 1), rig);
    outs.forEach((i, k) => {
      const p = c.parameters[i];
      const err = Math.abs(out[i] - row[4 + ins.length + k]) / (p.max - p.min);
      worst = Math.max(worst, err);
      if (f < 60) worst60 = Math.max(worst60, err);
    });
    remain = Math.max(remain, Math.abs(engine.get('physics_remain', h.slice(0, 1))[0] - row[3]));
  }
  assert.ok(worst <= 1e-4 || worst60 <= 1e-5, `worst ${worst}, first 60 frames ${worst60}`);
  assert.ok(remain <= 1e-5, `remaining time off by ${remain}`);
  engine.destroy();
});

// The samples' WAV handler's scale: a 16-bit sample s is (s * 65536) / 2147483647 as float32.
function readWav16(file) {
  const b = fs.readFileSync(file);
  assert.equal(b.toString('ascii', 0, 4), 'RIFF');
  let pos = 12, fmt = null;
  for (;;) {
    const id = b.toString('ascii', pos, pos + 4), size = b.readUInt32LE(pos + 4);
    if (id === 'fmt ') fmt = { channels: b.readUInt16LE(pos + 10), rate: b.readUInt32LE(pos + 12), bits: b.readUInt16LE(pos + 22) };
    if (id === 'data') {
      assert.equal(fmt.bits, 16);
      const n = size / 2, samples = new Float32Array(n);
      for (let k = 0; k < n; k++) samples[k] = (b.readInt16LE(pos + 8 + 2 * k) * 65536) / 2147483647;
      return { ...fmt, samples, frames: n / fmt.channels };
    }
    pos += 8 + size + (size & 1);
  }
}

test('lip sync: haru_talk_13.wav decoded here, rms per frame through lipsync_level within 1e-6', { skip: skipCubism }, () => {
  const c = trace('lipsync', 'haru_talk_13_60fps');
  const w = readWav16(path.join(cubism, 'inputs', c.wav.file));
  assert.equal(w.frames, c.wav.samplesPerChannel);
  const engine = crowd.engine();
  const rig = engine.rig({ parameters: [{ id: 'ParamAngleX', min: -30, max: 30 }, { id: 'ParamMouthOpenY', min: 0, max: 1 }],
    model3: input('Haru/Haru.model3.json'), lipsync: {} });
  const h = rig.add(2);
  let t = 0, offset = 0, worst = 0;
  for (let f = 0; f < c.frames.length; f++) {
    let rms = 0;
    if (offset < w.frames) {
      t += c.dt[f];
      const goal = Math.min(Math.floor(t * w.rate), w.frames);
      rms = crowd.lipsyncRms(w.samples.subarray(offset * w.channels, goal * w.channels), goal - offset, w.channels);
      offset = goal;
    }
    engine.set('lipsync_level', h, [rms, rms]);
    engine.tick(c.dt[f]);
    worst = Math.max(worst, Math.abs(engine.get('output', h, 1)[0] - c.frames[f][6]));
  }
  assert.ok(worst <= 1e-6, `mouth off by ${worst}`);
  engine.destroy();
});

// ---- fingers: MediaPipe's Hand Landmarker results (proto text) as its JavaScript result ----
function readHandResult(file) {
  const text = fs.readFileSync(file, 'utf8');
  const label = /label: "(\w+)"/.exec(text)[1], score = Number(/score: ([\d.e+-]+)/.exec(text)[1]);
  const block = (name) => {
    const at = text.search(new RegExp(`^${name} \\{`, 'm'));
    const re = /x: ([-\d.e+]+)\s+y: ([-\d.e+]+)\s+z: ([-\d.e+]+)/g;
    re.lastIndex = at;
    const out = [];
    for (let m; out.length < 21 && (m = re.exec(text));) out.push({ x: Number(m[1]), y: Number(m[2]), z: Number(m[3]) });
    return out;
  };
  return { landmarks: [block('landmarks')], worldLandmarks: [block('world_landmarks')],
    handedness: [[{ categoryName: label, displayName: label, score, index: label === 'Right' ? 0 : 1 }]] };
}
// quaternion helpers for the curl of tests/test_fingers.c
const rot = (q, v) => {
  const [x, y, z, w] = q;
  const t = [2 * (y * v[2] - z * v[1]), 2 * (z * v[0] - x * v[2]), 2 * (x * v[1] - y * v[0])];
  return [v[0] + w * t[0] + (y * t[2] - z * t[1]), v[1] + w * t[1] + (z * t[0] - x * t[2]), v[2] + w * t[2] + (x * t[1] - y * t[0])];
};
const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
// Per finger (thumb, index, middle, ring, little) the summed signed flexion in degrees.
function curls(world, right) {
  const dir = (k) => rot(world[k], k === 0 ? [0, 0, 1] : [0, 1, 0]);
  return [0, 1, 2, 3, 4].map((f) => {
    let sum = 0;
    for (let j = f === 0 ? 1 : 0; j < 3; j++) {
      const child = 1 + 3 * f + j, parent = j === 0 ? 0 : child - 1;
      const pd = dir(parent), cd = dir(child);
      let axis = rot(world[child], [1, 0, 0]);
      if (f > 0 && !right) axis = axis.map((v) => -v);
      sum += Math.atan2(dot(cross(pd, cd), axis), dot(pd, cd));
    }
    return (sum * 180) / Math.PI;
  });
}

test('fingers: MediaPipe hand results of four gestures show their curl pattern', { skip: skipHands }, () => {
  const engine = crowd.engine();
  const rig = engine.rig({ fingers: {}, lod: { interval: 1 } });
  const h = rig.add(1);
  const gestures = { fist: (c) => c.every((v) => v > 90), pointing_up: (c) => c[1] < 30 && c[2] > 90 && c[3] > 90 && c[4] > 90,
    victory: (c) => c[1] < 45 && c[2] < 45 && c[3] > 90 && c[4] > 90, thumb_up: (c) => c[0] < 40 && c.slice(1).every((v) => v > 90) };
  for (const [name, pattern] of Object.entries(gestures)) {
    const result = readHandResult(path.join(hands, `${name}_landmarks.pbtxt`));
    const slots = engine.setHands(h, result);
    const label = result.handedness[0][0].categoryName;
    assert.deepEqual(slots, [crowd.handFromHandedness(label)]);
    engine.tick(1 / 30);
    const right = slots[0] === 'right';
    const world = [];
    for (let b = 0; b < 16; b++) world.push([...rig.fingerColumns(slots[0], b).map((col) => col[0])]);
    const c = curls(world, right);
    assert.ok(pattern(c), `${name}: curls ${c.map((v) => v.toFixed(1)).join(' ')}`);
    // the other hand was not detected: presence 0
    assert.equal(engine.get('hand_landmarks', h, right ? 0 : 1)[63], 0);
  }
  // a HolisticLandmarker result (image landmarks, relative z): both hands, unit rotations
  const text = fs.readFileSync(path.join(hands, 'male_full_height_hands_result_cpu.pbtxt'), 'utf8');
  const block = (name) => {
    const re = /x: ([-\d.e+]+)\s+y: ([-\d.e+]+)\s+z: ([-\d.e+]+)/g;
    re.lastIndex = text.search(new RegExp(`^${name} \\{`, 'm'));
    const out = [];
    for (let m; out.length < 21 && (m = re.exec(text));) out.push({ x: Number(m[1]), y: Number(m[2]), z: Number(m[3]) });
    return out;
  };
  const holistic = engine.rig({ fingers: {} });
  const hh = holistic.add(1);
  assert.deepEqual(engine.setHands(hh, { leftHandLandmarks: [block('left_hand_landmarks')], rightHandLandmarks: [block('right_hand_landmarks')] }),
    ['left', 'right']);
  engine.tick(1 / 30);
  for (const side of ['left', 'right'])
    for (let b = 0; b < 16; b++) {
      const q = holistic.fingerColumns(side, b).map((col) => col[0]);
      assert.ok(Math.abs(Math.hypot(...q) - 1) < 1e-5, `${side} bone ${b}: ${q}`);
    }
  // a mirrored (selfie) view puts MediaPipe's "Right" in the left slot
  assert.equal(crowd.handFromHandedness('Right', true), 'left');
  engine.destroy();
});

test('bad Cubism JSON is refused naming its file, JSON path and value; nothing is made', { skip: skipCubism }, () => {
  const engine = crowd.engine();
  const before = engine.rig({ parameters: [{ id: 'A', min: 0, max: 1 }] });
  const pose = input('Hiyori/Hiyori.pose3.json');
  const bad = structuredClone(pose);
  bad.Groups[0][1].Id = '';
  const refused = (desc, pattern) => assert.throws(() => engine.rig(desc), (e) => {
    assert.ok(e instanceof api.CrowdError, String(e));
    assert.match(e.message, pattern);
    return true;
  });
  refused({ pose: { json: bad } }, /^pose: Groups\[0\]\[1\]\.Id: is empty, want an id$/);
  const motion = input('Mark/motions/mark_m01.motion3.json');
  const m2 = structuredClone(motion);
  m2.Curves[3].Segments[2] = 7; // the first segment's type
  refused({ motions: { clips: [motion, m2] } }, /motions\.clips\[1\]: Curves\[3\]\.Segments\[2\]: segment type 7/);
  const m3 = structuredClone(motion);
  m3.Meta.CurveCount = 1;
  refused({ motions: { clips: [m3] } }, /Meta\.CurveCount: 1, but the file holds 37/);
  const phys = input('Mao/Mao.physics3.json');
  phys.PhysicsSettings[2].Vertices[1].Radius = 0;
  refused({ physics: { json: phys } }, /PhysicsSettings\[2\]\.Vertices\[1\]\.Radius: 0, want a number in/);
  refused({ expressions: { list: { f1: { Parameters: [{ Id: 'A', Value: 1, Blend: 'Screen' }] } } } },
    /expressions\.list\.f1: Parameters\[0\]\.Blend: "Screen", want "Add", "Multiply" or "Overwrite"/);
  const { model3, files } = model3Files('Mark', 'Mark.model3.json');
  const missing = { ...files };
  delete missing[Object.keys(files)[0]];
  refused({ model3, files: missing, motions: {} }, /the model3 names ".*", which files does not hold/);
  // the engine's own checks name the field: a lip sync id the rig lacks
  refused({ parameters: [{ id: 'A', min: 0, max: 1 }], lipsync: { parameters: ['ParamMouthOpenY'] } }, /lipsync/);
  // shapes a reader never sees in a file: a CrowdError naming the key, never a TypeError
  refused({ motions: { clips: 5 } }, /^motions\.clips: a number, want an array$/);
  refused({ motions: { clips: [null] } }, /^motions\.clips\[0\]: \(root\): is null, want an object$/);
  refused({ expressions: { list: 5 } }, /^expressions\.list: a number/);
  refused({ lipsync: { parameters: 'ParamMouthOpenY' } }, /^lipsync\.parameters: a string, want an array$/);
  refused({ physics: { json: { Meta: { Fps: NaN }, PhysicsSettings: [] } } }, /^physics: Meta\.Fps: NaN is not finite$/);
  // nothing was made: the next rig takes the id after the first
  assert.equal(engine.rig({}).id, before.id + 1);
  engine.destroy();
});

test('level of detail: rig lod interval and every-tick controllers', () => {
  const engine = crowd.engine();
  const rig = engine.rig({ parameters: [{ id: 'A', min: 0, max: 1 }], lod: { interval: 4, every_tick: [] } });
  const h = rig.add(2);
  assert.deepEqual([...engine.get('lod_interval', h)], [4, 4]);
  let updated = 0;
  for (let k = 0; k < 8; k++) {
    engine.tick(1 / 64);
    updated += engine.get('lod_elapsed', h.slice(0, 1))[0] === 0;
  }
  assert.equal(updated, 2); // one update tick of every 4
  engine.set('lod_interval', h, [1, 1]);
  assert.throws(() => engine.rig({ lod: { interval: 3 } }), /lod\.interval: 3 ticks/);
  engine.destroy();
});

test('a Haru crowd from its model3 (every Live2D controller): the same bytes on wasm128 and scalar, and after a snapshot', { skip: skipCubism }, () => {
  const { model3, files } = model3Files('Haru', 'Haru.model3.json');
  const parameters = parametersOf(json(path.join(cubism, 'full', 'full_lappmodel_update_Haru_60fps.json')));
  const n = 37, levels = new Float32Array(n);
  const make = (simd) => {
    const engine = crowd.engine({ seed: 11, simd });
    const rig = engine.rig({ parameters, model3, files, motions: { idle: 'Idle' }, expressions: {}, pose: {}, physics: { wind_gust: 0.5, wind_x: 0.2 },
      lipsync: {}, lod: { interval: 2, every_tick: [] } });
    const h = rig.add(n);
    engine.set('lod_interval', h.slice(0, 5), [1, 1, 1, 1, 1]);
    return { engine, rig, h };
  };
  const frame = (w, k) => {
    if (k === 10) w.engine.startMotion(w.h.slice(3, 20), w.rig.motionGroups.TapBody[0], { priority: 'normal' });
    if (k === 25) w.engine.startExpression(w.h.slice(0, 30), 2);
    for (let i = 0; i < n; i++) levels[i] = 0.5 + 0.5 * Math.sin(0.3 * k + i);
    w.engine.set('lipsync_level', w.h, levels);
    w.engine.tick(1 / 60);
  };
  // every output and pose opacity of every instance, as bytes
  const bytes = (w) => [...Array(w.rig.parameterCount).keys()].map((i) => Buffer.from(w.engine.get('output', w.h, i).buffer).toString('hex'))
    .concat([0, 1, 2].map((i) => Buffer.from(w.engine.get('part_opacity', w.h, i).buffer).toString('hex'))).join('|');
  const a = make('wasm128'), b = make('scalar');
  for (let k = 0; k < 40; k++) frame(a, k), frame(b, k);
  assert.equal(bytes(a), bytes(b));
  const c = { engine: crowd.engine({ simd: 'scalar' }), rig: null, h: null };
  c.engine.load(a.engine.snapshot());
  c.rig = new api.Rig(c.engine, a.rig.id);
  Object.assign(c.rig, { motionGroups: a.rig.motionGroups });
  c.h = c.rig.handles();
  assert.deepEqual(c.h.ids, a.h.ids);
  for (let k = 40; k < 80; k++) frame(a, k), frame(b, k), frame(c, k);
  assert.equal(bytes(a), bytes(b));
  assert.equal(bytes(a), bytes(c));
  for (const w of [a, b, c]) w.engine.destroy();
});
