// Types of crowd-engine (crowd.js). Names follow crowd.h and the Python package.

// crowd.h's enums and constants: generated from the header (crowd_enums.d.ts), re-exported.
import type { SimdName, AxisName, DirectionName, PoseFrameName,
  BlinkStartName, HarmonicPhaseName, FaceSourceName, FaceCurveName, BoneName,
  Field, LimbFallback, LookSettings, HarmonicSettings, BlinkSettings, LimbsSettings, FaceSettings } from './crowd_enums.js';
export * from './crowd_enums.js';

export type FieldName = keyof typeof Field;
/** crowd_result codes by short name (Result.RANGE, Result.OUT_OF_MEMORY). */
export declare const Result: Readonly<Record<string, number>>;
/** crowd_limb_fallback by the name the package has always exported. */
export declare const Fallback: typeof LimbFallback;
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
// Each controller's settings are crowd.h's (generated: LookSettings, ...); its entries are here.
export interface LookDesc extends LookSettings {
  parameters?: { id: string; axis?: AxisName; factor?: number }[];
}
export interface HarmonicDesc extends HarmonicSettings {
  parameters?: { id: string; channel?: number; direction?: DirectionName; origin?: number; range?: number; duration?: number }[];
  channel_timescales?: number[];
}
export interface BlinkDesc extends BlinkSettings {
  parameters?: string[];
}
export type LimbsDesc = LimbsSettings;
/** A face source: its enum name ("jaw_open") or MediaPipe's categoryName ("jawOpen"), or its number. */
export type FaceSourceInput = FaceSourceName | string | number;
export interface FaceMappingDesc {
  source: FaceSourceInput;
  id: string;
  gain?: number;
  offset?: number;
  curve?: FaceCurveName;
}
export interface FaceDesc extends Omit<FaceSettings, 'smoothed_sources'> {
  /** Default: the standard mapping (crowd_face_standard_mapping). */
  mapping?: FaceMappingDesc[];
  /** The sources the One Euro filter smooths, or their bit mask. */
  smoothed_sources?: FaceSourceInput[] | number | bigint;
}
/** A controller is present when its key is; unset settings take crowd.h's defaults. */
export interface RigDesc {
  name?: string;
  parameters?: ParameterDesc[];
  look?: LookDesc;
  harmonic?: HarmonicDesc;
  blink?: BlinkDesc;
  limbs?: LimbsDesc;
  face?: FaceDesc;
}

export interface LoadOptions {
  /** The .wasm bytes; by default a page fetches, and Node reads, crowd_wasm.wasm next to crowd.js. */
  wasmBinary?: ArrayBuffer | Uint8Array;
  locateFile?: (path: string, prefix: string) => string;
  print?: (line: string) => void;
  /** Load crowd_wasm_mt (the module with threads; a cross-origin isolated page only). */
  threads?: boolean;
}
export declare function loadCrowd(options?: LoadOptions): Promise<Crowd>;
/** SharedArrayBuffer is there and the page is cross-origin isolated (the threaded module loads). */
export declare function threadsAvailable(): boolean;

export declare class Crowd {
  /** The emscripten module (HEAPF32 and the exported C functions). */
  readonly module: any;
  readonly Field: Readonly<Record<FieldName, number>>;
  readonly Simd: Readonly<Record<string, number>>;
  /** Face sources by enum name and by MediaPipe's name. */
  readonly FaceSource: Readonly<Record<string, number>>;
  boneName(bone: BoneName | number): string | null;
  faceSourceName(source: FaceSourceInput): string | null;
  /** x, y, z, w of MediaPipe's facial transformation matrix (16 numbers, or its { data }). */
  faceRotationFromMatrix(matrix: ArrayLike<number> | { data: ArrayLike<number> }): Float32Array;
  /** crowd_lipsync_rms: the lip sync level of `frames` frames (default: every whole one) of `channels` interleaved samples. */
  lipsyncRms(samples: ArrayLike<number>, frames?: number, channels?: number): number;
  resultText(code: number): string;
  simdSupported(simd: SimdName | number): boolean;
  simdWidth(simd: SimdName | number): number;
  fieldWidth(field: FieldName | number): number;
  restLandmarks(frame?: PoseFrameName): Float32Array;
  engine(options?: { seed?: number; simd?: SimdName; initialCapacity?: number }): Engine;
  /** Instances first .. first + count - 1 of the default crowd (10,000 walking avatars). */
  defaultCrowd(options?: { first?: number; count?: number; simd?: SimdName; threads?: number }): DefaultCrowd;
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
  readonly threads: number;
  rig(desc: RigDesc): Rig;
  pause(instances: Instances, paused?: boolean): void;
  resume(instances: Instances): void;
  paused(instance: Instances): boolean;
  blinkNow(instances: Instances): void;
  random(instance: Instances, count?: number): Float32Array;
  /** The whole state as bytes (a native engine loads them too). */
  snapshot(): Uint8Array;
  load(bytes: Uint8Array): void;
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
  readonly bytesPerInstance: number;
  readonly settingsDigest: bigint;
  parameterIndex(id: string): number;
  restPose(): { world: Float32Array; local: Float32Array };
  reserve(capacity: number): void;
  add(count: number, options?: { blinkStart?: BlinkStartName; harmonicPhase?: HarmonicPhaseName }): Instances;
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
