// A static file server on the loopback interface for the browser test and the demo.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };

// Cross-origin isolation: a page served with these two headers has SharedArrayBuffer, which the
// module with threads (crowd_wasm_mt) needs; a server of your own sends them with every file of
// the page (the HTML, the scripts, the .wasm and the .worker.js). Resources from another origin
// then need Cross-Origin-Resource-Policy (or CORS) headers of their own.
export const ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

/**
 * Serves dir on 127.0.0.1 (a free port); resolves to { url, close }. mounts: { '/prefix/': dir }
 * serves other directories under a URL prefix (the 3D demo's three.js from the build tree).
 * options.isolated (default true) sends ISOLATION_HEADERS; false serves a page without them
 * (threads unavailable).
 */
export function serve(dir, mounts = {}, { isolated = true } = {}) {
  const server = http.createServer((req, res) => {
    let rel = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    let root = path.resolve(dir);
    for (const [prefix, mounted] of Object.entries(mounts)) {
      if (rel.startsWith(prefix)) {
        root = path.resolve(mounted);
        rel = '/' + rel.slice(prefix.length);
        break;
      }
    }
    const file = path.resolve(root, '.' + rel);
    if (!file.startsWith(root + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream', ...(isolated ? ISOLATION_HEADERS : {}) });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({ url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) });
    });
  });
}

/**
 * three.js (npm package `three` in the build tree) as the 3D demo imports it: its build/ at
 * /three/ and examples/jsm/ at /three-addons/; and @pixiv/three-vrm's lib/ at /three-vrm/ when
 * installed (a dropped VRM needs it).
 */
export function threeMount(pkg) {
  const modules = process.env.CROWD_NODE_MODULES ?? path.join(pkg, '..', 'npm', 'node_modules');
  const build = path.join(modules, 'three', 'build');
  if (!fs.existsSync(path.join(build, 'three.module.js'))) return null;
  const mounts = { '/three/': build, '/three-addons/': path.join(modules, 'three', 'examples', 'jsm') };
  const vrm = path.join(modules, '@pixiv', 'three-vrm', 'lib');
  if (fs.existsSync(vrm)) mounts['/three-vrm/'] = vrm;
  return mounts;
}

// node server.mjs DIR: serve the package to look at the demos (http://127.0.0.1:PORT/demo/ and
// /demo/3d.html, whose three.js comes from DIR/../npm/node_modules/three).
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  const dir = process.argv[2] ?? '.';
  const { url } = await serve(dir, threeMount(dir) ?? {});
  console.log(`serving ${dir} at ${url}/demo/ (3D: ${url}/demo/3d.html)`);
}
