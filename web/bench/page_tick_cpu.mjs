// The default crowd's tick (10,000 avatars, the tick alone on the walk rows of frame 40) in
// headless Chromium in the renderer main thread's CPU time, so a loaded machine matters little:
// a burst of ticks runs as one task, and Chrome's trace gives that task's thread time (tdur).
// Compare with `crowd bench`'s body rows (thread CPU time) and bench_face.js's.
//   node web/bench/page_tick_cpu.mjs [build-wasm/pkg] [ticks per burst, default 30]
import path from 'node:path';
import { createRequire } from 'node:module';
import { serve } from '../test/server.mjs';

const pkg = path.resolve(process.argv[2] ?? 'build-wasm/pkg');
const ticks = Number(process.argv[3] ?? 30);
const { chromium } = createRequire(path.join(pkg, '..', 'npm', 'node_modules', 'x.js'))('playwright-core');
const server = await serve(pkg);
const browser = await chromium.launch({
  executablePath: process.env.CROWD_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const page = await browser.newPage();
await page.goto(`${server.url}/demo/index.html?n=1&frames=1`); // the package's origin; the page itself does nothing
for (const simd of ['wasm128', 'scalar']) {
  await page.evaluate(async (s) => {
    const { loadCrowd } = await import('/crowd.js');
    window.bench?.destroy();
    window.bench = (await loadCrowd()).defaultCrowd({ simd: s });
    for (let k = 0; k < 40; k++) window.bench.step(); // warm: tiered up
  }, simd);
  const cpu = [];
  for (let round = 0; round < 3; round++) {
    await browser.startTracing(page, { categories: ['toplevel'] });
    await page.evaluate((n) => {
      const d = window.bench;
      for (let k = 0; k < n; k++) d.engine.tick(d.dt);
    }, ticks);
    const trace = JSON.parse((await browser.stopTracing()).toString());
    const burst = trace.traceEvents.filter((e) => e.ph === 'X' && e.tdur !== undefined).sort((a, b) => b.tdur - a.tdur)[0];
    cpu.push(burst.tdur / 1000 / ticks);
  }
  cpu.sort((a, b) => a - b);
  console.log(`Chromium ${browser.version()} ${simd}: tick ${cpu[1].toFixed(2)} ms thread CPU (median of 3 bursts of ${ticks}; ${cpu.map((c) => c.toFixed(2)).join(', ')})`);
}
await browser.close();
await server.close();
