// The 3D demo page (demo/3d.html, three.js from the build tree's npm packages) in headless
// Chromium with WebGL2 on SwiftShader: it draws avatars where the crowd stands, they move while
// the sky stays still, its checksum is the native `crowd run` one (ticked on 1, 2 and 4 threads
// too), and no crowd-sized array is allocated per frame. Screenshots land in CROWD_WEB_ARTIFACTS (default <package>/../artifacts).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { pkgDir, nativeChecksum, load } from './common.mjs';
import { serve, threeMount } from './server.mjs';
import { buildVrm, BONES, TIP } from './vrm_build.mjs';

const CHROMIUM = process.env.CROWD_CHROMIUM ?? '/usr/bin/chromium';
const modules = process.env.CROWD_NODE_MODULES ?? path.join(pkgDir, '..', 'npm', 'node_modules');
const artifacts = process.env.CROWD_WEB_ARTIFACTS ?? path.join(pkgDir, '..', 'artifacts');

let chromium = null, why = '';
const three = threeMount(pkgDir);
if (!fs.existsSync(CHROMIUM)) why = `no Chromium at ${CHROMIUM} (apt-get install -y chromium)`;
else if (!three) why = `three is not installed (npm install --prefix ${path.dirname(modules)} three)`;
else {
  try {
    chromium = createRequire(path.join(modules, 'x.js'))('playwright-core').chromium;
  } catch {
    why = `playwright-core is not installed (npm install --prefix ${path.dirname(modules)} playwright-core)`;
  }
}
const skip = chromium ? false : why;

async function open3d(query, until, { isolated = true } = {}) {
  const server = await serve(pkgDir, three, { isolated });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    // WebGL2 without a GPU: ANGLE on SwiftShader (software Vulkan)
    args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist',
      '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update',
      '--disable-sync'],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(`${server.url}/demo/3d.html?${query}`);
  await page.waitForFunction(until, null, { timeout: 240000, polling: 100 });
  const status = await page.evaluate(() => window.crowd3d.error);
  assert.equal(status, null);
  return { page, errors, close: async () => { await browser.close(); await server.close(); } };
}

async function screenshot(page, name) {
  fs.mkdirSync(artifacts, { recursive: true });
  const shot = path.join(artifacts, name);
  await (await page.$('#view')).screenshot({ path: shot });
  const png = fs.readFileSync(shot);
  assert.equal(png.subarray(1, 4).toString(), 'PNG');
}

// In the page: the canvas's pixels kept as window.shots[name]; statistics of regions (fractions of
// the width and height) against the sky's colour (top left corner) and the ground's (bottom left).
function grab(name) {
  const c = document.getElementById('view');
  const t = document.createElement('canvas');
  t.width = c.width;
  t.height = c.height;
  const g = t.getContext('2d');
  g.drawImage(c, 0, 0);
  (window.shots ??= {})[name] = g.getImageData(0, 0, c.width, c.height);
}
function regionStats([name, other, x0, y0, x1, y1]) {
  const img = window.shots[name], W = img.width, H = img.height, a = img.data;
  const px = (x, y) => { const k = 4 * (y * W + x); return [a[k], a[k + 1], a[k + 2]]; };
  const sky = px(0, 0), ground = px(0, H - 1);
  const far = (p, q) => Math.abs(p[0] - q[0]) + Math.abs(p[1] - q[1]) + Math.abs(p[2] - q[2]) > 12;
  const b = other && window.shots[other].data;
  let total = 0, avatar = 0, changed = 0;
  const colours = new Set();
  for (let y = Math.floor(y0 * H); y < Math.floor(y1 * H); y++)
    for (let x = Math.floor(x0 * W); x < Math.floor(x1 * W); x++) {
      const p = px(x, y), k = 4 * (y * W + x);
      total++;
      colours.add((p[0] << 16) | (p[1] << 8) | p[2]);
      if (far(p, sky) && far(p, ground)) avatar++;
      if (b && (b[k] !== a[k] || b[k + 1] !== a[k + 1] || b[k + 2] !== a[k + 2])) changed++;
    }
  return { sky, ground, avatar: avatar / total, changed: changed / total, colours: colours.size };
}
const stats = (page, ...args) => page.evaluate(regionStats, args);

