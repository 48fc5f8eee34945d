// crowd-engine: the crowd engine compiled to WebAssembly (kernels on SIMD128 or scalar), with
// the shape of the Python package: engine, rigs, instances, fields, tick. crowd.d.ts has the
// types; the README's "crowd in the browser" section shows a page using it.
//
// Memory: every column is a Float32Array view on the module's memory, without a copy. Such a
// view goes stale when the memory grows (the old ArrayBuffer is detached: the view's length
// becomes 0) and when the engine moves a rig's columns (adding instances past the capacity,
// removing, pausing). Either fetch the view again after such calls (rig.column(...)), or keep a
// Column (rig.columnView(...)) and read its `.array`, which re-fetches when needed.
//
// Calls never overlap: a tick runs to its end (on the module's own threads too, loadCrowd({
// threads: true }), the page's thread waiting for them) without calling any
// JavaScript, so nothing (destroy, add, reserve, remove) can free or move memory under a tick.
// A Worker loads a module of its own; objects of one module are not shared with another.
//
// Every integer argument (counts, indices, rows, capacities, seeds) is checked here (uint32, or
// its own range) and refused with a TypeError or RangeError naming it, never wrapped to 32 bits.
import createCrowdModule from './crowd_wasm.mjs';
import { poseFromWorldLandmarks, POSE_FLOATS, LandmarkError } from './landmarks.js';

export { poseFromWorldLandmarks, readPose, LandmarkError, LANDMARK_COUNT, POSE_FLOATS } from './landmarks.js';

// crowd.h's enums (by lower-case name, as the Python package spells them) and constants are
// generated from the header (crowd_enums.js); Result is their code table by short upper-case
// name (Result.RANGE), from RESULT_NAMES.
import { RESULT_NAMES, SETTINGS, Axis, Direction, PoseFrame, LimbFallback, BlinkStart, HarmonicPhase, FaceSource,
  FaceCurve, Bone, BONE_COUNT, FACE_SOURCE_COUNT, Controller, Hand, HandBone, MotionPriority, LodInterval } from './crowd_enums.js';

export * from './crowd_enums.js';
export const Result = Object.freeze(Object.fromEntries(RESULT_NAMES.map((n, i) => [n.replace(/^CROWD_(ERR_)?/, ''), i])));
/** crowd_limb_fallback by the name the package has always exported. */
export const Fallback = LimbFallback;
const HANDLE_BYTES = 8; // crowd_instance: a uint64 id
const U32_MAX = 0xffffffff;

// `value` as an integer in [lo, hi] (default: a uint32), refused naming `what` otherwise: the
// one check every integer argument goes through before it reaches the module (where `>>> 0`
// or the wasm call would silently wrap 2 ** 32 + 1 to 1).
function integer(value, what, lo = 0, hi = U32_MAX) {
  if (typeof value !== 'number' || !Number.isInteger(value))
    throw new TypeError(`${what}: an integer, not ${typeof value === 'number' ? value : typeof value}`);
  if (value < lo || value > hi) throw new RangeError(`${what}: ${value} is outside ${lo} .. ${hi}`);
  return value;
}

// A rig entry's fields reach the module with a bit each for those set (given) and NaN for the
// others (opt): the module starts each entry from the C library's crowd_*_defaults, so no
// default of crowd.h is spelled here.
function given(entry, ...fields) {
  return fields.reduce((mask, f, k) => (entry[f] === undefined ? mask : mask | (1 << k)), 0);
}
function opt(value, convert = (v) => v) {
  return value === undefined ? NaN : convert(value);
}

/** An engine call failed: `code` is the crowd_result, `codeName` its name, the message names the field. */
export class CrowdError extends Error {
  constructor(code, message) {
    super(message);
    this.name = 'CrowdError';
    this.code = code;
    this.codeName = RESULT_NAMES[code] ?? `CROWD_RESULT_${code}`;
  }
}

/**
 * Loads the module. A page fetches crowd_wasm.wasm next to this file; under Node it is read from
 * beside this file too (the module itself is built for the web, whose fetch cannot read a file:
 * URL). options.wasmBinary (the bytes) or options.locateFile take precedence.
 */
export async function loadCrowd(options = {}) {
  const messages = [];
  let wasmBinary = options.wasmBinary;
  // options.threads: the module built with threads (crowd_wasm_mt: a page that is cross-origin
  // isolated only, see threadsAvailable), whose engines take `threads` > 1.
  const factory = options.threads ? (await import('./crowd_wasm_mt.mjs')).default : createCrowdModule;
  if (wasmBinary === undefined && !options.threads && !options.locateFile && typeof process !== 'undefined' && process.versions?.node) {
    const { readFile } = await import('node:fs/promises');
    const url = new URL('./crowd_wasm.wasm', import.meta.url);
    try {
      wasmBinary = await readFile(url);
    } catch (e) {
      throw new Error(`loadCrowd: cannot read the module's ${url.href} (${e.code ?? e.message}); pass options.wasmBinary`);
    }
  }
  const M = await factory({
    wasmBinary,
    locateFile: options.locateFile,
    print: (s) => (options.print ?? console.log)(s),
    printErr: (s) => messages.push(s),
  });
  return new Crowd(M, messages);
}

/**
 * Whether this page can load the threaded module: SharedArrayBuffer exists only on a
 * cross-origin isolated page (served with Cross-Origin-Opener-Policy: same-origin and
 * Cross-Origin-Embedder-Policy: require-corp).
 */
export function threadsAvailable() {
  return typeof SharedArrayBuffer !== 'undefined' && globalThis.crossOriginIsolated === true;
}

/** Scratch memory for one call: malloc'd, freed by done(). */
class Scratch {
  constructor(M) {
    this.M = M;
    this.ptrs = [];
  }
  alloc(bytes) {
    const p = this.M._malloc(Math.max(bytes, 8));
    if (!p) throw new CrowdError(Result.OUT_OF_MEMORY, `out of memory (${bytes} bytes)`);
    this.ptrs.push(p);
    return p;
  }
  string(s) {
    const n = this.M.lengthBytesUTF8(s) + 1;
    const p = this.alloc(n);
    this.M.stringToUTF8(s, p, n);
    return p;
  }
  floats(values) {
    const p = this.alloc(values.length * 4);
    this.M.HEAPF32.set(values, p >> 2);
    return p;
  }
  done() {
    for (const p of this.ptrs) this.M._free(p);
    this.ptrs.length = 0;
  }
}

export class Crowd {
  constructor(M, messages) {
    this.module = M;
    this._messages = messages;
    const names = (fn) => {
      const out = {};
      for (let k = 0; k < 64; k++) {
        const p = fn(k);
        if (!p) break;
        out[M.UTF8ToString(p)] = k;
      }
      return Object.freeze(out);
    };
    /** Field numbers by name ("base", "look_target", ..., "bone_local"), from crowd_field_name. */
    this.Field = names((k) => M._crowd_field_name(k));
    /** SIMD targets by name ("auto", "scalar", ..., "wasm128"), from crowd_simd_name. */
    this.Simd = names((k) => M._crowd_simd_name(k));
    /** Face sources by enum name ("jaw_open") and by MediaPipe's ("jawOpen", "headYaw"). */
    this.FaceSource = Object.freeze({ ...FaceSource, ...names((k) => M._crowd_face_source_name(k)) });
  }

  resultText(code) {
    return this.module.UTF8ToString(this.module._crowd_result_text(code));
  }
  simdSupported(simd) {
    return this.module._crowd_simd_supported(this._enum(this.Simd, simd, 'simd')) !== 0;
  }
  simdWidth(simd) {
    return this.module._crowd_simd_width(this._enum(this.Simd, simd, 'simd'));
  }
  fieldWidth(field) {
    return this.module._crowd_field_width(this._enum(this.Field, field, 'field'));
  }
  /** "hips", "chest", ... for a bone number or name; null for an unknown bone. */
  boneName(bone) {
    const p = this.module._crowd_bone_name(this._enum(Bone, bone, 'bone'));
    return p ? this.module.UTF8ToString(p) : null;
  }
  /** MediaPipe's categoryName of a face source ("_neutral", "jawOpen", ... "headRoll"); null if unknown. */
  faceSourceName(source) {
    const p = this.module._crowd_face_source_name(this._enum(this.FaceSource, source, 'source'));
    return p ? this.module.UTF8ToString(p) : null;
  }
  /**
   * The head rotation (x, y, z, w, w >= 0) of MediaPipe's facialTransformationMatrixes entry
   * (16 floats, column-major): what the "face_rotation" field takes.
   */
  faceRotationFromMatrix(matrix) {
    const m = matrix?.data ?? matrix; // MediaPipe's Matrix { rows, columns, data } or the 16 numbers
    if (!m || m.length !== 16) throw new CrowdError(Result.RANGE, `faceRotationFromMatrix: expected 16 numbers, got ${m?.length}`);
    const s = new Scratch(this.module);
    try {
      const p = s.floats(m), out = s.alloc(16);
      const res = this.module._crowd_face_rotation_from_matrix(p, out);
      if (res !== 0) throw new CrowdError(res, `crowd_face_rotation_from_matrix: ${this.resultText(res)}`);
      return this.module.HEAPF32.slice(out >> 2, (out >> 2) + 4);
    } finally {
      s.done();
    }
  }
  /**
   * The lip sync level of one frame's block of audio, as the Cubism samples compute it
   * (crowd_lipsync_rms): `samples` holds `frames` frames of `channels` interleaved samples in
   * the handler's scale (default: every whole frame they hold). More frames than they hold is
   * a RangeError, never read past.
   */
  lipsyncRms(samples, frames = undefined, channels = 1) {
    integer(channels, 'channels');
    const whole = channels ? Math.floor(samples.length / channels) : 0;
    if (frames === undefined) frames = whole;
    integer(frames, 'frames'); // a size_t: 32 bits in the module
    if (channels && frames > whole)
      throw new RangeError(`lipsyncRms: ${frames} frames of ${channels} channels need ${frames * channels} samples, got ${samples.length}`);
    const n = frames * channels;
    const s = new Scratch(this.module);
    try {
      const v = samples instanceof Float32Array ? samples : Float32Array.from(samples);
      const p = s.floats(n === v.length ? v : v.subarray(0, n));
      return this.module._crowd_lipsync_rms(p, frames, channels);
    } finally {
      s.done();
    }
  }
  /** The canonical rest pose (132 floats, visibility 1) in a frame ("mediapipe_world" or "engine"). */
  restLandmarks(frame = 'mediapipe_world') {
    const s = new Scratch(this.module);
    try {
      const p = s.alloc(POSE_FLOATS * 4);
      this.module._cw_rest_landmarks(this._enum(PoseFrame, frame, 'frame'), p);
      return this.module.HEAPF32.slice(p >> 2, (p >> 2) + POSE_FLOATS);
    } finally {
      s.done();
    }
  }

