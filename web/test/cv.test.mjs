// cv.h's wasm128 section against its scalar definition, op by op and bit by bit (test/cv/main.c,
// built into build-wasm/test/cv_ops.js), run under Node's WebAssembly.
import test from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { pkgDir } from './common.mjs';

test('every cv_ op on wasm128 gives the scalar definition\'s bits', () => {
  const r = spawnSync(process.execPath, [path.join(pkgDir, '..', 'test', 'cv_ops.js')], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /33 ops x \d+ lanes .*: 0 differences/);
});