// One page load serves every check (each launch of Chromium and SwiftShader costs seconds): the
// whole default crowd (10,000 avatars, so its checksum is `crowd run`'s), the first 1,000 drawn,
// on one thread (with more, emscripten's wait for the workers on the page's thread polls the
// clock, a number on the JavaScript heap per poll: the heap test would measure that); the
// threads test ticks engines of 1, 2 and 4 threads beside it.
test('the 3D page', { skip }, async (t) => {
  const demo = await open3d('n=10000&show=1000&orbit=0&threads=1', () => window.crowd3d?.error || window.crowd3d?.frame >= 10);
  try {
    await t.test('draws the crowd where it stands; avatars move, the sky does not, pause holds them', async () => {
      await demo.page.evaluate(grab, 'a');
      const f0 = await demo.page.evaluate(() => window.crowd3d.frame);
      await new Promise((r) => setTimeout(r, 1000));
      await demo.page.evaluate(grab, 'b');
      const frames = await demo.page.evaluate(() => window.crowd3d.frame);
      await screenshot(demo.page, 'demo3d.png');
      const whole = await stats(demo.page, 'a', null, 0, 0, 1, 1);
      assert.ok(whole.sky[2] > whole.sky[0], `the sky (${whole.sky}) is not blue: nothing drawn?`);
      assert.ok(whole.colours > 50, `only ${whole.colours} colours: a blank canvas`);
      // the crowd (a square grid in front of the camera) fills the middle of the picture, the top
      // of the picture is sky, the bottom corners ground
      const middle = await stats(demo.page, 'a', 'b', 0.3, 0.4, 0.7, 0.7);
      assert.ok(middle.avatar > 0.2, `only ${(middle.avatar * 100).toFixed(1)}% avatar pixels in the middle`);
      const top = await stats(demo.page, 'a', 'b', 0, 0, 1, 0.12);
      assert.equal(top.avatar, 0, 'avatars in the sky');
      const corner = await stats(demo.page, 'a', 'b', 0, 0.92, 0.08, 1);
      assert.equal(corner.avatar, 0, 'avatars in the foreground corner');
      // a second later (frames ticked in between): the avatars moved, the sky is the same
      assert.ok(frames > f0, `no frames ticked in a second (${f0} -> ${frames})`);
      assert.ok(middle.changed > 0.02, `only ${(middle.changed * 100).toFixed(2)}% of the crowd's pixels changed`);
      assert.equal(top.changed, 0, 'the sky changed');
      assert.equal(corner.changed, 0, 'the ground changed');
      // paused: no frame is ticked and the picture holds still
      await demo.page.evaluate(() => window.crowd3d.pause(true));
      await new Promise((r) => setTimeout(r, 300));
      const paused = await demo.page.evaluate(() => window.crowd3d.frame);
      await demo.page.evaluate(grab, 'c');
      await new Promise((r) => setTimeout(r, 700));
      await demo.page.evaluate(grab, 'd');
      assert.equal(await demo.page.evaluate(() => window.crowd3d.frame), paused);
      assert.equal((await stats(demo.page, 'c', 'd', 0, 0, 1, 1)).changed, 0, 'the picture changed while paused');
      assert.deepEqual(demo.errors, []);
    });

    await t.test('ticks the default crowd to the native checksum', async () => {
      await demo.page.evaluate(() => window.crowd3d.pause(true)); // whatever ran before: hold a frame
      const now = await demo.page.evaluate(() => window.crowd3d.checksumNow());
      assert.ok(now.frame >= 10, `frame ${now.frame}`);
      assert.equal(now.checksum, await reference(now.frame), `the checksum after ${now.frame} frames`);
      assert.deepEqual(demo.errors, []);
    });

    await t.test('threads: the tick split over 1, 2 and 4 threads gives the native checksum', async () => {
      await demo.page.evaluate(() => window.crowd3d.pause(true));
      // the test's server sends the COOP/COEP headers: the page loads the module with threads
      assert.equal(await demo.page.evaluate(() => window.crowd3d.threadsAvailable), true, 'no SharedArrayBuffer on the isolated page');
      assert.ok((await demo.page.evaluate(() => window.crowd3d.threads)) >= 1);
      const frames = 30, expected = await reference(frames);
      for (const k of [1, 2, 4]) {
        const r = await demo.page.evaluate(([k, f]) => window.crowd3d.checksumWith(k, f, 10000), [k, frames]);
        assert.equal(r.threads, k, `an engine of ${k} threads ticks on ${r.threads}`);
        assert.equal(r.checksum, expected, `the checksum after ${frames} frames on ${k} threads`);
      }
      assert.deepEqual(demo.errors, []);
    });

    await t.test('allocates no crowd-sized array per frame: the heap stays flat', async (st) => {
      // The profiler counts the JS heap: a JS array of the crowd's size (n numbers, at least 4
      // bytes each) and a typed array's object, not the typed array's backing store (outside the
      // heap). 100 frames are enough: a crowd-sized array per frame would be 4 MB of them.
      const n = 10000, crowdBytes = n * 4;
      // (50 drawn: the frames come faster on software rendering, three.js's work is the same)
      await demo.page.evaluate(() => window.crowd3d.draw(50));
      await demo.page.evaluate(() => window.crowd3d.pause(false));
      const heap = await allocatedPerFrame(demo.page, 100);
      // three.js's own per-frame bookkeeping is some kilobytes; an array of the crowd's size would
      // add at least crowdBytes
      assert.ok(heap.perFrame < crowdBytes * 0.75, `${heap.perFrame.toFixed(0)} bytes allocated per frame`);
      assert.ok(heap.growth < 1 << 20, `the heap grew by ${heap.growth} bytes over ${heap.frames} frames`);
      // the measure sees such an array: the page's self-check allocates one per frame
      await demo.page.evaluate(() => (window.crowd3d.garbage = true));
      const leaky = await allocatedPerFrame(demo.page, 30);
      await demo.page.evaluate(() => (window.crowd3d.garbage = false));
      const extra = leaky.perFrame - heap.perFrame;
      assert.ok(extra >= crowdBytes * 0.8, `a ${crowdBytes}-byte array per frame measured as ${extra.toFixed(0)} bytes`);
      st.diagnostic(`${heap.perFrame.toFixed(0)} bytes allocated per frame, heap ${heap.growth} bytes over ${heap.frames} frames`);
      assert.deepEqual(demo.errors, []);
    });

    const vrmSkip = three['/three-vrm/'] ? false : `@pixiv/three-vrm is not installed (npm install --prefix ${path.dirname(modules)} @pixiv/three-vrm)`;
    await t.test('a VRM dropped on the page becomes the avatar, its bones along crowd\'s within 0.05 degrees', { skip: vrmSkip }, async () => {
      const THREE = await import(pathToFileURL(path.join(modules, 'three', 'build', 'three.module.js')).href);
      const bytes = buildVrm(THREE);
      await demo.page.evaluate(() => window.crowd3d.draw(1000));
      await demo.page.evaluate((b64) => {
        const file = new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], 'avatar.vrm');
        const dataTransfer = new DataTransfer();
        dataTransfer.items.add(file);
        document.body.dispatchEvent(new DragEvent('drop', { dataTransfer, bubbles: true, cancelable: true }));
      }, Buffer.from(bytes).toString('base64'));
      await demo.page.waitForFunction(() => window.crowd3d.vrm && window.crowd3d.vrm !== 'loading', null, { timeout: 60000, polling: 100 });
      assert.equal(await demo.page.evaluate(() => window.crowd3d.vrm), 'ready');
      // drawn where the crowd stands, and moving
      await demo.page.evaluate(() => window.crowd3d.pause(false));
      const f0 = await demo.page.evaluate(() => window.crowd3d.frame);
      await demo.page.waitForFunction((f) => window.crowd3d.frame >= f + 2, f0, { timeout: 60000, polling: 50 });
      await demo.page.evaluate(grab, 'vrm-a');
      await new Promise((r) => setTimeout(r, 1000));
      await demo.page.evaluate(grab, 'vrm-b');
      await demo.page.evaluate(() => window.crowd3d.pause(true));
      await screenshot(demo.page, 'demo3d-vrm.png');
      const middle = await stats(demo.page, 'vrm-a', 'vrm-b', 0.3, 0.4, 0.7, 0.7);
      assert.ok(middle.avatar > 0.1, `only ${(middle.avatar * 100).toFixed(1)}% avatar pixels in the middle`);
      assert.ok(middle.changed > 0.01, `only ${(middle.changed * 100).toFixed(2)}% of the crowd's pixels changed`);
      assert.equal((await stats(demo.page, 'vrm-a', 'vrm-b', 0, 0, 1, 0.12)).avatar, 0, 'avatars in the sky');

      // instance 7's bones: the page's W are crowd's (the same instance ticked as far in Node)
      const instance = 7;
      const world = await demo.page.evaluate((i) => window.crowd3d.vrmPose(i), instance);
      const { frame } = await demo.page.evaluate(() => window.crowd3d.checksumNow());
      const d = (await load()).crowd.defaultCrowd({ count: instance + 1 });
      for (let k = 0; k < frame; k++) d.step();
      const expected = [];
      for (let b = 0; b < 15; b++) for (let c = 0; c < 4; c++) expected.push(d.rig.column('bone_world', b, c)[instance]);
      d.destroy();
      assert.deepEqual(world, expected, `instance ${instance}'s world rotations after ${frame} frames`);
      // each bone of the VRM's own skeleton (three-vrm's normalised bones over raw bones with rest
      // rotations of their own) points where crowd's does: along the bone's +y (+z for hands and
      // feet, the axis fix), in the VRM's frame (x, y, -z) of the engine's
      const at = await demo.page.evaluate((names) => window.crowd3d.vrmNodes(names), [...BONES, ...TIP]);
      const position = Object.fromEntries([...BONES, ...TIP].map((name, k) => [name, new THREE.Vector3(...at[k])]));
      let worst = 0;
      BONES.forEach((name, b) => {
        const vrmDir = position[TIP[b]].clone().sub(position[name]).normalize();
        const q = new THREE.Quaternion(...world.slice(b * 4, b * 4 + 4));
        const axis = /Hand|Foot/.test(name) ? new THREE.Vector3(0, 0, 1) : new THREE.Vector3(0, 1, 0);
        const crowdDir = axis.applyQuaternion(q);
        crowdDir.z = -crowdDir.z;
        const degrees = (vrmDir.angleTo(crowdDir) * 180) / Math.PI;
        worst = Math.max(worst, degrees);
        assert.ok(degrees < 0.05, `${name}: ${degrees.toFixed(4)} degrees from crowd's bone`);
      });
      t.diagnostic(`worst bone ${worst.toExponential(2)} degrees`);
      assert.deepEqual(demo.errors, []);
    });
  } finally {
    await demo.close();
  }
});

