// The demo page in headless Chromium (Debian's, driven by playwright-core): served on loopback,
// 60 frames of the default crowd; the page's checksum is the native one, the canvas is drawn,
// and a screenshot lands in CROWD_WEB_ARTIFACTS (default: <package>/../artifacts/demo.png).
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pkgDir, nativeChecksum, load } from './common.mjs';
import { serve } from './server.mjs';

const CHROMIUM = process.env.CROWD_CHROMIUM ?? '/usr/bin/chromium';
const modules = process.env.CROWD_NODE_MODULES ?? path.join(pkgDir, '..', 'npm', 'node_modules');
const artifacts = process.env.CROWD_WEB_ARTIFACTS ?? path.join(pkgDir, '..', 'artifacts');

let chromium = null, why = '';
if (!fs.existsSync(CHROMIUM)) why = `no Chromium at ${CHROMIUM} (apt-get install -y chromium)`;
else {
  try {
    chromium = createRequire(path.join(modules, 'x.js'))('playwright-core').chromium;
  } catch {
    why = `playwright-core is not installed (npm install --prefix ${path.dirname(modules)} playwright-core)`;
  }
}

const FRAMES = 60;
// Without the native command: the module in Node, whose 600-frame checksum the node tests tie
// to the native one.
async function reference() {
  const native = nativeChecksum(FRAMES);
  if (native) return native;
  const d = (await load()).crowd.defaultCrowd();
  for (let k = 0; k < FRAMES; k++) d.step();
  const sum = d.checksum();
  d.destroy();
  return sum;
}

function canvasPixels(page) {
  return page.evaluate(() => {
    const c = document.getElementById('view');
    const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const colours = new Set();
    let figure = 0;
    for (let k = 0; k < data.length; k += 4) {
      colours.add((data[k] << 16) | (data[k + 1] << 8) | data[k + 2]);
      if (data[k] !== 0x10 || data[k + 1] !== 0x14 || data[k + 2] !== 0x1c) figure++;
    }
    return { colours: colours.size, share: figure / (data.length / 4) };
  });
}

async function screenshot(page, name) {
  fs.mkdirSync(artifacts, { recursive: true });
  const shot = path.join(artifacts, name);
  await page.screenshot({ path: shot });
  const png = fs.readFileSync(shot);
  assert.equal(png.subarray(1, 4).toString(), 'PNG');
  assert.ok(png.length > 10000, `screenshot of ${png.length} bytes`);
}

// One browser and server for both pages (a launch costs seconds).
let shared = null;
function browser() {
  shared ??= Promise.all([serve(pkgDir), chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  })]);
  return shared;
}
after(async () => {
  if (!shared) return;
  const [server, b] = await shared;
  await b.close();
  await server.close();
});

export async function openDemo(query, until) {
  const [server, b] = await browser();
  const page = await b.newPage({ viewport: { width: 1280, height: 800 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${server.url}/demo/index.html?${query}`);
  await page.waitForFunction(until, null, { timeout: 120000 });
  return { page, errors, close: () => page.close() };
}

const done = () => window.crowdDemo?.done || window.crowdDemo?.error;

test('the demo page animates the default crowd with the native bytes', { skip: chromium ? false : why }, async () => {
  const expected = await reference();
  const demo = await openDemo(`n=10000&show=1000&frames=${FRAMES}`, done);
  try {
    const status = await demo.page.evaluate(() => window.crowdDemo);
    assert.equal(status.error, null);
    assert.deepEqual(demo.errors, []);
    assert.equal(status.frame, FRAMES);
    assert.equal(status.checksum, expected);
    const pixels = await canvasPixels(demo.page);
    assert.ok(pixels.colours > 20, `only ${pixels.colours} colours`);
    assert.ok(pixels.share > 0.05, `only ${(pixels.share * 100).toFixed(1)}% of the canvas is drawn`);
    await screenshot(demo.page, 'demo-10000-show-1000.png');
  } finally {
    await demo.close();
  }
});

test('the demo page with 1,000 avatars: drawn, and a screenshot', { skip: chromium ? false : why }, async () => {
  const demo = await openDemo(`n=1000&frames=${FRAMES}`, done);
  try {
    const status = await demo.page.evaluate(() => window.crowdDemo);
    assert.equal(status.error, null);
    assert.deepEqual(demo.errors, []);
    assert.equal(status.tickMs.length, FRAMES);
    const pixels = await canvasPixels(demo.page);
    assert.ok(pixels.colours > 20, `only ${pixels.colours} colours`);
    assert.ok(pixels.share > 0.03, `only ${(pixels.share * 100).toFixed(1)}% of the canvas is drawn`);
    await screenshot(demo.page, 'demo.png');
  } finally {
    await demo.close();
  }
});