  /** The relaxed rest hand (21 landmarks x, y, z and presence 1: 64 floats) of "left" or "right" in a frame. */
  restHandLandmarks(hand = 'left', frame = 'mediapipe_world') {
    const s = new Scratch(this.module);
    try {
      const p = s.alloc(64 * 4);
      this.module._cw_rest_hand_landmarks(this._enum(PoseFrame, frame, 'frame'), this._enum(Hand, hand, 'hand'), p);
      return this.module.HEAPF32.slice(p >> 2, (p >> 2) + 64);
    } finally {
      s.done();
    }
  }
  /** The slot ("left" / "right") of a hand MediaPipe labels `label` ("Left" / "Right"), input mirrored or not. */
  handFromHandedness(label, mirrored = false) {
    if (label !== 'Left' && label !== 'Right') throw new CrowdError(Result.BAD_ENUM, `label: ${JSON.stringify(label)} is not "Left" or "Right"`);
    return this.module._cw_hand_from_handedness(label === 'Right' ? 1 : 0, mirrored ? 1 : 0) === Hand.right ? 'right' : 'left';
  }

  engine(options = {}) {
    return new Engine(this, options);
  }

  /**
   * Instances first .. first + count - 1 of the tools' default crowd (10,000 avatars of a face
   * rig with every controller, walking: `crowd run` without a scene), in an engine of their own.
   */
  defaultCrowd({ first = 0, count = 10000, simd = 'auto', threads = 1 } = {}) {
    return new DefaultCrowd(this, first, count, simd, threads);
  }

  // A name (or number) of one of the enums above; CrowdError BAD_ENUM naming `what` otherwise.
  _enum(table, value, what) {
    if (typeof value === 'number' && Number.isInteger(value)) return integer(value, what, -(2 ** 31), 2 ** 31 - 1);
    if (typeof value === 'string' && Object.prototype.hasOwnProperty.call(table, value)) return table[value];
    throw new CrowdError(Result.BAD_ENUM, `${what}: ${JSON.stringify(value)} is not one of ${Object.keys(table).join(', ')}`);
  }
  _toolMessage() {
    const m = this._messages.splice(0).join('\n');
    return m.replace(/^crowd: /gm, '');
  }
}

/** Handles of instances, held in the module's memory (free() when done, or let them live). */
export class Instances {
  constructor(crowd, count) {
    this.crowd = crowd;
    this.count = count;
    this.ptr = count ? crowd.module._malloc(count * HANDLE_BYTES) : 0;
    if (count && !this.ptr) throw new CrowdError(Result.OUT_OF_MEMORY, `out of memory (${count} handles)`);
  }
  /** The stable ids (BigInt), a copy. */
  get ids() {
    return new BigUint64Array(this.crowd.module.HEAPU8.buffer, this.ptr, this.count).slice();
  }
  /** Instances start .. end - 1 of these (0 <= start <= end <= count, integers), as a new set of handles. */
  slice(start, end = this.count) {
    integer(start, 'start', 0, this.count);
    integer(end, 'end', start, this.count);
    const out = new Instances(this.crowd, end - start);
    this.crowd.module.HEAPU8.copyWithin(out.ptr, this.ptr + start * HANDLE_BYTES, this.ptr + end * HANDLE_BYTES);
    return out;
  }
  free() {
    if (this.ptr) this.crowd.module._free(this.ptr);
    this.ptr = 0;
    this.count = 0;
  }
}

/** One component's column of a rig, re-fetched whenever it moved or the memory grew. */
export class Column {
  constructor(rig, field, index, component) {
    this.rig = rig;
    this.field = field;
    this.index = index;
    this.component = component;
    this._array = null;
  }
  /** The zero-copy view, valid until the next call that may allocate or move rows. */
  get array() {
    const { ptr, count } = this.rig._column(this.field, this.index, this.component);
    const buffer = this.rig.engine.crowd.module.HEAPF32.buffer;
    const a = this._array;
    if (!a || a.buffer !== buffer || a.byteOffset !== ptr || a.length !== count) this._array = new Float32Array(buffer, ptr, count);
    return this._array;
  }
}

export class Engine {
  constructor(crowd, { seed = 0, simd = 'auto', initialCapacity = 0 } = {}, borrowed = 0) {
    this.crowd = crowd;
    const M = crowd.module;
    if (borrowed) {
      this.ptr = borrowed;
      this._owned = false;
      return;
    }
    const s = new Scratch(M);
    try {
      const out = s.alloc(4);
      // a uint64 seed as a double: every integer up to 2 ** 64 - 2048 (the largest double below 2 ** 64)
      integer(seed, 'seed', 0, 2 ** 64 - 2048);
      const res = M._cw_engine_create(seed, crowd._enum(crowd.Simd, simd, 'simd'), integer(initialCapacity, 'initialCapacity'), out);
      if (res !== 0) {
        const what = res === Result.UNSUPPORTED ? `simd ${JSON.stringify(simd)}: ` : '';
        throw new CrowdError(res, `crowd_engine_create: ${what}${crowd.resultText(res)}`);
      }
      this.ptr = M.HEAPU32[out >> 2];
      this._owned = true;
    } finally {
      s.done();
    }
  }
  destroy() {
    if (this.ptr && this._owned) this.crowd.module._crowd_engine_destroy(this.ptr);
    this.ptr = 0;
  }
  _p() {
    if (!this.ptr) throw new CrowdError(Result.NULL, 'the engine was destroyed');
    return this.ptr;
  }
  _check(res, what) {
    if (res === 0) return;
    const msg = this.crowd.module.UTF8ToString(this.crowd.module._crowd_last_error(this.ptr));
    throw new CrowdError(res, msg || `${what}: ${this.crowd.resultText(res)}`);
  }
  get lastError() {
    return this.crowd.module.UTF8ToString(this.crowd.module._crowd_last_error(this._p()));
  }
  /** The target the tick runs on ("wasm128" or "scalar"). */
  get simd() {
    return this.crowd.module.UTF8ToString(this.crowd.module._crowd_simd_name(this.crowd.module._crowd_simd_target(this._p())));
  }
  get simdWidth() {
    return this.crowd.module._crowd_simd_width(this.crowd.module._crowd_simd_target(this._p()));
  }
  /** Threads the tick uses: 1 but in the threaded module (loadCrowd({ threads: true })). */
  get threads() {
    return this.crowd.module._crowd_engine_threads(this._p());
  }
  /** count draws in [0, 1) from the first instance's own host stream, advancing it. */
  random(instance, count = 1) {
    integer(count, 'count');
    const s = new Scratch(this.crowd.module);
    try {
      const p = s.alloc(count * 4);
      this._check(this.crowd.module._cw_instance_random(this._p(), instance.ptr, count, p), 'crowd_instance_random');
      return this.crowd.module.HEAPF32.slice(p >> 2, (p >> 2) + count);
    } finally {
      s.done();
    }
  }

