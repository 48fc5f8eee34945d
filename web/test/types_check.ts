// Compiled (not run) by types.test.mjs with tsc --strict against crowd.d.ts: the README's use
// of the package type-checks, and misuse is caught (each @ts-expect-error must be an error).
import { loadCrowd, poseFromWorldLandmarks, CrowdError, live2dFiles, type Landmark, type MotionStatus,
  type HarmonicParameterDesc } from 'crowd-engine';

export async function use(worldLandmarks: Landmark[][]): Promise<number> {
  const crowd = await loadCrowd();
  const engine = crowd.engine({ seed: 42, simd: 'wasm128' });
  const rig = engine.rig({
    name: 'face',
    parameters: [{ id: 'ParamAngleX', min: -30, max: 30 }],
    look: { parameters: [{ id: 'ParamAngleX', axis: 'x', factor: 30 }], blend: 'additive' },
    limbs: { frame: 'mediapipe_world', smoothing: true },
  });
  const avatars = rig.add(10, { blinkStart: 'cubism' });
  const detected: boolean = engine.setPoseFromWorldLandmarks(avatars, worldLandmarks);
  engine.tick(1 / 60);
  const view: Float32Array = rig.columnView('output', 0).array;
  const pose: Float32Array | null = poseFromWorldLandmarks({ worldLandmarks });
  const ids: BigUint64Array = avatars.ids;
  const d = crowd.defaultCrowd({ count: 1000 });
  const ms: number = d.step();
  const sum: string = d.checksum();
  try {
    engine.tick(2);
  } catch (e) {
    if (e instanceof CrowdError) return e.code + e.codeName.length;
  }
  // @ts-expect-error: not a field
  rig.column('outputs', 0);
  // @ts-expect-error: not a blend
  engine.rig({ look: { blend: 'sideways' } });
  // @ts-expect-error: an axis is x, y or z
  engine.rig({ look: { parameters: [{ id: 'a', axis: 'w' }] } });
  engine.rig({ limbs: { outputs: 'local' } });
  // face tracking, with the generated enums' names and MediaPipe's
  const face = engine.rig({ face: { mapping: [{ source: 'jawOpen', id: 'a', curve: 'smoothstep' }], smoothed_sources: ['head_yaw'] } });
  const q: Float32Array = crowd.faceRotationFromMatrix(new Array(16).fill(0));
  const digest: bigint = face.settingsDigest;
  const bytes: Uint8Array = engine.snapshot();
  // @ts-expect-error: a face curve is linear or smoothstep
  engine.rig({ face: { mapping: [{ source: 'jawOpen', id: 'a', curve: 'cubic' }] } });
  // the generated desc entries (crowd_descs.d.ts): harmonic entries, arrays, the lip sync and fingers arrays
  const entry: HarmonicParameterDesc = { id: 'b', direction: 'left', duration: 2 };
  engine.rig({ harmonic: { parameters: [entry], channel_timescales: [1, 0.5] }, blink: { parameters: ['a'] },
    lipsync: { parameters: ['a'] }, fingers: { custom_fix: new Float32Array(128) } });
  // @ts-expect-error: a direction is centric, left or right
  engine.rig({ harmonic: { parameters: [{ id: 'b', direction: 'up' }] } });
  // @ts-expect-error: a parameter's min and max are required
  engine.rig({ parameters: [{ id: 'p', min: 0 }] });
  // @ts-expect-error: a face mapping entry names its parameter
  engine.rig({ face: { mapping: [{ source: 'jawOpen' }] } });
  // @ts-expect-error: outputs are both, world or local
  engine.rig({ limbs: { outputs: 'all' } });
  // Live2D from a model3 and its files, motions and their events, expressions, hands, level of detail
  const model3 = { FileReferences: { Motions: { Idle: [{ File: 'm.motion3.json' }] } } };
  const files: Record<string, Record<string, unknown>> = {};
  for (const f of live2dFiles(model3)) files[f] = {};
  const haru = engine.rig({ model3, files, motions: { idle: 'Idle', loop_idle: true }, lipsync: { weight: 0.8 }, pose: {},
    physics: { strength: 1 }, expressions: { list: { smile: {} } }, fingers: { mirrored: true }, lod: { interval: 4, every_tick: ['blink'] } });
  const started: Uint8Array = engine.startMotion(avatars, haru.motionGroups['Idle'][0], { priority: 'force', loop: true });
  const status: MotionStatus = engine.motionStatus(avatars);
  const events = engine.motionEvents(new Int32Array(64), new Float64Array(16));
  engine.startExpression(avatars, haru.expressionNames.indexOf('smile'));
  engine.tickExact(1 / 30);
  const slots: string[] = engine.setHands(avatars, { worldLandmarks: [], handedness: [] }, { mirrored: true });
  const finger: Float32Array[] = haru.fingerColumns('left', 'index_proximal', 'local');
  // @ts-expect-error: a priority is idle, normal or force
  engine.startMotion(avatars, 0, { priority: 'urgent' });
  // @ts-expect-error: an interval is 1, 2, 4 or 8 ticks
  engine.rig({ lod: { interval: 3 } });
  const live = started.length + status.playing + events.count + slots.length + finger.length;
  return live + q.length + Number(digest & 1n) + bytes.length + view.length + (pose ? pose.length : 0) + ids.length + ms + sum.length + (detected ? 1 : 0);
}