// The fuller avatar (?avatar=full, web/src/demo_rig.c): fingers that close and open, side locks
// that swing with physics, a mouth that talks, eyes that a Live2D motion turns and blinks, the
// same bytes on 1, 2 and 4 threads.
test('the 3D page\'s fuller avatar: fingers, hair, mouth and the eyes\' motion move, the same bytes on 1, 2 and 4 threads', { skip }, async () => {
  const demo = await open3d('avatar=full&n=100&show=9&orbit=0&distance=3.2&threads=2', () => window.crowd3d?.error || window.crowd3d?.frame >= 5);
  try {
    assert.equal(await demo.page.evaluate(() => window.crowd3d.threads), 2);
    // over 96 frames (1.6 s) instance 3's index finger turns (the gesture closes it by up to 72
    // degrees a joint, 0.35 to 0.85 times a second: more than half a closing) and its mouth opens
    // and shuts (lip sync adds the talking level times 0.8 to ParamMouthOpenY, 0 without it)
    const samples = [];
    for (let k = 0; k < 24; k++) {
      samples.push(await demo.page.evaluate(() => window.crowd3d.sample(3)));
      await demo.page.waitForFunction((f) => window.crowd3d.frame >= f + 4, samples.at(-1).frame, { timeout: 60000, polling: 20 });
    }
    const frames = samples.at(-1).frame - samples[0].frame;
    let turn = 0;
    for (const a of samples) for (const b of samples) {
      const dot = Math.abs(a.finger.reduce((sum, v, c) => sum + v * b.finger[c], 0));
      turn = Math.max(turn, (2 * Math.acos(Math.min(1, dot)) * 180) / Math.PI);
    }
    assert.ok(turn > 20, `the index finger turned only ${turn.toFixed(1)} degrees over ${frames} frames`);
    // the side locks swing: the physics rig's outputs (0 without physics) change
    for (const side of [0, 1]) {
      const hair = samples.map((s) => s.hair[side]);
      assert.ok(hair.every(Number.isFinite) && Math.max(...hair) - Math.min(...hair) > 0.02,
        `side lock ${side} stayed within ${Math.min(...hair)} .. ${Math.max(...hair)}`);
    }
    const mouths = samples.map((s) => s.mouth);
    assert.ok(Math.max(...mouths) > 0.2 && Math.min(...mouths) < 0.05, `the mouth stayed within ${Math.min(...mouths)} .. ${Math.max(...mouths)}`);
    // the motion (demo_rig.c's looping clip, started mid-clip per avatar at its own speed): while
    // it plays the blink controller stands still, so ParamEyeLOpen is the clip's curve at the
    // instance's clip time, and ParamEyeBallX/Y are the clip's curves plus the gaze (look adds its
    // smoothed position times 1 after the motion), clamped to [-1, 1]
    const keys = {
      x: [[0, 0], [0.6, 0.7], [1.4, 0.7], [2.0, -0.6], [2.8, -0.6], [3.4, 0], [4, 0]],
      y: [[0, 0], [1.0, 0.35], [2.0, 0], [2.8, -0.3], [4, 0]],
      open: [[0, 1], [0.9, 1], [0.98, 0], [1.1, 1], [3.0, 1], [3.08, 0], [3.2, 1], [4, 1]],
    };
    const curve = (k, t) => {
      for (let j = 1; j < k.length; j++)
        if (t < k[j][0]) return k[j - 1][1] + ((k[j][1] - k[j - 1][1]) * (t - k[j - 1][0])) / (k[j][0] - k[j - 1][0]);
      return k.at(-1)[1]; // the loop's last 1/30 s returns to the first key, the same value
    };
    const clamp = (v) => Math.min(1, Math.max(-1, v));
    const follows = (s, who) => {
      const t = s.motion.time;
      assert.ok(s.motion.playing === 1 && s.motion.clip === 0 && t >= 0 && t < 4 + 1 / 30, `${who}: ${JSON.stringify(s.motion)}`);
      const want = [curve(keys.open, t), clamp(curve(keys.x, t) + s.look[0]), clamp(curve(keys.y, t) + s.look[1])];
      for (let c = 0; c < 3; c++)
        assert.ok(Math.abs(s.eyes[c] - want[c]) < 1e-5, `${who} at clip time ${t}: eye output ${c} is ${s.eyes[c]}, the clip gives ${want[c]}`);
    };
    samples.forEach((s, k) => follows(s, `instance 3, sample ${k}`));
    // over 1.6 s the clip moves the pupils (the clip's part of ParamEyeBallX spans more than 0.3)
    const glance = samples.map((s) => curve(keys.x, s.motion.time));
    assert.ok(Math.max(...glance) - Math.min(...glance) > 0.3, `the pupils' motion stayed within ${Math.min(...glance)} .. ${Math.max(...glance)}`);
    assert.ok(new Set(samples.map((s) => s.motion.time)).size === samples.length, 'the clip time stood still');
    // the avatars are not in unison: twelve of them at one frame are at twelve points of the clip
    await demo.page.evaluate(() => window.crowd3d.pause(true));
    const crowdNow = await demo.page.evaluate(() => Array.from({ length: 12 }, (_, i) => window.crowd3d.sample(i)));
    crowdNow.forEach((s, i) => follows(s, `instance ${i}`));
    assert.equal(new Set(crowdNow.map((s) => s.motion.time)).size, 12, `clip times ${crowdNow.map((s) => s.motion.time)}`);
    // (the gaze may push ParamEyeBallX to its bound 1 on a few: the eyes' outputs as a whole differ)
    assert.ok(new Set(crowdNow.map((s) => s.eyes.join())).size >= 10, `eye outputs ${crowdNow.map((s) => `[${s.eyes}]`)}`);
    await screenshot(demo.page, 'demo3d-full.png');
    // the same bytes (the outputs and every finger bone) on 1, 2 and 4 threads
    const sums = [];
    for (const k of [1, 2, 4]) sums.push(await demo.page.evaluate(([k]) => window.crowd3d.checksumWith(k, 30, 100), [k]));
    assert.deepEqual(sums.map((r) => r.threads), [1, 2, 4]);
    assert.equal(new Set(sums.map((r) => r.checksum)).size, 1, `checksums ${sums.map((r) => r.checksum)}`);
    assert.deepEqual(demo.errors, []);
  } finally {
    await demo.close();
  }
});