  /**
   * A rig: { name, parameters: [{ id, min, max, default, repeat }], look: { parameters: [{ id,
   * axis, factor }], damping, max_speed, blend }, harmonic: { parameters: [{ id, channel,
   * direction, origin, range, duration }], channel_timescales, blend }, blink: { parameters:
   * [ids], model, blend, mean, max_deviation, timescale }, limbs: { frame, axis_fix, fallback,
   * visibility_threshold, hold_half_life, reacquire_half_life, bend_min, bend_full, smoothing,
   * min_cutoff, beta, d_cutoff, outputs, arm_image_bend }, face: { mapping: [{ source, id, gain, offset, curve }]
   * (default: the standard mapping), blend, presence_threshold, handoff_half_life,
   * smoothed_sources: [sources] or a mask, min_cutoff, beta, d_cutoff } }. A face source is its
   * enum name ("jaw_open") or MediaPipe's ("jawOpen"). Live2D: physics: { json: physics3, ...settings },
   * lipsync: { parameters, weight }, pose: { json: pose3, fade_in }, expressions: { list: [exp3] or
   * { name: exp3 }, fade_in, fade_out }, motions: { clips: [motion3 or { json, fade_in, fade_out }],
   * idle, eye_blink_ids, lip_sync_ids, loop_idle }, each taking its files from a model3 (the key's
   * or the desc's `model3`, with `files`) when its JSON is not given; fingers: { ...settings,
   * custom_fix, bind_landmarks, bind_rotations }; lod: { interval: 1 | 2 | 4 | 8, every_tick:
   * [controllers] }. A controller is present when its key is; unset settings take crowd.h's
   * defaults. The Cubism readers and the engine check everything and name what they refuse;
   * nothing is made then.
   */
  rig(desc) {
    const M = this.crowd.module;
    const s = new Scratch(M);
    const b = M._cw_rig_new(desc.name === undefined ? 0 : s.string(String(desc.name)));
    if (!b) throw new CrowdError(Result.OUT_OF_MEMORY, 'out of memory');
    const oom = (r) => {
      if (r !== 0) throw new CrowdError(Result.OUT_OF_MEMORY, 'out of memory');
    };
    const e = (table, v, what) => this.crowd._enum(table, v, what);
    // A controller's settings by the names crowd.h gives them (SETTINGS, generated): enums by
    // name or number, bools, numbers.
    const settings = (controller, obj) => {
      oom(M._cw_rig_enable(b, s.string(controller)));
      for (const [key, value] of Object.entries(obj)) {
        if (key === 'parameters' || key === 'channel_timescales' || key === 'mapping') continue;
        const name = `${controller}.${key}`;
        const table = SETTINGS[controller] ?? {};
        const kind = Object.hasOwn(table, key) ? table[key] : undefined;
        if (kind === undefined) throw new CrowdError(Result.RANGE, `${name}: not a setting of ${controller}`);
        let v = value;
        if (kind === 'uint64') { // a Number up to 2 ** 53 - 1 or a BigInt, passed as two halves (exact)
          const big = typeof v === 'bigint' ? v : BigInt(integer(v, name, 0, Number.MAX_SAFE_INTEGER));
          if (big < 0n || big >= 1n << 64n) throw new RangeError(`${name}: ${big} is outside 0 .. ${(1n << 64n) - 1n}`);
          if (M._cw_rig_setting_u64(b, s.string(name), Number(big & 0xffffffffn), Number(big >> 32n)) !== 0)
            throw new CrowdError(Result.RANGE, `${name}: not a setting of ${controller}`);
          continue;
        }
        if (typeof kind === 'object') v = e(kind, value, name);
        else if (kind === 'uint32') v = integer(v, name);
        else if (typeof v === 'boolean') v = v ? 1 : 0;
        else if (typeof v !== 'number') throw new CrowdError(Result.RANGE, `${name}: not a number (${JSON.stringify(value)})`);
        if (M._cw_rig_setting(b, s.string(name), v) !== 0)
          throw new CrowdError(Result.RANGE, `${name}: not a setting of ${controller}`);
      }
    };
    try {
      (desc.parameters ?? []).forEach((p, k) => {
        if (typeof p?.id !== 'string') throw new CrowdError(Result.NULL, `parameters[${k}].id: not a string`);
        oom(M._cw_rig_parameter(b, s.string(p.id), given(p, 'min', 'max', 'default', 'repeat'), opt(p.min), opt(p.max),
          opt(p.default), p.repeat ? 1 : 0));
      });
      if (desc.look) {
        settings('look', desc.look);
        (desc.look.parameters ?? []).forEach((p, k) =>
          oom(M._cw_rig_look_parameter(b, s.string(String(p.id)), given(p, 'axis', 'factor'),
            opt(p.axis, (v) => e(Axis, v, `look.parameters[${k}].axis`)), opt(p.factor))));
      }
      if (desc.harmonic) {
        settings('harmonic', desc.harmonic);
        for (const t of desc.harmonic.channel_timescales ?? [])
          if (M._cw_rig_harmonic_channel(b, t) !== 0)
            throw new CrowdError(Result.CAPACITY, 'harmonic.channel_timescales: more than 16 channels');
        (desc.harmonic.parameters ?? []).forEach((p, k) =>
          oom(M._cw_rig_harmonic_parameter(b, s.string(String(p.id)), given(p, 'channel', 'direction', 'origin', 'range', 'duration'),
            opt(p.channel, (v) => integer(v, `harmonic.parameters[${k}].channel`)),
            opt(p.direction, (v) => e(Direction, v, `harmonic.parameters[${k}].direction`)),
            opt(p.origin), opt(p.range), opt(p.duration))));
      }
      if (desc.blink) {
        settings('blink', desc.blink);
        for (const id of desc.blink.parameters ?? []) oom(M._cw_rig_blink_parameter(b, s.string(String(id))));
      }
      if (desc.limbs)
        settings('limbs', desc.limbs);
      if (desc.face) {
        const { mapping, smoothed_sources: smoothed, ...rest } = desc.face;
        settings('face', rest);
        if (smoothed !== undefined) {
          let mask = smoothed;
          if (Array.isArray(smoothed))
            mask = smoothed.reduce((m, src, k) => {
              const bit = this.crowd._enum(this.crowd.FaceSource, src, `face.smoothed_sources[${k}]`);
              if (bit < 0 || bit >= FACE_SOURCE_COUNT)
                throw new CrowdError(Result.BAD_ENUM, `face.smoothed_sources[${k}]: source ${bit} is outside 0 .. ${FACE_SOURCE_COUNT - 1}`);
              return m | (1n << BigInt(bit));
            }, 0n);
          settings('face', { smoothed_sources: mask });
        }
        if (mapping !== undefined) {
          M._cw_rig_face_mapping_clear(b);
          mapping.forEach((m, k) => {
            if (typeof m?.id !== 'string') throw new CrowdError(Result.NULL, `face.mapping[${k}].id: not a string`);
            oom(M._cw_rig_face_mapping(b, e(this.crowd.FaceSource, m.source, `face.mapping[${k}].source`), s.string(m.id),
              given(m, 'gain', 'offset', 'curve'), opt(m.gain), opt(m.offset),
              opt(m.curve, (v) => e(FaceCurve, v, `face.mapping[${k}].curve`))));
          });
        }
      }
      const live = { motionGroups: {}, motionEventValues: [], expressionNames: [] };
      this._live2dRig(desc, b, s, settings, oom, live);
      const out = s.alloc(4);
      this._check(M._cw_rig_create(this._p(), b, out), 'crowd_rig_create');
      const rig = new Rig(this, M.HEAPU32[out >> 2]);
      /** Clip indices by model3 motion group ({ Idle: [0, 1], TapBody: [2] }; empty for clips given directly). */
      rig.motionGroups = live.motionGroups;
      /** Each clip's UserData values: motionEventValues[clip][event] (what motionEvents reports by index). */
      rig.motionEventValues = live.motionEventValues;
      /** The expressions' names (model3's Name, the list's keys or indices), by library index. */
      rig.expressionNames = live.expressionNames;
      return rig;
    } finally {
      M._cw_rig_free(b);
      s.done();
    }
  }

