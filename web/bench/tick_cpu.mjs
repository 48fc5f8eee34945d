// The default crowd's frame (its walk rows and gaze keys fed, then the tick) in CPU time, so a
// loaded machine matters little: in WebAssembly under Node (V8, as in Chromium) on wasm128 and
// scalar, and natively (`crowd run`, one thread) on sse2 and auto. Each is the CPU time of
// frames 21..N+20 (Node: this process's user + system time between those frames; native: the
// difference between runs of N+20 and 20 frames, which cancels the set-up).
//   node web/bench/tick_cpu.mjs [build-wasm/pkg] [N, default 200] [native crowd, default build/tools/crowd]
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';

const pkg = path.resolve(process.argv[2] ?? 'build-wasm/pkg');
const frames = Number(process.argv[3] ?? 200), warm = 20;
const native = process.argv[4] ?? path.join(pkg, '..', '..', 'build', 'tools', 'crowd');
const { loadCrowd } = await import(pathToFileURL(path.join(pkg, 'crowd.js')).href);
const crowd = await loadCrowd({ wasmBinary: fs.readFileSync(path.join(pkg, 'crowd_wasm.wasm')) });

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
for (const simd of ['wasm128', 'scalar']) {
  const d = crowd.defaultCrowd({ simd });
  for (let k = 0; k < warm; k++) d.step();
  const t0 = cpuMs();
  for (let k = 0; k < frames; k++) d.step();
  const ms = (cpuMs() - t0) / frames;
  d.destroy();
  console.log(`WebAssembly (Node ${process.version}) ${simd}: ${ms.toFixed(2)} ms CPU per frame (10,000 avatars, frames ${warm + 1}..${warm + frames})`);
}

if (fs.existsSync(native) && fs.existsSync('/usr/bin/time')) {
  for (const simd of ['sse2', 'auto']) {
    const cpu = (n) => {
      const r = execFileSync('sh', ['-c', `/usr/bin/time -f 'cpu %U %S' "$0" run --frames ${n} --simd ${simd} --quiet --json 2>&1 >/dev/null`, native], { encoding: 'utf8' });
      const m = r.match(/cpu ([\d.]+) ([\d.]+)/);
      return Number(m[1]) + Number(m[2]);
    };
    const ms = ((cpu(warm + frames) - cpu(warm)) * 1000) / frames;
    console.log(`native crowd run --simd ${simd} (1 thread): ${ms.toFixed(2)} ms CPU per frame (difference of ${warm + frames} and ${warm} frames; /usr/bin/time's 10 ms steps)`);
  }
} else console.log(`no native crowd at ${native} (or no /usr/bin/time): build it to compare`);
