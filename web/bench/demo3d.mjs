// The 3D page's benchmark (reported, not asserted; `tools/dev wasm --bench` runs it): at 10,000
// avatars the crowd's tick and the texture upload per frame in headless Chromium (WebGL2 on
// SwiftShader), median of frames 21..N, with 1 and 2 threads (the module with threads, the page
// cross-origin isolated), against the native tick of the same crowd (`crowd run`, 1 and 2
// threads) on AVX-512 (auto) and SSE2.
//   node web/bench/demo3d.mjs [build-wasm/pkg] [frames, default 120] [native crowd, default build/tools/crowd]
// Needs Debian's chromium and playwright-core and three in build-wasm/npm (tools/dev wasm --test
// installs them). The page's screenshot goes to build-wasm/artifacts/demo3d-10000-show-1000.png.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { serve, threeMount } from '../test/server.mjs';

const pkg = path.resolve(process.argv[2] ?? 'build-wasm/pkg');
const frames = Number(process.argv[3] ?? 120), warm = 20;
const native = process.argv[4] ?? path.join(pkg, '..', '..', 'build', 'tools', 'crowd');
const { chromium } = createRequire(path.join(pkg, '..', 'npm', 'node_modules', 'x.js'))('playwright-core');
const three = threeMount(pkg);
if (!three) throw new Error('three is not installed in build-wasm/npm (tools/dev wasm --test installs it)');

const server = await serve(pkg, three);
const browser = await chromium.launch({
  executablePath: process.env.CROWD_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist',
    '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const lines = [];
// drawn: 1,000 avatars on SwiftShader (as the README's picture), and none (?show=0: the tick and
// upload without software rendering competing for the CPU)
for (const [show, threads] of [[1000, 1], [1000, 2], [0, 1], [0, 2]]) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(`${server.url}/demo/3d.html?n=10000&show=${show}&upload=all&frames=${frames}&orbit=0&threads=${threads}`);
  await page.waitForFunction(() => window.crowd3d?.error || window.crowd3d?.done, null, { timeout: 600000, polling: 100 });
  const r = await page.evaluate(([from, to]) => {
    const s = window.crowd3d, pick = (ring) => Array.from(ring.slice(from, to)).sort((a, b) => a - b);
    const median = (a) => a[a.length >> 1];
    return { error: s.error, simd: s.simd, threads: s.threads, calls: s.uploadCalls, tick: median(pick(s.tickMs)), upload: median(pick(s.uploadMs)), render: median(pick(s.renderMs)) };
  }, [warm, frames]);
  if (r.error) throw new Error(r.error);
  if (show && threads === 1) {
    const artifacts = process.env.CROWD_WEB_ARTIFACTS ?? path.join(pkg, '..', 'artifacts');
    fs.mkdirSync(artifacts, { recursive: true });
    await (await page.$('#view')).screenshot({ path: path.join(artifacts, 'demo3d-10000-show-1000.png') });
  }
  lines.push(`3D page, 10,000 avatars, ${show.toLocaleString('en')} drawn (${r.simd}, ${r.threads} thread${r.threads > 1 ? 's' : ''}), median of frames ${warm + 1}..${frames}: ` +
    `tick ${r.tick.toFixed(2)} ms, upload ${r.upload.toFixed(3)} ms (${r.calls} texSubImage2D calls), render (CPU side) ${r.render.toFixed(1)} ms`);
  await page.close();
}
lines.push(`Chromium ${browser.version()}`);
await browser.close();
await server.close();
if (fs.existsSync(native))
  for (const simd of ['auto', 'sse2']) for (const threads of [1, 2]) {
    const out = execFileSync(native, ['run', '--frames', String(frames), '--simd', simd, '--threads', String(threads), '--json', '--quiet'], { encoding: 'utf8' });
    const run = JSON.parse(out.trim().split('\n').pop());
    lines.push(`native crowd run --frames ${frames} --simd ${simd} --threads ${threads} (${run.simd}): tick ${((run.tick_seconds * 1000) / frames).toFixed(2)} ms (mean)`);
  }
else lines.push(`no native crowd at ${native}: build it (tools/dev run) to compare`);
console.log(lines.join('\n'));