// A server without the COOP/COEP headers: no SharedArrayBuffer, so one thread, and the page says so.
test('the 3D page without cross-origin isolation ticks on 1 thread and says why', { skip }, async () => {
  const demo = await open3d('n=100&threads=2&orbit=0', () => window.crowd3d?.error || window.crowd3d?.frame >= 3, { isolated: false });
  try {
    const seen = await demo.page.evaluate(() => ({
      available: window.crowd3d.threadsAvailable, threads: window.crowd3d.threads,
      note: document.getElementById('threadsNote').textContent, disabled: document.getElementById('threads').disabled,
    }));
    assert.deepEqual(seen, { available: false, threads: 1, disabled: true,
      note: 'SharedArrayBuffer unavailable (the page is not cross-origin isolated): 1 thread' });
    // the single-threaded module ticks the first 100 avatars as Node's does
    const now = await demo.page.evaluate(() => window.crowd3d.checksumNow());
    const d = (await load()).crowd.defaultCrowd({ count: 100 });
    for (let k = 0; k < now.frame; k++) d.step();
    assert.equal(now.checksum, d.checksum(), `the checksum of 100 avatars after ${now.frame} frames`);
    d.destroy();
    assert.deepEqual(demo.errors, []);
  } finally {
    await demo.close();
  }
});

