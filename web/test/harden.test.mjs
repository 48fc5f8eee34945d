// Arguments the package refuses before they reach the module: Instances.slice() bounds,
// integers that `>>> 0` used to wrap to 32 bits, a destroyed default crowd; nothing changes.
import test from 'node:test';
import assert from 'node:assert/strict';
import { load } from './common.mjs';

const { api, crowd } = await load();

// fn throws an error of class cls whose message names `what`
function refuses(fn, cls, what) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof cls, `a ${cls.name}, not ${e}`);
    assert.match(e.message, new RegExp(`^${what}: `));
    return true;
  });
}

test('Instances.slice: only integer bounds within the set', () => {
  const engine = crowd.engine();
  const rig = engine.rig({ parameters: [{ id: 'a', min: 0, max: 1 }] });
  const h = rig.add(4);
  const ids = h.ids;
  assert.deepEqual(h.slice(1, 3).ids, ids.slice(1, 3));
  assert.deepEqual(h.slice(4).ids, ids.slice(4));
  assert.equal(h.slice(2, 2).count, 0);
  refuses(() => h.slice(-1), RangeError, 'start');
  refuses(() => h.slice(5), RangeError, 'start');
  refuses(() => h.slice(0, 5), RangeError, 'end');
  refuses(() => h.slice(3, 2), RangeError, 'end');
  refuses(() => h.slice(2.5), TypeError, 'start');
  refuses(() => h.slice(0, 1.5), TypeError, 'end');
  refuses(() => h.slice('1'), TypeError, 'start');
  assert.deepEqual(h.ids, ids);
  engine.destroy();
});

test('DefaultCrowd: refused after destroy() and for counts beyond uint32', () => {
  const d = crowd.defaultCrowd({ count: 3 });
  d.step();
  assert.match(d.checksum(), /^0x[0-9a-f]{16}$/);
  d.destroy();
  for (const call of [() => d.checksum(), () => d.prepare(1), () => d.step()])
    assert.throws(call, (e) => e instanceof api.CrowdError && e.codeName === 'CROWD_ERR_NULL' && /destroyed/.test(e.message));
  assert.equal(d.frame, 1);
  refuses(() => crowd.defaultCrowd({ count: 2 ** 32 }), RangeError, 'count');
  refuses(() => crowd.defaultCrowd({ first: 2 ** 32 + 1, count: 1 }), RangeError, 'first');
  refuses(() => crowd.defaultCrowd({ count: -1 }), RangeError, 'count');
  refuses(() => crowd.defaultCrowd({ count: 0.5 }), TypeError, 'count');
});

test('integers beyond uint32 are refused, not wrapped; nothing changes', () => {
  const engine = crowd.engine({ seed: 3 });
  const rig = engine.rig({ parameters: [{ id: 'a', min: -9, max: 9 }, { id: 'b', min: -9, max: 9 }] });
  const h = rig.add(3);
  engine.set('base', h, [1, 2, 3], 0);
  engine.set('base', h, [4, 5, 6], 1);
  const cases = [
    [() => engine.get('base', h, 2 ** 32 + 1), RangeError, 'index'],
    [() => engine.set('base', h, [7, 8, 9], 2 ** 32), RangeError, 'index'],
    [() => engine.set('base', h, [7, 8, 9], -1), RangeError, 'index'],
    [() => engine.tickRange(1 / 60, rig, 2 ** 32, 2 ** 32 + 2), RangeError, 'first'],
    [() => engine.tickRange(1 / 60, rig, 0, 2 ** 32 + 2), RangeError, 'count'],
    [() => engine.tickRange(1 / 60, rig, 2.5, 1), TypeError, 'first'],
    [() => engine.tickRange(1 / 60, rig.id + 2 ** 32, 0, 1), RangeError, 'rig'],
    [() => rig.reserve(2 ** 32 + 1), RangeError, 'capacity'],
    [() => rig.add(2 ** 32 + 1), RangeError, 'count'],
    [() => rig.add(1.5), TypeError, 'count'],
    [() => rig.column('base', 2 ** 32), RangeError, 'index'],
    [() => rig.column('look_target', 0, -1), RangeError, 'component'],
    [() => rig.columnView('base', 2 ** 32 + 1), RangeError, 'index'],
    [() => engine.get(2 ** 32, h), RangeError, 'field'],
    [() => crowd.engine({ seed: -1 }), RangeError, 'seed'],
    [() => crowd.engine({ seed: 2 ** 64 }), RangeError, 'seed'],
    [() => crowd.engine({ seed: 0.5 }), TypeError, 'seed'],
    [() => crowd.engine({ initialCapacity: 2 ** 32 }), RangeError, 'initialCapacity'],
    [() => crowd.engine({ simd: 2 ** 32 + 1 }), RangeError, 'simd'],
  ];
  for (const [call, cls, what] of cases) refuses(call, cls, what);
  assert.equal(rig.instanceCount, 3);
  assert.deepEqual(Array.from(engine.get('base', h, 0)), [1, 2, 3]);
  assert.deepEqual(Array.from(engine.get('base', h, 1)), [4, 5, 6]);
  // the edges still reach the engine, which judges them itself
  assert.throws(() => engine.get('base', h, 2 ** 32 - 1), (e) => e instanceof api.CrowdError && e.codeName === 'CROWD_ERR_RANGE');
  assert.throws(() => engine.tickRange(1 / 60, rig, 2 ** 32 - 1, 1), (e) => e instanceof api.CrowdError);
  const big = crowd.engine({ seed: 2 ** 64 - 2048 });
  big.destroy();
  engine.destroy();
});