  // The Live2D controllers (physics, lip sync, pose, expressions, motions), fingers and level
  // of detail of rig(desc), into the builder b. A controller's files come as parsed JSON: its
  // `json` (`list` for expressions, `clips` for motions), or a model3 (the controller's or the
  // desc's `model3`) whose FileReferences name them in `files` ({ [name as in the model3]: JSON }).
  _live2dRig(desc, b, s, settings, oom, live) {
    const M = this.crowd.module;
    const params = new Set((desc.parameters ?? []).map((p) => p?.id));
    const model3 = (sub, key) => {
      const m = sub.model3 ?? desc.model3;
      return m === undefined ? null : readModel3(m, `${key}: model3`);
    };
    const file = (sub, key, name) => {
      const files = sub.files ?? desc.files ?? {};
      if (!Object.hasOwn(files, name)) throw new CrowdError(Result.NULL, `${key}: the model3 names "${name}", which files does not hold`);
      return files[name];
    };
    // the controller's JSON: given, else the model3's FileReferences entry
    const source = (sub, key, given, ref) => {
      if (given !== undefined) return [given, key];
      const m = model3(sub, key);
      const name = m?.[ref];
      if (!name) throw new CrowdError(Result.NULL, `${key}: no json, and no model3 whose FileReferences name its ${ref} file`);
      return [file(sub, key, name), name];
    };
    const array = (v, what) => {
      if (!Array.isArray(v)) throw new CrowdError(Result.RANGE, `${what}: ${jsonType(v)}, want an array`);
      return v;
    };
    const doubles = (values) => {
      const p = s.alloc(values.length * 8);
      M.HEAPF64.set(values, p >> 3);
      return p;
    };
    if (desc.physics) {
      const { json, model3: _m, files: _f, ...rest } = desc.physics;
      const [src, name] = source(desc.physics, 'physics', json, 'physics');
      const p = readPhysics3(src, name);
      settings('physics', { fps: p.fps, ...rest });
      for (const sub of p.subrigs) {
        oom(M._cw_rig_physics_subrig(b, doubles([...sub.position, ...sub.angle])));
        for (const x of sub.inputs) oom(M._cw_rig_physics_input(b, s.string(x.id), x.weight, x.type, x.reflect ? 1 : 0));
        for (const x of sub.particles) oom(M._cw_rig_physics_particle(b, doubles(x)));
        for (const x of sub.outputs)
          oom(M._cw_rig_physics_output(b, s.string(x.id), x.vertex, x.scale, x.weight, x.type, x.reflect ? 1 : 0));
      }
    }
    if (desc.lipsync) {
      const { parameters, model3: _m, files: _f, ...rest } = desc.lipsync;
      settings('lipsync', rest);
      // the model3's LipSync group, the ids the rig has (the framework ignores the others)
      const ids = parameters !== undefined ? array(parameters, 'lipsync.parameters')
        : (model3(desc.lipsync, 'lipsync')?.lipSync ?? []).filter((id) => params.has(id));
      ids.forEach((id, k) => {
        if (typeof id !== 'string') throw new CrowdError(Result.NULL, `lipsync.parameters[${k}]: not a string`);
        oom(M._cw_rig_lipsync_parameter(b, s.string(id)));
      });
    }
    if (desc.pose) {
      const { json, model3: _m, files: _f, ...rest } = desc.pose;
      const [src, name] = source(desc.pose, 'pose', json, 'pose');
      const p = readPose3(src, name);
      settings('pose', { fade_in: p.fadeIn, ...rest });
      for (const g of p.groups) {
        oom(M._cw_rig_pose_group(b));
        for (const part of g) {
          oom(M._cw_rig_pose_part(b, s.string(part.id)));
          for (const l of part.links) oom(M._cw_rig_pose_link(b, s.string(l)));
        }
      }
    }
    if (desc.expressions) {
      const { list, model3: _m, files: _f, ...rest } = desc.expressions;
      let entries;
      if (list !== undefined) {
        if (list === null || typeof list !== 'object') throw new CrowdError(Result.RANGE, `expressions.list: ${jsonType(list)}, want an array or an object of exp3 files`);
        entries = Array.isArray(list) ? list.map((j, k) => [String(k), j, `expressions.list[${k}]`])
          : Object.entries(list).map(([n, j]) => [n, j, `expressions.list.${n}`]);
      } else {
        const m = model3(desc.expressions, 'expressions');
        if (!m) throw new CrowdError(Result.NULL, 'expressions: no list, and no model3 naming its expressions');
        entries = m.expressions.map((x) => [x.name, file(desc.expressions, 'expressions', x.file), x.file]);
      }
      settings('expression', rest);
      for (const [, json, name] of entries) {
        const x = readExp3(json, name);
        oom(M._cw_rig_expression(b, x.fadeIn, x.fadeOut));
        for (const p of x.parameters) oom(M._cw_rig_expression_parameter(b, s.string(p.id), p.value, p.blend));
      }
      live.expressionNames = entries.map((x) => x[0]);
    }
    if (desc.motions) {
      const { clips, model3: _m, files: _f, idle, eye_blink_ids: eye, lip_sync_ids: lip, ...rest } = desc.motions;
      const m = model3(desc.motions, 'motions');
      let entries;
      if (clips !== undefined) {
        entries = array(clips, 'motions.clips').map((c, k) => {
          const wrapped = c !== null && typeof c === 'object' && 'json' in c;
          return { json: wrapped ? c.json : c, fadeIn: wrapped ? c.fade_in ?? -1 : -1, fadeOut: wrapped ? c.fade_out ?? -1 : -1,
            name: `motions.clips[${k}]` };
        });
      } else {
        if (!m) throw new CrowdError(Result.NULL, 'motions: no clips, and no model3 naming its motions');
        entries = [];
        for (const g of m.motionGroups) {
          live.motionGroups[g.name] = [];
          for (const x of g.motions) {
            live.motionGroups[g.name].push(entries.length);
            entries.push({ json: file(desc.motions, 'motions', x.file), fadeIn: x.fadeIn, fadeOut: x.fadeOut, name: x.file });
          }
        }
      }
      settings('motion', rest);
      for (const c of entries) {
        const x = readMotion3(c.json, c.name);
        // the model3 entry's fades when set (>= 0), else Meta's (the framework's loadMotion)
        const fi = typeof c.fadeIn === 'number' && c.fadeIn >= 0 ? c.fadeIn : x.fadeIn;
        const fo = typeof c.fadeOut === 'number' && c.fadeOut >= 0 ? c.fadeOut : x.fadeOut;
        const types = s.alloc(x.segmentTypes.length);
        M.HEAPU8.set(x.segmentTypes, types);
        const firsts = s.alloc(x.segmentPoints.length * 4);
        M.HEAPU32.set(x.segmentPoints, firsts >> 2);
        oom(M._cw_rig_motion_clip(b, x.duration, x.fps, x.restricted ? 1 : 0, fi, fo, x.curves.length, x.segmentTypes.length,
          types, firsts, x.points.length / 2, doubles(x.points), x.eventTimes.length, doubles(x.eventTimes)));
        for (const cv of x.curves) oom(M._cw_rig_motion_curve(b, s.string(cv.id), cv.target, cv.fadeIn, cv.fadeOut, cv.first, cv.count));
        live.motionEventValues.push(x.eventValues);
      }
      // the model3's EyeBlink and LipSync groups, the ids the rig has, unless given
      const groupIds = (given, key) => (given !== undefined ? array(given, `motions.${key === 'eyeBlink' ? 'eye_blink_ids' : 'lip_sync_ids'}`)
        : m ? m[key].filter((id) => params.has(id)) : []);
      groupIds(eye, 'eyeBlink').forEach((id, k) => {
        if (typeof id !== 'string') throw new CrowdError(Result.NULL, `motions.eye_blink_ids[${k}]: not a string`);
        oom(M._cw_rig_motion_id(b, 0, s.string(id)));
      });
      groupIds(lip, 'lipSync').forEach((id, k) => {
        if (typeof id !== 'string') throw new CrowdError(Result.NULL, `motions.lip_sync_ids[${k}]: not a string`);
        oom(M._cw_rig_motion_id(b, 1, s.string(id)));
      });
      let idleClips = idle ?? [];
      if (typeof idle === 'string') {
        if (!Object.hasOwn(live.motionGroups, idle)) throw new CrowdError(Result.UNKNOWN_ID, `motions.idle: no motion group "${idle}"`);
        idleClips = live.motionGroups[idle];
      }
      array(idleClips, 'motions.idle').forEach((k, n) => oom(M._cw_rig_motion_idle(b, integer(k, `motions.idle[${n}]`))));
    }
    if (desc.fingers) {
      const { custom_fix, bind_landmarks, bind_rotations, ...rest } = desc.fingers;
      settings('fingers', rest);
      const arr = (v, n, what) => {
        if (v === undefined || v === null) return 0;
        if (v.length !== n) throw new CrowdError(Result.RANGE, `fingers.${what}: ${v.length} numbers, want ${n}`);
        return s.floats(v);
      };
      M._cw_rig_fingers_arrays(b, arr(custom_fix, 128, 'custom_fix'), arr(bind_landmarks, 128, 'bind_landmarks'),
        arr(bind_rotations, 128, 'bind_rotations'));
    }
    if (desc.lod) {
      const { interval = 1, every_tick: every = 0n } = desc.lod;
      const ticks = [1, 2, 4, 8];
      let iv;
      if (typeof interval === 'number') {
        iv = ticks.indexOf(interval);
        if (iv < 0) throw new CrowdError(Result.BAD_ENUM, `lod.interval: ${interval} ticks, want 1, 2, 4 or 8`);
      } else {
        iv = this.crowd._enum(LodInterval, String(interval).replace(/^(\d)$/, 'interval_$1'), 'lod.interval');
      }
      let mask = every;
      if (Array.isArray(every))
        mask = every.reduce((acc, c, k) => acc | (1n << BigInt(this.crowd._enum(Controller, c, `lod.every_tick[${k}]`) & 63)), 0n);
      mask = typeof mask === 'bigint' ? mask : BigInt(integer(mask, 'lod.every_tick', 0, Number.MAX_SAFE_INTEGER));
      if (mask < 0n || mask >= 1n << 64n) throw new RangeError(`lod.every_tick: ${mask} is outside 0 .. 2 ** 64 - 1`);
      M._cw_rig_lod(b, iv, Number(mask & 0xffffffffn), Number(mask >> 32n));
    }
  }

  /** Advances every running instance of every rig by dt seconds (0 <= dt <= 1). */
  tick(dt) {
    this._check(this.crowd.module._crowd_tick(this._p(), dt), 'crowd_tick');
  }
  /** Advances rows [first, first + count) of one rig: any split gives the same bytes as tick(). */
  tickRange(dt, rig, first, count) {
    const id = typeof rig === 'number' ? integer(rig, 'rig') : rig.id;
    this._check(this.crowd.module._cw_tick_range(this._p(), dt, id, integer(first, 'first'), integer(count, 'count')), 'crowd_tick_range');
  }

