// Types of crowd-engine (crowd.js). Names follow crowd.h and the Python package.

// crowd.h's enums and constants: generated from the header (crowd_enums.d.ts), re-exported.
import type { SimdName, AxisName, DirectionName, PoseFrameName,
  BlinkStartName, HarmonicPhaseName, FaceSourceName, FaceCurveName, BoneName,
  Field, LimbFallback, LookSettings, HarmonicSettings, BlinkSettings, LimbsSettings, FaceSettings,
  PhysicsSettings, LipsyncSettings, PoseSettings, ExpressionSettings, FingersSettings, MotionSettings,
  HandName, HandBoneName, MotionPriorityName, ControllerName, LodIntervalName } from './crowd_enums.js';
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

// crowd.h's desc entries and the controllers' array fields: generated from the header
// (crowd_descs.d.ts, bindings/generate.py's JS_DESCS), re-exported.
import type { ParameterDesc, FaceSourceInput,
  LookArrays, HarmonicArrays, BlinkArrays, FaceArrays, LipsyncArrays, FingersArrays, MotionArrays,
  MotionClipFades, LodDesc, RigControllers } from './crowd_descs.js';
export * from './crowd_descs.js';
// Each controller's settings are crowd.h's (generated: LookSettings, ...), its arrays too (LookArrays, ...).
export interface LookDesc extends LookSettings, LookArrays {}
export interface HarmonicDesc extends HarmonicSettings, HarmonicArrays {}
export interface BlinkDesc extends BlinkSettings, BlinkArrays {}
export type LimbsDesc = LimbsSettings;
// FaceArrays takes a setting in its JavaScript shape too (smoothed_sources: names or a mask).
export interface FaceDesc extends Omit<FaceSettings, keyof FaceArrays>, FaceArrays {}
/** A parsed Cubism JSON file (.model3.json, .motion3.json, .exp3.json, .pose3.json, .physics3.json). */
export type CubismJson = Record<string, unknown>;
// The keys below that name no crowd.h desc field are hand-written here: model3, files, json and
// list (parsed Cubism JSON the module reads into the C descs); the rest is generated.
/**
 * The Live2D controllers take parsed JSON: their own (`json`, `list`, `clips`), or a model3
 * (theirs or the rig desc's `model3`) whose FileReferences name files held in `files`
 * ({ [the name as the model3 writes it]: parsed JSON }; live2dFiles(model3) lists them).
 */
export interface Model3Source {
  model3?: CubismJson;
  files?: Record<string, CubismJson>;
}
/** Physics from a .physics3.json; fps defaults to its Meta.Fps. */
export interface PhysicsDesc extends PhysicsSettings, Model3Source {
  json?: CubismJson;
}
/** Lip sync onto `parameters` (default: the model3's LipSync group, the ids the rig has). */
export interface LipsyncDesc extends LipsyncSettings, Model3Source, LipsyncArrays {}
/** A pose from a .pose3.json; fade_in defaults to its FadeInTime. */
export interface PoseDesc extends PoseSettings, Model3Source {
  json?: CubismJson;
}
/** An expression library: .exp3.json files in a list (named by index) or by name, else the model3's. */
export interface ExpressionsDesc extends ExpressionSettings, Model3Source {
  list?: CubismJson[] | Record<string, CubismJson>;
}
/** One clip: a .motion3.json, or it with the fades to play with (model3's FadeInTime / FadeOutTime). */
export type MotionClipInput = CubismJson | ({ json: CubismJson } & MotionClipFades);
/**
 * A motion library: `clips`, else the model3's Motions groups in order (rig.motionGroups). The
 * EyeBlink and LipSync ids default to the model3's groups; `idle` is a group name or clip indices.
 */
export interface MotionsDesc extends MotionSettings, Model3Source, MotionArrays {}
/** Fingers (crowd.h 9a): custom_fix and bind_rotations 32 quaternions (128 numbers), bind_landmarks 128 numbers. */
export interface FingersDesc extends FingersSettings, FingersArrays {}
/** A controller is present when its key is; unset settings take crowd.h's defaults. Its name,
 * parameters and controllers are crowd_rig_desc's (generated: RigControllers); the keys below
 * are the JavaScript API's own. */
export interface RigDesc extends RigControllers {
  /** The model3 the Live2D controllers take their files from, unless they name their own. */
  model3?: CubismJson;
  files?: Record<string, CubismJson>;
  /** Level of detail (crowd.h 8a): a new instance's interval in ticks, and the controllers that run every tick. */
  lod?: LodDesc;
}

