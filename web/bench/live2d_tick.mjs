// A Live2D crowd through the npm package in Node: N instances of Haru (the Cubism sample's
// model3 and its files, parameter ranges from the golden traces' full case) with motions (the
// Idle group, started by the tick), expressions, pose, physics and lip sync, in CPU time so a
// loaded machine matters little: the rig built from the parsed JSON (once), and the frame
// (a lip sync level per instance, then the tick) on wasm128 and scalar.
//   node web/bench/live2d_tick.mjs [build-wasm/pkg] [N, default 10000] [frames, default 120] [shared data folder]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const pkg = path.resolve(process.argv[2] ?? 'build-wasm/pkg');
const n = Number(process.argv[3] ?? 10000), frames = Number(process.argv[4] ?? 120), warm = 20;
const cubism = path.join(path.resolve(process.argv[5] ?? path.join(here, '..', '..', '..', 'shared', 'data')), 'cubism');
if (!fs.existsSync(path.join(cubism, 'inputs', 'Haru'))) {
  console.log(`live2d_tick: skipped, no Cubism sample files in ${cubism}`);
  process.exit(0);
}
const { loadCrowd, live2dFiles } = await import(pathToFileURL(path.join(pkg, 'crowd.js')).href);
const crowd = await loadCrowd({ wasmBinary: fs.readFileSync(path.join(pkg, 'crowd_wasm.wasm')) });
const read = (rel) => JSON.parse(fs.readFileSync(path.join(cubism, rel), 'utf8'));
const model3 = read('inputs/Haru/Haru.model3.json');
const files = Object.fromEntries(live2dFiles(model3).map((f) => [f, read(`inputs/Haru/${f}`)]));
const parameters = read('full/full_lappmodel_update_Haru_60fps.json').parameters.map((p) => ({ id: p.id, min: p.min, max: p.max, default: p.default }));
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

for (const simd of ['wasm128', 'scalar']) {
  const engine = crowd.engine({ seed: 7, simd });
  const t0 = cpuMs();
  const rig = engine.rig({ name: 'Haru', parameters, model3, files, motions: { idle: 'Idle' }, expressions: {}, pose: {}, physics: {}, lipsync: {} });
  const built = cpuMs() - t0;
  const all = rig.add(n);
  engine.startExpression(all, 1);
  const levels = new Float32Array(n);
  const frame = (k) => {
    for (let i = 0; i < n; i++) levels[i] = 0.5 + 0.5 * Math.sin(0.1 * k + i);
    engine.set('lipsync_level', all, levels);
    engine.tick(1 / 60);
  };
  for (let k = 0; k < warm; k++) frame(k);
  const t1 = cpuMs();
  for (let k = warm; k < warm + frames; k++) frame(k);
  const ms = (cpuMs() - t1) / frames;
  console.log(`WebAssembly (Node ${process.version}) ${simd}: Haru rig from its model3 and ${Object.keys(files).length} files built in ${built.toFixed(1)} ms; ` +
    `${ms.toFixed(2)} ms CPU per frame for ${n} instances (motion, pose, expression, lip sync, physics; frames ${warm + 1}..${warm + frames})`);
  engine.destroy();
}