  _values(field, instances, values, index, what) {
    const width = this.crowd.fieldWidth(field);
    if (!(values instanceof Float32Array)) values = Float32Array.from(values);
    if (values.length !== instances.count * width)
      throw new CrowdError(Result.RANGE, `${what}: ${values.length} values for ${instances.count} instances of width ${width}`);
    return values;
  }
  /** Writes a field of every instance (count * width values); all are checked before any is written. */
  set(field, instances, values, index = 0) {
    const f = this.crowd._enum(this.crowd.Field, field, 'field');
    values = this._values(field, instances, values, index, `set ${field}`);
    const s = new Scratch(this.crowd.module);
    try {
      this._check(this.crowd.module._crowd_instances_set(this._p(), f, integer(index, 'index'), instances.ptr, instances.count, s.floats(values)), 'crowd_instances_set');
    } finally {
      s.done();
    }
  }
  /** Reads a field of every instance: a new Float32Array of count * width values. */
  get(field, instances, index = 0) {
    const f = this.crowd._enum(this.crowd.Field, field, 'field');
    index = integer(index, 'index');
    const n = instances.count * this.crowd.fieldWidth(field);
    const s = new Scratch(this.crowd.module);
    try {
      const p = s.alloc(n * 4);
      this._check(this.crowd.module._crowd_instances_get(this._p(), f, index, instances.ptr, instances.count, p), 'crowd_instances_get');
      return this.crowd.module.HEAPF32.slice(p >> 2, (p >> 2) + n);
    } finally {
      s.done();
    }
  }
  /**
   * Poses the instances from MediaPipe's result.worldLandmarks (or the result, or its JSON
   * text): every instance gets the first pose. No detection (an empty list) keeps each
   * instance's landmarks with visibility 0, so its bones ease to rest. Returns whether a pose
   * was detected. Rigs whose limbs frame is "mediapipe_world" take the landmarks as they come.
   */
  setPoseFromWorldLandmarks(instances, worldLandmarks) {
    const pose = poseFromWorldLandmarks(worldLandmarks);
    let values;
    if (pose) {
      values = new Float32Array(instances.count * POSE_FLOATS);
      for (let i = 0; i < instances.count; i++) values.set(pose, i * POSE_FLOATS);
    } else {
      values = this.get('pose', instances);
      for (let k = 3; k < values.length; k += 4) values[k] = 0;
    }
    this.set('pose', instances, values);
    return pose !== null;
  }
  /** crowd_tick with dt in double: the motion clocks advance by exactly dt (a host's frame clock). */
  tickExact(dt) {
    this._check(this.crowd.module._crowd_tick_exact(this._p(), dt), 'crowd_tick_exact');
  }
  tickRangeExact(dt, rig, first, count) {
    const id = typeof rig === 'number' ? integer(rig, 'rig') : rig.id;
    this._check(this.crowd.module._cw_tick_range_exact(this._p(), dt, id, integer(first, 'first'), integer(count, 'count')),
      'crowd_tick_range_exact');
  }
  _flags(instances, call, what) {
    const s = new Scratch(this.crowd.module);
    try {
      const out = s.alloc(instances.count);
      this._check(call(out), what);
      return this.crowd.module.HEAPU8.slice(out, out + instances.count);
    } finally {
      s.done();
    }
  }
  /**
   * Starts library clip `clip` (rig.motionGroups names them) on the instances where the reserve
   * rule lets it (crowd_motion_start): options priority ("idle", "normal", "force"; default
   * "normal"), loop (false), loopFadeIn (true), fadeIn / fadeOut (< 0: the clip's), offset (s).
   * Returns a Uint8Array: 1 where it started.
   */
  startMotion(instances, clip, { priority = 'normal', loop = false, loopFadeIn = true, fadeIn = -1, fadeOut = -1, offset = 0 } = {}) {
    const pr = this.crowd._enum(MotionPriority, priority, 'priority');
    integer(clip, 'clip');
    for (const [v, n] of [[fadeIn, 'fadeIn'], [fadeOut, 'fadeOut'], [offset, 'offset']])
      if (typeof v !== 'number') throw new TypeError(`${n}: a number, not ${typeof v}`);
    return this._flags(instances, (out) => this.crowd.module._cw_motion_start(this._p(), instances.ptr, instances.count, clip, pr,
      loop ? 1 : 0, loopFadeIn ? 1 : 0, fadeIn, fadeOut, offset, out), 'crowd_motion_start');
  }
  /** CubismMotionManager.reserveMotion on each instance; a Uint8Array: 1 where it reserved. */
  reserveMotion(instances, priority) {
    const pr = this.crowd._enum(MotionPriority, priority, 'priority');
    return this._flags(instances, (out) => this.crowd.module._cw_motion_reserve(this._p(), instances.ptr, instances.count, pr, out),
      'crowd_motion_reserve');
  }
  /** The first instance's playback: { playing, clip (-1: none), time, clock, current, reserved (priority names) }. */
  motionStatus(instance) {
    const M = this.crowd.module;
    const s = new Scratch(M);
    try {
      const out = s.alloc(48);
      this._check(M._cw_motion_status(this._p(), instance.ptr, out), 'crowd_motion_status_get');
      const v = M.HEAPF64.slice(out >> 3, (out >> 3) + 6);
      const name = (k) => Object.keys(MotionPriority).find((n) => MotionPriority[n] === k) ?? String(k);
      return { playing: v[0], clip: v[1], time: v[2], clock: v[3], current: name(v[4]), reserved: name(v[5]) };
    } finally {
      s.done();
    }
  }
  /**
   * The events (motion3 UserData) the last tick fired, into the caller's arrays: ints holds 4
   * per event (rig id, row, clip, event index: rig.motionEventValues[clip][event] is its value),
   * times (a Float64Array or Float32Array) the instance's motion clock when it fired. Capacity is
   * what both hold. Returns { count, lost }: lost counts the events that did not fit (and those
   * beyond 4 per instance and tick); call it after each tick.
   */
  motionEvents(ints, times) {
    if (!(ints instanceof Int32Array)) throw new TypeError('motionEvents: ints must be an Int32Array');
    if (!(times instanceof Float64Array || times instanceof Float32Array)) throw new TypeError('motionEvents: times must be a Float64Array or Float32Array');
    const capacity = Math.min(Math.floor(ints.length / 4), times.length);
    const M = this.crowd.module;
    const s = new Scratch(M);
    try {
      const pi = s.alloc(capacity * 16), pt = s.alloc(capacity * 8), out = s.alloc(16);
      this._check(M._cw_motion_events(this._p(), pi, pt, capacity, out), 'crowd_motion_events');
      const count = M.HEAPF64[out >> 3], lost = M.HEAPF64[(out >> 3) + 1];
      ints.set(M.HEAP32.subarray(pi >> 2, (pi >> 2) + 4 * count));
      times.set(M.HEAPF64.subarray(pt >> 3, (pt >> 3) + count));
      return { count, lost };
    } finally {
      s.done();
    }
  }
  /** Starts library expression `expression` (rig.expressionNames) on each instance (crowd_expressions_start). */
  startExpression(instances, expression) {
    this._check(this.crowd.module._crowd_expressions_start(this._p(), instances.ptr, instances.count, integer(expression, 'expression')),
      'crowd_expressions_start');
  }
  /**
   * Hands from MediaPipe's JavaScript HandLandmarker result ({ worldLandmarks, landmarks,
   * handedness }) or HolisticLandmarker result ({ leftHandWorldLandmarks, leftHandLandmarks,
   * right... }) into every instance's hand_landmarks: each detected hand goes to its slot
   * (crowd_hand_from_handedness: options.mirrored must be the rig's fingers.mirrored) with
   * presence 1; a hand not detected keeps its landmarks with presence 0, so its bones ease to
   * rest. World landmarks are taken when the result has them (the rig's frame
   * "mediapipe_world"); image landmarks else, x and z times options.aspect (width / height).
   * Returns the slots set ([] when no hand was detected).
   */
  setHands(instances, result, { mirrored = false, aspect = 1 } = {}) {
    const M = this.crowd.module;
    const hands = [];
    const first = (v) => (Array.isArray(v?.[0]) ? v[0] : v); // Holistic: [[landmarks]] or [landmarks]
    if (result?.leftHandLandmarks !== undefined || result?.rightHandLandmarks !== undefined ||
        result?.leftHandWorldLandmarks !== undefined || result?.rightHandWorldLandmarks !== undefined) {
      for (const side of ['left', 'right']) {
        const world = first(result[`${side}HandWorldLandmarks`]), image = first(result[`${side}HandLandmarks`]);
        const lm = world?.length ? world : image;
        if (lm?.length) hands.push({ right: side === 'right', landmarks: lm, world: !!world?.length, path: `${side}Hand` });
      }
    } else {
      const handedness = result?.handedness ?? result?.handednesses ?? [];
      const world = result?.worldLandmarks ?? [], image = result?.landmarks ?? [];
      handedness.forEach((h, k) => {
        const label = h?.[0]?.categoryName ?? h?.[0]?.displayName;
        if (label !== 'Left' && label !== 'Right')
          throw new LandmarkError(`handedness[${k}][0].categoryName`, `"Left" or "Right", not ${JSON.stringify(label)}`);
        const lm = world[k]?.length ? world[k] : image[k];
        hands.push({ right: label === 'Right', landmarks: lm, world: !!world[k]?.length, path: `${world[k]?.length ? 'worldLandmarks' : 'landmarks'}[${k}]` });
      });
    }
    const values = this.get('hand_landmarks', instances, 0), valuesR = this.get('hand_landmarks', instances, 1);
    const rows = [values, valuesR];
    for (const r of rows) for (let k = 63; k < r.length; k += 64) r[k] = 0;
    const set = [];
    for (const h of hands) {
      const slot = M._cw_hand_from_handedness(h.right ? 1 : 0, mirrored ? 1 : 0);
      if (set.includes(slot)) continue; // two hands of one label: the first one
      if (!Array.isArray(h.landmarks) || h.landmarks.length !== 21)
        throw new LandmarkError(h.path, `21 landmarks, not ${h.landmarks?.length ?? typeof h.landmarks}`);
      const one = new Float32Array(64);
      h.landmarks.forEach((p, i) => {
        for (const [c, axis] of ['x', 'y', 'z'].entries()) {
          const v = p?.[axis];
          if (typeof v !== 'number' || !Number.isFinite(v)) throw new LandmarkError(`${h.path}[${i}].${axis}`, `a finite number, not ${v}`);
          one[3 * i + c] = h.world || c === 1 ? v : v * aspect;
        }
      });
      one[63] = 1;
      for (let n = 0; n < instances.count; n++) rows[slot].set(one, n * 64);
      set.push(slot);
    }
    this.set('hand_landmarks', instances, values, 0);
    this.set('hand_landmarks', instances, valuesR, 1);
    return set.map((k) => (k === Hand.right ? 'right' : 'left'));
  }
  /** Removes instances (the last rows move into the holes; columns move: re-fetch views). */
  remove(instances) {
    this._check(this.crowd.module._crowd_instances_remove(this._p(), instances.ptr, instances.count), 'crowd_instances_remove');
  }
  /** Pauses (or with paused = false resumes) instances: they keep their state; rows move. */
  pause(instances, paused = true) {
    this._check(this.crowd.module._crowd_instances_pause(this._p(), instances.ptr, instances.count, paused ? 1 : 0), 'crowd_instances_pause');
  }
  resume(instances) {
    this.pause(instances, false);
  }
  /** Whether the first of the instances is paused. */
  paused(instance) {
    const s = new Scratch(this.crowd.module);
    try {
      const out = s.alloc(4);
      this._check(this.crowd.module._cw_instance_paused(this._p(), instance.ptr, out), 'crowd_instance_paused');
      return this.crowd.module.HEAPU32[out >> 2] !== 0;
    } finally {
      s.done();
    }
  }
  /** Starts a blink on the next tick for the idling ones among the instances. */
  blinkNow(instances) {
    this._check(this.crowd.module._crowd_blink_now(this._p(), instances.ptr, instances.count), 'crowd_blink_now');
  }
  /** The whole state as bytes (crowd_snapshot_save): a native engine loads them too. */
  snapshot() {
    const M = this.crowd.module;
    const s = new Scratch(M);
    try {
      const size = s.alloc(4);
      this._check(M._crowd_snapshot_size(this._p(), size), 'crowd_snapshot_size');
      const n = M.HEAPU32[size >> 2];
      const p = s.alloc(n);
      this._check(M._crowd_snapshot_save(this._p(), p, n, size), 'crowd_snapshot_save');
      return M.HEAPU8.slice(p, p + M.HEAPU32[size >> 2]);
    } finally {
      s.done();
    }
  }
  /** Replaces the state with a snapshot's (nothing changes on error); every view goes stale. */
  load(bytes) {
    const M = this.crowd.module;
    const s = new Scratch(M);
    try {
      const p = s.alloc(bytes.length);
      M.HEAPU8.set(bytes, p);
      this._check(M._crowd_snapshot_load(this._p(), p, bytes.length), 'crowd_snapshot_load');
    } finally {
      s.done();
    }
  }
  /** Every output parameter of one instance (instances.slice(k, k + 1) for the k-th). */
  outputs(instance, rig) {
    const n = rig.parameterCount;
    const s = new Scratch(this.crowd.module);
    try {
      const p = s.alloc(n * 4);
      this._check(this.crowd.module._cw_get_outputs(this._p(), instance.ptr, p, n), 'crowd_get_outputs');
      return this.crowd.module.HEAPF32.slice(p >> 2, (p >> 2) + n);
    } finally {
      s.done();
    }
  }
}