/** The JSON files a .model3.json names (motions, expressions, pose, physics), relative to its folder. */
export declare function live2dFiles(model3: CubismJson): string[];
/** The Cubism readers rig() uses; a bad file throws a CrowdError whose `path` names the JSON path. */
export declare function readMotion3(json: CubismJson, name?: string): {
  duration: number; fps: number; restricted: boolean; fadeIn: number; fadeOut: number;
  curves: { id: string; target: number; fadeIn: number; fadeOut: number; first: number; count: number }[];
  segmentTypes: Uint8Array; segmentPoints: Uint32Array; points: Float64Array; eventTimes: Float64Array; eventValues: string[];
};
export declare function readExp3(json: CubismJson, name?: string): {
  fadeIn: number; fadeOut: number; parameters: { id: string; value: number; blend: number }[];
};
export declare function readPose3(json: CubismJson, name?: string): { fadeIn: number; groups: { id: string; links: string[] }[][] };
export declare function readPhysics3(json: CubismJson, name?: string): {
  fps: number;
  subrigs: { position: number[]; angle: number[]; inputs: { id: string; weight: number; type: number; reflect: boolean }[];
    outputs: { id: string; vertex: number; scale: number; weight: number; type: number; reflect: boolean }[]; particles: number[][] }[];
};
export declare function readModel3(json: CubismJson, name?: string): {
  motionGroups: { name: string; motions: { file: string; fadeIn: number; fadeOut: number; sound: string | null }[] }[];
  expressions: { name: string; file: string }[]; pose: string | null; physics: string | null; eyeBlink: string[]; lipSync: string[];
};

/** MediaPipe's JavaScript HandLandmarker result, or HolisticLandmarker's hands. */
export interface HandsResult {
  landmarks?: Landmark[][];
  worldLandmarks?: Landmark[][];
  handedness?: { categoryName: string; score?: number; displayName?: string; index?: number }[][];
  handednesses?: { categoryName: string; score?: number; displayName?: string; index?: number }[][];
  leftHandLandmarks?: Landmark[][] | Landmark[];
  rightHandLandmarks?: Landmark[][] | Landmark[];
  leftHandWorldLandmarks?: Landmark[][] | Landmark[];
  rightHandWorldLandmarks?: Landmark[][] | Landmark[];
}
export interface MotionStartOptions {
  priority?: MotionPriorityName;
  loop?: boolean;
  loopFadeIn?: boolean;
  /** < 0 (default): the clip's. */
  fadeIn?: number;
  fadeOut?: number;
  /** Seconds into the clip at its first tick. */
  offset?: number;
}
export interface MotionStatus {
  playing: number;
  clip: number;
  time: number;
  clock: number;
  current: MotionPriorityName;
  reserved: MotionPriorityName;
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
  /** The relaxed rest hand: 21 landmarks and presence 1 (64 floats). */
  restHandLandmarks(hand?: HandName, frame?: PoseFrameName): Float32Array;
  /** The slot of a hand MediaPipe labels "Left" or "Right". */
  handFromHandedness(label: 'Left' | 'Right', mirrored?: boolean): HandName;
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
  /** dt in double: the motion clocks advance by exactly dt. */
  tickExact(dt: number): void;
  tickRangeExact(dt: number, rig: Rig, first: number, count: number): void;
  /** 1 where the clip started (the reserve rule). */
  startMotion(instances: Instances, clip: number, options?: MotionStartOptions): Uint8Array;
  reserveMotion(instances: Instances, priority: MotionPriorityName): Uint8Array;
  motionStatus(instance: Instances): MotionStatus;
  /** The last tick's events: ints 4 per event (rig id, row, clip, event), times the motion clock. */
  motionEvents(ints: Int32Array, times: Float64Array | Float32Array): { count: number; lost: number };
  startExpression(instances: Instances, expression: number): void;
  /** Hands into hand_landmarks; the slots set. options.mirrored must be the rig's fingers.mirrored. */
  setHands(instances: Instances, result: HandsResult, options?: { mirrored?: boolean; aspect?: number }): HandName[];
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
  /** Clip indices by model3 motion group. */
  readonly motionGroups: Readonly<Record<string, number[]>>;
  /** motionEventValues[clip][event]: the UserData values. */
  readonly motionEventValues: readonly string[][];
  readonly expressionNames: readonly string[];
  readonly motionPseudoCount: number;
  motionPseudoIndex(id: string): number;
  /** 32 quaternions each (index hand * 16 + hand bone). */
  restHands(): { world: Float32Array; local: Float32Array };
  /** Zero-copy [x, y, z, w] views of one finger bone over the rig's rows. */
  fingerColumns(hand: HandName, bone: HandBoneName | number, space?: 'world' | 'local'): Float32Array[];
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
