// The demo's tick time in headless Chromium: the page's own measurement (performance.now()
// around engine.tick), median over frames 21..N, for each crowd size.
//   node web/bench/demo_tick.mjs [build-wasm/pkg] [1000,10000] [frames, default 300]
// Needs Debian's chromium and playwright-core in build-wasm/npm (tools/dev wasm --test installs it).
import path from 'node:path';
import { createRequire } from 'node:module';
import { serve } from '../test/server.mjs';

const pkg = path.resolve(process.argv[2] ?? 'build-wasm/pkg');
const sizes = (process.argv[3] ?? '1000,10000').split(',').map(Number);
const frames = Number(process.argv[4] ?? 300);
const { chromium } = createRequire(path.join(pkg, '..', 'npm', 'node_modules', 'x.js'))('playwright-core');

const server = await serve(pkg);
const browser = await chromium.launch({
  executablePath: process.env.CROWD_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});
const version = browser.version();
for (const simd of ['wasm128', 'scalar'])
  for (const n of sizes) {
    const page = await browser.newPage();
    await page.goto(`${server.url}/demo/index.html?n=${n}&show=${Math.min(n, 1000)}&frames=${frames}&simd=${simd}`);
    await page.waitForFunction(() => window.crowdDemo?.done || window.crowdDemo?.error, null, { timeout: 600000 });
    const ms = (await page.evaluate(() => window.crowdDemo.tickMs)).slice(20).sort((a, b) => a - b);
    const median = ms[ms.length >> 1];
    console.log(`demo tick, ${n} avatars, ${simd}: median ${median.toFixed(3)} ms (${ms.length} frames; ${(n / median / 1e3).toFixed(2)} M instance-updates/s), Chromium ${version}`);
    await page.close();
  }
await browser.close();
await server.close();