export class Rig {
  constructor(engine, id) {
    this.engine = engine;
    this.id = id;
  }
  get _M() {
    return this.engine.crowd.module;
  }
  get parameterCount() {
    return this._M._cw_rig_parameter_count(this.engine._p(), this.id);
  }
  get instanceCount() {
    return this._M._cw_rig_instance_count(this.engine._p(), this.id);
  }
  get runningCount() {
    return this._M._cw_rig_running_count(this.engine._p(), this.id);
  }
  parameterIndex(id) {
    const s = new Scratch(this._M);
    try {
      const out = s.alloc(4);
      this.engine._check(this._M._cw_rig_parameter_index(this.engine._p(), this.id, s.string(String(id)), out), 'crowd_rig_parameter_index');
      return this._M.HEAPU32[out >> 2];
    } finally {
      s.done();
    }
  }
  /** A limbs rig's rest rotations: { world, local }, each 15 quaternions (60 floats x, y, z, w). */
  restPose() {
    const s = new Scratch(this._M);
    try {
      const n = BONE_COUNT * 4;
      const world = s.alloc(n * 4), local = s.alloc(n * 4);
      this.engine._check(this._M._cw_rig_rest_pose(this.engine._p(), this.id, world, local), 'crowd_rig_rest_pose');
      return { world: this._M.HEAPF32.slice(world >> 2, (world >> 2) + n), local: this._M.HEAPF32.slice(local >> 2, (local >> 2) + n) };
    } finally {
      s.done();
    }
  }
  /** A fingers rig's rest rotations: { world, local }, 32 quaternions each (index hand * 16 + hand bone). */
  restHands() {
    const s = new Scratch(this._M);
    try {
      const n = 32 * 4;
      const world = s.alloc(n * 4), local = s.alloc(n * 4);
      this.engine._check(this._M._cw_rig_rest_hands(this.engine._p(), this.id, world, local), 'crowd_rig_rest_hands');
      return { world: this._M.HEAPF32.slice(world >> 2, (world >> 2) + n), local: this._M.HEAPF32.slice(local >> 2, (local >> 2) + n) };
    } finally {
      s.done();
    }
  }
  /**
   * One finger bone of every row as four zero-copy views [x, y, z, w] (rig.column's rules):
   * hand "left" / "right", bone a HandBone name ("index_proximal") or number, space "world" or "local".
   */
  fingerColumns(hand, bone, space = 'world') {
    const crowd = this.engine.crowd;
    const h = crowd._enum(Hand, hand, 'hand'), b = crowd._enum(HandBone, bone, 'bone');
    if (space !== 'world' && space !== 'local') throw new CrowdError(Result.BAD_ENUM, `space: ${JSON.stringify(space)} is not one of world, local`);
    const field = space === 'world' ? 'finger_world' : 'finger_local';
    return [0, 1, 2, 3].map((c) => this.column(field, h * 16 + b, c));
  }
  /** The pseudo-parameter index of a motion curve's id (a part id, or an id the rig has no parameter of). */
  motionPseudoIndex(id) {
    const s = new Scratch(this._M);
    try {
      const out = s.alloc(4);
      this.engine._check(this._M._cw_rig_motion_pseudo_index(this.engine._p(), this.id, s.string(String(id)), out), 'crowd_rig_motion_pseudo_index');
      return this._M.HEAPU32[out >> 2];
    } finally {
      s.done();
    }
  }
  get motionPseudoCount() {
    return this._M._cw_rig_motion_pseudo_count(this.engine._p(), this.id);
  }
  /** The bytes one instance takes in the engine (crowd_rig_bytes_per_instance). */
  get bytesPerInstance() {
    const s = new Scratch(this._M);
    try {
      const out = s.alloc(4);
      this.engine._check(this._M._cw_rig_bytes_per_instance(this.engine._p(), this.id, out), 'crowd_rig_bytes_per_instance');
      return this._M.HEAPU32[out >> 2];
    } finally {
      s.done();
    }
  }
  /** FNV-1a 64 of the rig's settings (a BigInt): equal descs, equal digests, here and natively. */
  get settingsDigest() {
    const s = new Scratch(this._M);
    try {
      const out = s.alloc(8);
      this.engine._check(this._M._cw_rig_settings_digest(this.engine._p(), this.id, out), 'crowd_rig_settings_digest');
      return (BigInt(this._M.HEAPU32[(out >> 2) + 1]) << 32n) | BigInt(this._M.HEAPU32[out >> 2]);
    } finally {
      s.done();
    }
  }
  /** Makes room for `capacity` instances (one allocation instead of doublings). */
  reserve(capacity) {
    this.engine._check(this._M._cw_reserve(this.engine._p(), this.id, integer(capacity, 'capacity')), 'crowd_reserve');
  }
  /** Adds count instances: { blinkStart: "random" | "cubism", harmonicPhase: "zero" | "random" }. */
  add(count, { blinkStart = 'random', harmonicPhase = 'zero' } = {}) {
    const crowd = this.engine.crowd;
    integer(count, 'count');
    const bs = crowd._enum(BlinkStart, blinkStart, 'blinkStart');
    const hp = crowd._enum(HarmonicPhase, harmonicPhase, 'harmonicPhase');
    const handles = new Instances(crowd, count);
    try {
      this.engine._check(this._M._cw_instances_add(this.engine._p(), this.id, count, bs, hp, handles.ptr), 'crowd_instances_add');
    } catch (e) {
      handles.free();
      throw e;
    }
    return handles;
  }
  /** The handles of the rig's rows, in storage order (a copy). */
  handles() {
    const s = new Scratch(this._M);
    try {
      const out = s.alloc(8);
      this.engine._check(this._M._cw_rig_handles(this.engine._p(), this.id, out, out + 4), 'crowd_rig_handles');
      const ptr = this._M.HEAPU32[out >> 2], count = this._M.HEAPU32[(out >> 2) + 1];
      const h = new Instances(this.engine.crowd, count);
      this._M.HEAPU8.copyWithin(h.ptr, ptr, ptr + count * HANDLE_BYTES);
      return h;
    } finally {
      s.done();
    }
  }
  _column(field, index, component) {
    const crowd = this.engine.crowd;
    const f = crowd._enum(crowd.Field, field, 'field');
    integer(index, 'index');
    integer(component, 'component');
    const s = new Scratch(this._M);
    try {
      const out = s.alloc(8);
      this.engine._check(this._M._cw_rig_column(this.engine._p(), this.id, f, index, component, out, out + 4), 'crowd_rig_column');
      return { ptr: this._M.HEAPU32[out >> 2], count: this._M.HEAPU32[(out >> 2) + 1] };
    } finally {
      s.done();
    }
  }
  /**
   * One component of a field for every row (storage order), as a Float32Array on the module's
   * memory: no copy; reading, and writing a writable field between ticks, goes straight to the
   * engine (what is written this way is not checked). Stale after memory growth or moved rows.
   */
  column(field, index = 0, component = 0) {
    const { ptr, count } = this._column(field, index, component);
    return new Float32Array(this._M.HEAPF32.buffer, ptr, count);
  }
  /** A Column whose `.array` is always the current view (the refresh pattern). */
  columnView(field, index = 0, component = 0) {
    this._column(field, index, component); // checks the arguments now
    return new Column(this, field, index, component);
  }
}

export class DefaultCrowd {
  constructor(crowd, first, count, simd, threads = 1) {
    this.crowd = crowd;
    const M = crowd.module;
    const s = new Scratch(M);
    try {
      const out = s.alloc(4);
      const st = M._cw_default_create_threads(integer(first, 'first'), integer(count, 'count'), crowd._enum(crowd.Simd, simd, 'simd'),
        integer(threads, 'threads', 1, 256), out);
      if (st !== 0) {
        const e = new CrowdError(st === 2 ? Result.RANGE : Result.OUT_OF_MEMORY, crowd._toolMessage() || 'defaultCrowd failed');
        throw e;
      }
      this.ptr = M.HEAPU32[out >> 2];
    } finally {
      s.done();
    }
    this.engine = new Engine(crowd, {}, M._cw_default_engine(this.ptr));
    this.rig = new Rig(this.engine, M._cw_default_rig(this.ptr));
    /** The run's frame count (600) and dt (1/60 in float32). */
    this.frames = M._cw_default_frames(this.ptr);
    this.dt = M._cw_default_dt(this.ptr);
    this.frame = 0;
  }
  _p() {
    if (!this.ptr) throw new CrowdError(Result.NULL, 'the default crowd was destroyed');
    return this.ptr;
  }
  /** Before tick k (1, 2, ...): the gaze keys and walk rows in effect at (k - 1) * dt. */
  prepare(k, dt = this.dt) {
    this.crowd.module._cw_default_prepare(this._p(), integer(k, 'k'), dt);
  }
  /** Prepares and ticks the next frame; returns the tick's milliseconds. */
  step(dt = this.dt) {
    this.prepare(this.frame + 1, dt);
    this.frame++;
    const t0 = performance.now();
    this.engine.tick(dt);
    return performance.now() - t0;
  }
  /** The run checksum of the outputs now ("0x" and 16 hex digits), as `crowd run` prints it. */
  checksum() {
    const M = this.crowd.module;
    const s = new Scratch(M);
    try {
      const out = s.alloc(8);
      M._cw_default_checksum(this._p(), out);
      const v = (BigInt(M.HEAPU32[(out >> 2) + 1]) << 32n) | BigInt(M.HEAPU32[out >> 2]);
      return '0x' + v.toString(16).padStart(16, '0');
    } finally {
      s.done();
    }
  }
  destroy() {
    if (this.ptr) this.crowd.module._cw_default_destroy(this.ptr);
    this.ptr = 0;
    this.engine.ptr = 0;
  }
}

