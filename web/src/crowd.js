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
import { poseFromWorldLandmarks, POSE_FLOATS } from './landmarks.js';

export { poseFromWorldLandmarks, readPose, LandmarkError, LANDMARK_COUNT, POSE_FLOATS } from './landmarks.js';

// crowd.h's enums (by lower-case name, as the Python package spells them) and constants are
// generated from the header (crowd_enums.js); Result is their code table by short upper-case
// name (Result.RANGE), from RESULT_NAMES.
import { RESULT_NAMES, SETTINGS, Axis, Direction, PoseFrame, LimbFallback, BlinkStart, HarmonicPhase, FaceSource,
  FaceCurve, Bone, BONE_COUNT, FACE_SOURCE_COUNT } from './crowd_enums.js';

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
   * enum name ("jaw_open") or MediaPipe's ("jawOpen"). A controller is present when its key is; unset settings take
   * crowd.h's defaults. The engine checks everything and names the field it refuses.
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
        oom(M._cw_rig_parameter(b, s.string(p.id), p.min ?? 0, p.max ?? 0, p.default ?? 0, p.repeat ? 1 : 0));
      });
      if (desc.look) {
        settings('look', desc.look);
        (desc.look.parameters ?? []).forEach((p, k) =>
          oom(M._cw_rig_look_parameter(b, s.string(String(p.id)), e(Axis, p.axis ?? 'x', `look.parameters[${k}].axis`), p.factor ?? 1)));
      }
      if (desc.harmonic) {
        settings('harmonic', desc.harmonic);
        for (const t of desc.harmonic.channel_timescales ?? [])
          if (M._cw_rig_harmonic_channel(b, t) !== 0)
            throw new CrowdError(Result.CAPACITY, 'harmonic.channel_timescales: more than 16 channels');
        (desc.harmonic.parameters ?? []).forEach((p, k) =>
          oom(M._cw_rig_harmonic_parameter(b, s.string(String(p.id)), integer(p.channel ?? 0, `harmonic.parameters[${k}].channel`),
            e(Direction, p.direction ?? 'centric', `harmonic.parameters[${k}].direction`),
            p.origin ?? 0.5, p.range ?? 0.5, p.duration ?? 3)));
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
              m.gain ?? 1, m.offset ?? 0, e(FaceCurve, m.curve ?? 'linear', `face.mapping[${k}].curve`)));
          });
        }
      }
      const out = s.alloc(4);
      this._check(M._cw_rig_create(this._p(), b, out), 'crowd_rig_create');
      return new Rig(this, M.HEAPU32[out >> 2]);
    } finally {
      M._cw_rig_free(b);
      s.done();
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
