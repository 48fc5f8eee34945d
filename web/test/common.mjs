// Shared by the node tests: the built package (CROWD_WEB_PKG, default: build-wasm/pkg of the
// project) and the native `crowd` command for reference checksums (CROWD_NATIVE, optional).
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, '..', '..');
export const pkgDir = path.resolve(process.env.CROWD_WEB_PKG ?? path.join(root, 'build-wasm', 'pkg'));
export const nativeCrowd = process.env.CROWD_NATIVE ?? '';
// SPEC: `crowd run` (the default crowd, 600 frames) prints this on every target.
export const DEFAULT_CHECKSUM = '0x4750d6eaa8d19e33';

export async function load() {
  const api = await import(pathToFileURL(path.join(pkgDir, 'crowd.js')).href);
  const crowd = await api.loadCrowd({ wasmBinary: fs.readFileSync(path.join(pkgDir, 'crowd_wasm.wasm')) });
  return { api, crowd };
}

const nativeSums = new Map();
/** The native checksum after `frames` frames, or null without CROWD_NATIVE. */
export function nativeChecksum(frames) {
  if (!nativeCrowd) return null;
  if (!nativeSums.has(frames)) {
    const out = execFileSync(nativeCrowd, ['run', '--frames', String(frames), '--json', '--quiet'], { encoding: 'utf8' });
    nativeSums.set(frames, JSON.parse(out.trim().split('\n').pop()).checksum);
  }
  return nativeSums.get(frames);
}