// ---- Live2D Cubism files, as the module has no file system: the page fetches each file and
// passes the parsed JSON. The readers check what the native readers (the io library's Live2D
// readers) check, and a bad file throws a CrowdError (code RANGE) whose message and `path` name
// the file, the JSON path and the value: "Haru.pose3.json: Groups[1][0].Id: is empty, want an id".

const CUBISM_MAX_ID_BYTES = 1024;
function jsonType(v) {
  if (v === undefined) return 'missing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') return Number.isFinite(v) ? 'a number' : String(v);
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}
function shown(v) {
  let s;
  try {
    s = typeof v === 'number' && !Number.isFinite(v) ? String(v) : JSON.stringify(v);
  } catch {
    s = String(v);
  }
  return s === undefined ? 'nothing' : s.length > 60 ? `${s.slice(0, 57)}...` : s;
}
class Live2DReader {
  constructor(file) {
    this.file = file;
  }
  fail(path, what) {
    const e = new CrowdError(Result.RANGE, `${this.file}: ${path ? `${path}: ` : ''}${what}`);
    e.path = path;
    e.file = this.file;
    throw e;
  }
  object(v, path) {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) this.fail(path, `is ${jsonType(v)}, want an object`);
    return v;
  }
  array(v, path, max, optional = false) {
    if (v === undefined && optional) return [];
    if (!Array.isArray(v)) this.fail(path, `is ${jsonType(v)}, want an array`);
    if (v.length > max) this.fail(path, `${v.length} entries, at most ${max}`);
    return v;
  }
  number(v, path, lo = -Infinity, hi = Infinity, dflt = undefined) {
    if (v === undefined && dflt !== undefined) return dflt;
    if (typeof v !== 'number') this.fail(path, `is ${jsonType(v)}, want a number`);
    if (!Number.isFinite(v)) this.fail(path, `${v} is not finite`);
    if (v < lo || v > hi) this.fail(path, `${shown(v)}, want a number in [${lo}, ${hi}]`);
    return v;
  }
  bool(v, path, dflt) {
    if (v === undefined) return dflt;
    if (typeof v !== 'boolean') this.fail(path, `is ${jsonType(v)}, want true or false`);
    return v;
  }
  id(v, path) {
    if (typeof v !== 'string') this.fail(path, `is ${jsonType(v)}, want a string`);
    if (!v.length) this.fail(path, 'is empty, want an id');
    if (v.includes('\0')) this.fail(path, 'contains a NUL character');
    if (new TextEncoder().encode(v).length > CUBISM_MAX_ID_BYTES) this.fail(path, `is longer than ${CUBISM_MAX_ID_BYTES} bytes`);
    return v;
  }
  count(v, path, actual, optional) {
    if (v === undefined && optional) return;
    if (v === undefined) this.fail(path, `missing, want the count (${actual})`);
    if (!Number.isInteger(v)) this.fail(path, `is ${jsonType(v)} ${shown(v)}, want an integer`);
    if (v !== actual) this.fail(path, `${v}, but the file holds ${actual}`);
  }
}

const MOTION_TARGETS = ['Model', 'Parameter', 'PartOpacity'];
/**
 * A parsed .motion3.json as the engine's clip (crowd_motion_clip's layout): { duration, fps,
 * restricted, fadeIn, fadeOut (Meta's, 1 when absent or < 0), curves: [{ id, target, fadeIn,
 * fadeOut, first, count }], segmentTypes, segmentPoints, points (time, value pairs), eventTimes,
 * eventValues }. `name` names it in messages.
 */
export function readMotion3(json, name = 'motion3.json') {
  const r = new Live2DReader(name);
  r.object(json, '(root)');
  const meta = r.object(json.Meta, 'Meta');
  const duration = r.number(meta.Duration, 'Meta.Duration');
  if (!(duration > 0)) r.fail('Meta.Duration', `${duration}, want > 0`);
  const fps = r.number(meta.Fps, 'Meta.Fps');
  if (!(fps > 0)) r.fail('Meta.Fps', `${fps}, want > 0`);
  r.bool(meta.Loop, 'Meta.Loop', false);
  const restricted = r.bool(meta.AreBeziersRestricted, 'Meta.AreBeziersRestricted', false);
  let fadeIn = r.number(meta.FadeInTime, 'Meta.FadeInTime', -Infinity, Infinity, 1);
  let fadeOut = r.number(meta.FadeOutTime, 'Meta.FadeOutTime', -Infinity, Infinity, 1);
  if (fadeIn < 0) fadeIn = 1; // the framework's rule
  if (fadeOut < 0) fadeOut = 1;
  const curvesIn = r.array(json.Curves, 'Curves', 65536);
  const user = r.array(json.UserData, 'UserData', 65536, true);
  const curves = [], types = [], firsts = [], points = [];
  let lastTarget = 0;
  curvesIn.forEach((c, k) => {
    const at = `Curves[${k}]`;
    r.object(c, at);
    const t = typeof c.Target === 'string' ? MOTION_TARGETS.indexOf(c.Target) : -1;
    if (t < 0)
      r.fail(`${at}.Target`, typeof c.Target === 'string' ? `"${c.Target}", want "Model", "Parameter" or "PartOpacity"` : `${jsonType(c.Target)}, want a string`);
    // the framework plays Model, then Parameter, then PartOpacity curves: one out of order never plays
    if (t < lastTarget) r.fail(`${at}.Target`, `"${MOTION_TARGETS[t]}" after a "${MOTION_TARGETS[lastTarget]}" curve; curves must come Model, Parameter, PartOpacity`);
    lastTarget = t;
    const id = r.id(c.Id, `${at}.Id`);
    const fi = r.number(c.FadeInTime, `${at}.FadeInTime`, -Infinity, Infinity, -1);
    const fo = r.number(c.FadeOutTime, `${at}.FadeOutTime`, -Infinity, Infinity, -1);
    const path = `${at}.Segments`;
    const s = r.array(c.Segments, path, 7 * (1 << 24));
    if (s.length < 2) r.fail(path, `${s.length} numbers, want a first point (time, value) and at least one segment`);
    s.forEach((v, i) => r.number(v, `${path}[${i}]`));
    if (s.length === 2) r.fail(path, 'only a first point, want at least one segment');
    const first = types.length;
    points.push(s[0], s[1]);
    let last = s[0];
    for (let pos = 2; pos < s.length;) {
      const type = s[pos];
      if (type !== 0 && type !== 1 && type !== 2 && type !== 3)
        r.fail(`${path}[${pos}]`, `segment type ${type}, want 0 (linear), 1 (bezier), 2 (stepped) or 3 (inverse stepped)`);
      const n = type === 1 ? 3 : 1;
      if (s.length - pos - 1 < 2 * n) r.fail(`${path}[${pos}]`, `a segment of type ${type} needs ${2 * n} numbers after it, the array has ${s.length - pos - 1}`);
      const end = s[pos + 2 * n - 1];
      if (end < last) r.fail(`${path}[${pos + 2 * n - 1}]`, `time ${end} comes before the previous point at ${last}`);
      last = end;
      types.push(type);
      firsts.push(points.length / 2 - 1); // shares the previous segment's last point
      for (let q = 0; q < n; q++) points.push(s[pos + 1 + 2 * q], s[pos + 2 + 2 * q]);
      pos += 1 + 2 * n;
    }
    if (types.length > 1 << 22 || points.length / 2 > 1 << 24) r.fail(path, 'the motion holds more than 4194304 segments or 16777216 points');
    curves.push({ id, target: t, fadeIn: fi, fadeOut: fo, first, count: types.length - first });
  });
  const eventTimes = [], eventValues = [];
  user.forEach((e, k) => {
    r.object(e, `UserData[${k}]`);
    eventTimes.push(r.number(e.Time, `UserData[${k}].Time`));
    if (typeof e.Value !== 'string') r.fail(`UserData[${k}].Value`, `${jsonType(e.Value)}, want a string`);
    eventValues.push(e.Value);
  });
  r.count(meta.CurveCount, 'Meta.CurveCount', curves.length, false);
  r.count(meta.TotalSegmentCount, 'Meta.TotalSegmentCount', types.length, false);
  r.count(meta.TotalPointCount, 'Meta.TotalPointCount', points.length / 2, false);
  r.count(meta.UserDataCount, 'Meta.UserDataCount', eventTimes.length, true);
  return { duration, fps, restricted, fadeIn, fadeOut, curves, segmentTypes: Uint8Array.from(types),
    segmentPoints: Uint32Array.from(firsts), points: Float64Array.from(points), eventTimes: Float64Array.from(eventTimes), eventValues };
}

const EXPRESSION_BLENDS = ['Add', 'Multiply', 'Overwrite'];
/** A parsed .exp3.json: { fadeIn, fadeOut (1 when absent), parameters: [{ id, value, blend }] }. */
export function readExp3(json, name = 'exp3.json') {
  const r = new Live2DReader(name);
  r.object(json, '(root)');
  const fadeIn = r.number(json.FadeInTime, 'FadeInTime', 0, Infinity, 1);
  const fadeOut = r.number(json.FadeOutTime, 'FadeOutTime', 0, Infinity, 1);
  const parameters = r.array(json.Parameters, 'Parameters', 65536).map((p, k) => {
    const at = `Parameters[${k}]`;
    r.object(p, at);
    const id = r.id(p.Id, `${at}.Id`);
    const value = r.number(p.Value, `${at}.Value`);
    const blend = p.Blend === undefined ? 0 : EXPRESSION_BLENDS.indexOf(p.Blend);
    if (blend < 0)
      r.fail(`${at}.Blend`, typeof p.Blend === 'string' ? `"${p.Blend}", want "Add", "Multiply" or "Overwrite"` : `is ${jsonType(p.Blend)}, want a string`);
    return { id, value, blend };
  });
  return { fadeIn, fadeOut, parameters };
}

