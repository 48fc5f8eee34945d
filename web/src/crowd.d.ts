// Types of crowd-engine (crowd.js). Names follow crowd.h and the Python package.

export type SimdName = 'auto' | 'scalar' | 'wasm128' | 'sse2' | 'avx2' | 'avx512';
export type FieldName =
  | 'base' | 'look_target' | 'look_active' | 'look_center' | 'look_damping' | 'look_weight'
  | 'harmonic_weight' | 'blink_weight' | 'blink_manual' | 'harmonic_phase' | 'harmonic_range'
  | 'look_position' | 'look_velocity' | 'blink_opening' | 'blink_phase' | 'blink_clock' | 'blink_last'
  | 'pose' | 'root' | 'output' | 'bone_world' | 'bone_local';
export type BlendName = 'default' | 'override' | 'additive' | 'multiply';

export declare const RESULT_NAMES: readonly string[];
export declare const Result: Readonly<Record<string, number>>;
export declare const Blend: Readonly<Record<BlendName, number>>;
export declare const Axis: Readonly<{ x: 0; y: 1; z: 2 }>;
export declare const Direction: Readonly<{ centric: 0; left: 1; right: 2 }>;
export declare const BlinkModel: Readonly<{ sine: 0; timed: 1 }>;
export declare const PoseFrame: Readonly<{ mediapipe_world: 0; engine: 1 }>;
export declare const AxisFix: Readonly<{ y_along_bone: 0; z_along_bone: 1 }>;
export declare const Fallback: Readonly<{ stable: 0; root: 1; previous: 2 }>;
/** crowd_limb_outputs: the bone rotations a limbs rig stores (the other kind reads as CROWD_ERR_NOT_STORED). */
export declare const LimbOutputs: Readonly<{ both: 0; world: 1; local: 2 }>;
export declare const BlinkStart: Readonly<{ random: 0; cubism: 1 }>;
export declare const HarmonicPhase: Readonly<{ zero: 0; random: 1 }>;
export declare const LANDMARK_COUNT: 33;
export declare const POSE_FLOATS: 132;

/** An engine call failed. */
export declare class CrowdError extends Error {
  /** The crowd_result code. */
  code: number;
  /** Its name, e.g. "CROWD_ERR_RANGE". */
  codeName: string;
}
/** Landmarks that break a rule; `path` names the field, e.g. "worldLandmarks[0][4].z". */
export declare class LandmarkError extends Error {
  path: string;
}

/** One landmark as MediaPipe's JavaScript pose landmarker gives it. */
export interface Landmark {
  x: number;
  y: number;
  z: number;
  visibility?: number;
  presence?: number;
}
/** result.worldLandmarks, the result itself, or its JSON text. */
export type WorldLandmarksInput = Landmark[][] | { worldLandmarks: Landmark[][] } | { pose_world_landmarks: Landmark[][] } | string;
/** The first pose as 132 floats (x, y, z, visibility per landmark); null when none was detected. */
export declare function poseFromWorldLandmarks(input: WorldLandmarksInput): Float32Array | null;
export declare function readPose(pose: Landmark[], out: Float32Array, offset?: number, path?: string): Float32Array;

export interface ParameterDesc { id: string; min: number; max: number; default?: number; repeat?: boolean }
export interface LookDesc {
  parameters?: { id: string; axis?: keyof typeof Axis; factor?: number }[];
  damping?: number;
  max_speed?: number;
  blend?: BlendName;
}
export interface HarmonicDesc {
  parameters?: { id: string; channel?: number; direction?: keyof typeof Direction; origin?: number; range?: number; duration?: number }[];
  channel_timescales?: number[];
  blend?: BlendName;
}
export interface BlinkDesc {
  parameters?: string[];
  model?: keyof typeof BlinkModel;
  blend?: BlendName;
  mean?: number;
  max_deviation?: number;
  timescale?: number;
}
export interface LimbsDesc {
  frame?: keyof typeof PoseFrame;
  axis_fix?: keyof typeof AxisFix;
  fallback?: keyof typeof Fallback;
  visibility_threshold?: number;
  hold_half_life?: number;
  reacquire_half_life?: number;
  bend_min?: number;
  bend_full?: number;
  /** Degrees (default 15): an arm bent this much in the image plane keeps its own bend sign. */
  arm_image_bend?: number;
  smoothing?: boolean;
  min_cutoff?: number;
  beta?: number;
  d_cutoff?: number;
  /** Which bone rotations are stored (default both). */
  outputs?: keyof typeof LimbOutputs;
}
/** A controller is present when its key is; unset settings take crowd.h's defaults. */
export interface RigDesc {
  name?: string;
  parameters?: ParameterDesc[];
  look?: LookDesc;
  harmonic?: HarmonicDesc;
  blink?: BlinkDesc;
  limbs?: LimbsDesc;
}

