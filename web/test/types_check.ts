// Compiled (not run) by types.test.mjs with tsc --strict against crowd.d.ts: the README's use
// of the package type-checks, and misuse is caught (each @ts-expect-error must be an error).
import { loadCrowd, poseFromWorldLandmarks, CrowdError, type Landmark } from 'crowd-engine';

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
  // @ts-expect-error: outputs are both, world or local
  engine.rig({ limbs: { outputs: 'all' } });
  return q.length + Number(digest & 1n) + bytes.length + view.length + (pose ? pose.length : 0) + ids.length + ms + sum.length + (detected ? 1 : 0);
}
