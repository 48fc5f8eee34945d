// The default crowd in WebAssembly gives the native bytes: on wasm128 and scalar, after several
// frame counts, ticked whole and split into uneven ranges (the split must not matter).
import test from 'node:test';
import assert from 'node:assert/strict';
import { load, nativeChecksum, nativeCrowd, DEFAULT_CHECKSUM } from './common.mjs';

const { crowd } = await load();
const CHECKPOINTS = [1, 60, 600];

// [first, count] ranges between cut points 0 < c1 < ... < 10000.
const split = (...cuts) => [0, ...cuts].map((c, k, a) => [c, (a[k + 1] ?? 10000) - c]);

// Runs the 10,000 avatars for 600 frames; `ranges` (null: crowd_tick) splits every tick.
function run(simd, ranges, last = 600) {
  const d = crowd.defaultCrowd({ simd });
  try {
    assert.equal(d.engine.simd, simd);
    assert.equal(d.rig.instanceCount, 10000);
    const sums = {};
    for (let k = 1; k <= last; k++) {
      d.prepare(k);
      if (ranges) for (const [first, count] of ranges) d.engine.tickRange(d.dt, d.rig, first, count);
      else d.engine.tick(d.dt);
      if (CHECKPOINTS.includes(k)) sums[k] = d.checksum();
    }
    return sums;
  } finally {
    d.destroy();
  }
}

function expectNative(sums, what) {
  for (const [k, sum] of Object.entries(sums)) {
    if (Number(k) === 600) assert.equal(sum, DEFAULT_CHECKSUM, `${what}: frame 600`);
    const native = nativeChecksum(Number(k));
    if (native) assert.equal(sum, native, `${what}: frame ${k} against the native crowd run --frames ${k}`);
  }
}

test('the module knows its targets', () => {
  assert.ok(crowd.simdSupported('wasm128'));
  assert.ok(crowd.simdSupported('scalar'));
  assert.equal(crowd.simdWidth('wasm128'), 4);
  assert.equal(crowd.simdSupported('sse2'), false, 'sse2 is not built into the module');
  assert.equal(crowd.engine().simd, 'wasm128', 'auto picks wasm128');
});

test('wasm128, whole ticks: the native checksums', () => {
  expectNative(run('wasm128', null), 'wasm128');
});

test('scalar, ticks split into uneven ranges: the native checksums', () => {
  expectNative(run('scalar', split(1, 37, 5001, 9999)), 'scalar split');
});

test('wasm128, ticks split off the lane grid: the native checksums', (t) => {
  expectNative(run('wasm128', split(3, 4101), 60), 'wasm128 split');
  if (!nativeCrowd) t.diagnostic('CROWD_NATIVE unset: frames 1 and 60 were not compared with the native command');
});