export interface LoadOptions {
  /** The .wasm bytes (Node); a page fetches crowd_wasm.wasm next to crowd.js. */
  wasmBinary?: ArrayBuffer | Uint8Array;
  locateFile?: (path: string, prefix: string) => string;
  print?: (line: string) => void;
}
export declare function loadCrowd(options?: LoadOptions): Promise<Crowd>;

export declare class Crowd {
  /** The emscripten module (HEAPF32 and the exported C functions). */
  readonly module: any;
  readonly Field: Readonly<Record<FieldName, number>>;
  readonly Simd: Readonly<Record<string, number>>;
  resultText(code: number): string;
  simdSupported(simd: SimdName | number): boolean;
  simdWidth(simd: SimdName | number): number;
  fieldWidth(field: FieldName | number): number;
  restLandmarks(frame?: keyof typeof PoseFrame): Float32Array;
  engine(options?: { seed?: number; simd?: SimdName; initialCapacity?: number }): Engine;
  /** Instances first .. first + count - 1 of the default crowd (10,000 walking avatars). */
  defaultCrowd(options?: { first?: number; count?: number; simd?: SimdName }): DefaultCrowd;
}

/** Handles in the module's memory. */
export declare class Instances {
  readonly count: number;
  readonly ptr: number;
  readonly ids: BigUint64Array;
  slice(start: number, end?: number): Instances;
  free(): void;
}

/** A column that re-fetches its view when the memory grew or the rows moved. */
export declare class Column {
  readonly array: Float32Array;
}

export declare class Engine {
  readonly simd: string;
  readonly simdWidth: number;
  readonly lastError: string;
  rig(desc: RigDesc): Rig;
  tick(dt: number): void;
  tickRange(dt: number, rig: Rig, first: number, count: number): void;
  set(field: FieldName, instances: Instances, values: ArrayLike<number>, index?: number): void;
  get(field: FieldName, instances: Instances, index?: number): Float32Array;
  /** Every instance gets the first pose; an empty list keeps the landmarks with visibility 0. */
  setPoseFromWorldLandmarks(instances: Instances, worldLandmarks: WorldLandmarksInput): boolean;
  remove(instances: Instances): void;
  outputs(instance: Instances, rig: Rig): Float32Array;
  destroy(): void;
}

export declare class Rig {
  readonly engine: Engine;
  readonly id: number;
  readonly parameterCount: number;
  readonly instanceCount: number;
  readonly runningCount: number;
  parameterIndex(id: string): number;
  reserve(capacity: number): void;
  add(count: number, options?: { blinkStart?: keyof typeof BlinkStart; harmonicPhase?: keyof typeof HarmonicPhase }): Instances;
  handles(): Instances;
  /** Zero-copy; stale after memory growth or moved rows (fetch again, or use columnView). */
  column(field: FieldName, index?: number, component?: number): Float32Array;
  columnView(field: FieldName, index?: number, component?: number): Column;
}

export declare class DefaultCrowd {
  readonly engine: Engine;
  readonly rig: Rig;
  readonly frames: number;
  readonly dt: number;
  readonly frame: number;
  prepare(k: number, dt?: number): void;
  /** Prepares and ticks the next frame; the tick's milliseconds. */
  step(dt?: number): number;
  /** "0x" and 16 hex digits, as `crowd run` prints it. */
  checksum(): string;
  destroy(): void;
}