// Without the native command: the module in Node (whose 600-frame checksum the node tests tie to
// the native one).
async function reference(frames) {
  const native = nativeChecksum(frames);
  if (native) return native;
  const d = (await load()).crowd.defaultCrowd();
  for (let k = 0; k < frames; k++) d.step();
  const sum = d.checksum();
  d.destroy();
  return sum;
}

// Bytes allocated on the JavaScript heap over `frames` frames, live or collected (V8's sampling
// heap profiler), per frame.
async function allocatedPerFrame(page, frames) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.enable');
  await cdp.send('HeapProfiler.collectGarbage');
  const before = (await cdp.send('Runtime.getHeapUsage')).usedSize;
  await cdp.send('HeapProfiler.startSampling', {
    samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true,
  });
  const f0 = await page.evaluate(() => window.crowd3d.frame);
  await page.waitForFunction((end) => window.crowd3d.frame >= end, f0 + frames, { timeout: 240000, polling: 50 });
  const f1 = await page.evaluate(() => window.crowd3d.frame);
  const { profile } = await cdp.send('HeapProfiler.stopSampling');
  await cdp.send('HeapProfiler.collectGarbage');
  const after = (await cdp.send('Runtime.getHeapUsage')).usedSize;
  let bytes = 0;
  const walk = (node) => {
    bytes += node.selfSize;
    node.children.forEach(walk);
  };
  walk(profile.head);
  await cdp.detach();
  return { perFrame: bytes / (f1 - f0), growth: after - before, frames: f1 - f0 };
}