/** A parsed .pose3.json: { fadeIn (0.5 when absent or <= 0), groups: [[{ id, links }]] }. */
export function readPose3(json, name = 'pose3.json') {
  const r = new Live2DReader(name);
  r.object(json, '(root)');
  let fadeIn = r.number(json.FadeInTime, 'FadeInTime', -Infinity, Infinity, 0.5);
  if (fadeIn <= 0) fadeIn = 0.5; // the framework's rule
  let parts = 0, links = 0;
  const groups = r.array(json.Groups, 'Groups', 65536).map((g, i) => {
    r.array(g, `Groups[${i}]`, 65536);
    if (!g.length) r.fail(`Groups[${i}]`, 'empty, want at least one part');
    return g.map((p, k) => {
      const at = `Groups[${i}][${k}]`;
      r.object(p, at);
      const id = r.id(p.Id, `${at}.Id`);
      const l = r.array(p.Link, `${at}.Link`, 65536, true).map((v, n) => r.id(v, `${at}.Link[${n}]`));
      parts++;
      links += l.length;
      if (parts > 65536 || links > 65536) r.fail('Groups', 'more than 65536 parts or links');
      return { id, links: l };
    });
  });
  return { fadeIn, groups };
}

/**
 * A parsed .physics3.json: { fps (Meta.Fps, 0 when absent), subrigs: [{ position: [min,
 * default, max], angle: [...], inputs: [{ id, weight, type, reflect }], outputs: [{ id, vertex,
 * scale, weight, type, reflect }], particles: [[mobility, delay, acceleration, radius, x, y]] }] }.
 */
export function readPhysics3(json, name = 'physics3.json') {
  const r = new Live2DReader(name);
  r.object(json, '(root)');
  const meta = r.object(json.Meta, 'Meta');
  const settings = r.array(json.PhysicsSettings, 'PhysicsSettings', 1024);
  const type = (v, at) => {
    const t = ['X', 'Y', 'Angle'].indexOf(v);
    if (t < 0) r.fail(`${at}.Type`, `expected "X", "Y" or "Angle", found ${shown(v)}`);
    return t;
  };
  const target = (o, at) => {
    r.object(o, at);
    if (o.Target !== undefined && o.Target !== 'Parameter') r.fail(`${at}.Target`, `expected "Parameter" (the only target the framework knows), found ${shown(o.Target)}`);
    if (typeof o.Id !== 'string' || !o.Id) r.fail(`${at}.Id`, `expected a non-empty parameter id, found ${shown(o.Id)}`);
    return o.Id;
  };
  const range = (o, at) => {
    r.object(o, at);
    const v = [r.number(o.Minimum, `${at}.Minimum`), r.number(o.Default, `${at}.Default`), r.number(o.Maximum, `${at}.Maximum`)];
    if (v[0] > v[2]) r.fail(at, `Minimum ${v[0]} is above Maximum ${v[2]}`);
    return v;
  };
  let ni = 0, no = 0, np = 0;
  settings.forEach((s, k) => {
    const at = `PhysicsSettings[${k}]`;
    r.object(s, at);
    ni += r.array(s.Input, `${at}.Input`, 64).length;
    no += r.array(s.Output, `${at}.Output`, 64).length;
    np += r.array(s.Vertices, `${at}.Vertices`, 64).length;
  });
  const fps = meta.Fps === undefined ? 0 : r.number(meta.Fps, 'Meta.Fps', 0, 1000);
  r.count(meta.PhysicsSettingCount, 'Meta.PhysicsSettingCount', settings.length, true);
  r.count(meta.TotalInputCount, 'Meta.TotalInputCount', ni, true);
  r.count(meta.TotalOutputCount, 'Meta.TotalOutputCount', no, true);
  r.count(meta.VertexCount, 'Meta.VertexCount', np, true);
  if (meta.EffectiveForces !== undefined) {
    r.object(meta.EffectiveForces, 'Meta.EffectiveForces');
    for (const f of ['Gravity', 'Wind']) {
      const v = meta.EffectiveForces[f];
      if (v === undefined) continue;
      r.object(v, `Meta.EffectiveForces.${f}`);
      r.number(v.X, `Meta.EffectiveForces.${f}.X`);
      r.number(v.Y, `Meta.EffectiveForces.${f}.Y`);
    }
  }
  const subrigs = settings.map((s, k) => {
    const at = `PhysicsSettings[${k}]`;
    const norm = r.object(s.Normalization, `${at}.Normalization`);
    const position = range(norm.Position, `${at}.Normalization.Position`);
    const angle = range(norm.Angle, `${at}.Normalization.Angle`);
    const inputs = s.Input.map((e, i) => {
      const p = `${at}.Input[${i}]`;
      r.object(e, p);
      return { id: target(e.Source, `${p}.Source`), weight: r.number(e.Weight, `${p}.Weight`, 0, 100), type: type(e.Type, p),
        reflect: r.bool(e.Reflect, `${p}.Reflect`, false) };
    });
    if (!s.Vertices.length) r.fail(`${at}.Vertices`, 'expected at least one vertex');
    const particles = s.Vertices.map((e, i) => {
      const p = `${at}.Vertices[${i}]`;
      r.object(e, p);
      const v = [r.number(e.Mobility, `${p}.Mobility`, 0), r.number(e.Delay, `${p}.Delay`, 0), r.number(e.Acceleration, `${p}.Acceleration`),
        // past the first particle, a radius of 0 makes the chain's direction 0/0
        r.number(e.Radius, `${p}.Radius`, i === 0 ? 0 : 2 ** -20)];
      r.object(e.Position, `${p}.Position`);
      v.push(r.number(e.Position.X, `${p}.Position.X`), r.number(e.Position.Y, `${p}.Position.Y`));
      return v;
    });
    const outputs = s.Output.map((e, i) => {
      const p = `${at}.Output[${i}]`;
      r.object(e, p);
      const id = target(e.Destination, `${p}.Destination`);
      const vertex = r.number(e.VertexIndex, `${p}.VertexIndex`, 1, particles.length - 1);
      if (!Number.isInteger(vertex)) r.fail(`${p}.VertexIndex`, `expected a whole vertex index, found ${vertex}`);
      return { id, vertex, scale: r.number(e.Scale, `${p}.Scale`), weight: r.number(e.Weight, `${p}.Weight`, 0, 100), type: type(e.Type, p),
        reflect: r.bool(e.Reflect, `${p}.Reflect`, false) };
    });
    return { position, angle, inputs, outputs, particles };
  });
  return { fps, subrigs };
}

/**
 * What a player needs of a parsed .model3.json: { motionGroups: [{ name, motions: [{ file,
 * fadeIn, fadeOut (-1 when absent), sound }] }], expressions: [{ name, file }], pose, physics
 * (file names or null), eyeBlink, lipSync (the Groups' parameter ids) }.
 */
export function readModel3(json, name = 'model3.json') {
  const r = new Live2DReader(name);
  r.object(json, '(root)');
  const refs = json.FileReferences === undefined ? {} : r.object(json.FileReferences, 'FileReferences');
  const motions = refs.Motions === undefined ? {} : r.object(refs.Motions, 'FileReferences.Motions');
  const file = (v, path) => (v === undefined ? null : r.id(v, path));
  const pose = file(refs.Pose, 'FileReferences.Pose');
  const physics = file(refs.Physics, 'FileReferences.Physics');
  const expressions = r.array(refs.Expressions, 'FileReferences.Expressions', 65536, true).map((e, k) => {
    const at = `FileReferences.Expressions[${k}]`;
    r.object(e, at);
    return { name: r.id(e.Name, `${at}.Name`), file: r.id(e.File, `${at}.File`) };
  });
  const groups = r.array(json.Groups, 'Groups', 65536, true);
  const ids = { EyeBlink: null, LipSync: null };
  groups.forEach((g, k) => {
    const at = `Groups[${k}]`;
    r.object(g, at);
    if (typeof g.Name !== 'string') r.fail(`${at}.Name`, `${jsonType(g.Name)}, want a string`);
    if (typeof g.Target !== 'string') r.fail(`${at}.Target`, `${jsonType(g.Target)}, want a string`);
    const list = r.array(g.Ids, `${at}.Ids`, 65536).map((v, n) => r.id(v, `${at}.Ids[${n}]`));
    if (g.Target === 'Parameter' && g.Name in ids && !ids[g.Name]) ids[g.Name] = list;
  });
  const motionGroups = Object.entries(motions).map(([group, list]) => {
    const at = `FileReferences.Motions.${group}`;
    return { name: group, motions: r.array(list, at, 65536).map((e, k) => {
      r.object(e, `${at}[${k}]`);
      return { file: r.id(e.File, `${at}[${k}].File`), fadeIn: r.number(e.FadeInTime, `${at}[${k}].FadeInTime`, -Infinity, Infinity, -1),
        fadeOut: r.number(e.FadeOutTime, `${at}[${k}].FadeOutTime`, -Infinity, Infinity, -1),
        sound: e.Sound === undefined ? null : r.id(e.Sound, `${at}[${k}].Sound`) };
    }) };
  });
  return { motionGroups, expressions, pose, physics, eyeBlink: ids.EyeBlink ?? [], lipSync: ids.LipSync ?? [] };
}

/** The JSON files a .model3.json names (motions, expressions, pose, physics), relative to its folder: what to fetch for rig(). */
export function live2dFiles(model3) {
  const m = readModel3(model3);
  return [...new Set([...m.motionGroups.flatMap((g) => g.motions.map((x) => x.file)), ...m.expressions.map((e) => e.file),
    ...(m.pose ? [m.pose] : []), ...(m.physics ? [m.physics] : [])])];
}
