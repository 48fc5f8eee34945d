// crowd.d.ts: types_check.ts (the package used as the README shows, and three misuses that
// must be errors) compiles with tsc --strict against the built package.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pkgDir } from './common.mjs';

const modules = process.env.CROWD_NODE_MODULES ?? path.join(pkgDir, '..', 'npm', 'node_modules');
const tsc = path.join(modules, 'typescript', 'bin', 'tsc');
const here = path.dirname(fileURLToPath(import.meta.url));
const skip = fs.existsSync(tsc) ? false : `typescript is not installed (npm install --prefix ${path.dirname(modules)} typescript)`;

test('crowd.d.ts types the package', { skip }, () => {
  const dir = fs.mkdtempSync(path.join(path.dirname(pkgDir), 'types-'));
  try {
    fs.copyFileSync(path.join(here, 'types_check.ts'), path.join(dir, 'types_check.ts'));
    fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
      compilerOptions: {
        strict: true, noEmit: true, target: 'es2022', module: 'es2022', moduleResolution: 'bundler',
        lib: ['es2022', 'dom'], paths: { 'crowd-engine': [path.join(pkgDir, 'crowd.d.ts')] },
      },
      files: ['types_check.ts'],
    }));
    const r = spawnSync(process.execPath, [tsc, '-p', dir], { encoding: 'utf8' });
    assert.equal(r.status, 0, `tsc:\n${r.stdout}${r.stderr}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
