// The demo: the tools' default crowd (its first n avatars, walking, gazing, blinking) ticked by
// the WebAssembly engine once per animation frame and drawn on a canvas from the bone columns,
// read in place (zero-copy views). window.crowdDemo reports progress for the browser test.
import { loadCrowd } from '../crowd.js';

const params = new URLSearchParams(location.search);
const n = Math.min(10000, Math.max(1, Number(params.get('n') ?? 1000)));
const simd = params.get('simd') ?? 'auto';
const stopAt = Number(params.get('frames') ?? 0); // 0: run on
const shown = Math.min(n, Number(params.get('show') ?? n)); // avatars drawn (all are ticked)
const status = (window.crowdDemo = { frame: 0, checksum: null, tickMs: [], done: false, error: null });

const canvas = document.getElementById('view');
const g = canvas.getContext('2d');
const $ = (id) => document.getElementById(id);

// Bones (crowd_bone order) drawn as segments: [bone, parent joint, length m, local axis].
const HIPS = 0, CHEST = 1, HEAD = 2;
const LIMBS = [
  [3, 'shoulderL', 0.29], [4, 'elbowL', 0.26], [6, 'shoulderR', 0.29], [7, 'elbowR', 0.26],
  [9, 'hipL', 0.42], [10, 'kneeL', 0.42], [12, 'hipR', 0.42], [13, 'kneeR', 0.42],
];
const NEXT = { 3: 'elbowL', 4: 'wristL', 6: 'elbowR', 7: 'wristR', 9: 'kneeL', 10: 'ankleL', 12: 'kneeR', 13: 'ankleR' };

function rotate(q, i, vx, vy, vz, out) {
  const x = q[0][i], y = q[1][i], z = q[2][i], w = q[3][i];
  const tx = 2 * (y * vz - z * vy), ty = 2 * (z * vx - x * vz), tz = 2 * (x * vy - y * vx);
  out[0] = vx + w * tx + (y * tz - z * ty);
  out[1] = vy + w * ty + (z * tx - x * tz);
  out[2] = vz + w * tz + (x * ty - y * tx);
  return out;
}

async function main() {
  const crowd = await loadCrowd();
  const d = crowd.defaultCrowd({ count: n, simd });
  const rig = d.rig;
  const eyeL = rig.parameterIndex('ParamEyeLOpen'), angleX = rig.parameterIndex('ParamAngleX');
  // Column objects: their .array re-fetches the view should the module's memory grow.
  const bones = [];
  for (let b = 0; b < 15; b++) bones.push([0, 1, 2, 3].map((c) => rig.columnView('bone_world', b, c)));
  const eyes = rig.columnView('output', eyeL), turn = rig.columnView('output', angleX);
  $('info').textContent = `${n.toLocaleString()} avatars${shown < n ? ` (${shown.toLocaleString()} drawn)` : ''} · ${d.engine.simd} (width ${d.engine.simdWidth})`;

  const cols = Math.ceil(Math.sqrt(shown * (canvas.width / canvas.height)));
  const rows = Math.ceil(shown / cols);
  const cell = Math.min(canvas.width / cols, (canvas.height - 10) / rows);
  const scale = cell * 0.55, yaw = 0.6, cy = Math.cos(yaw), sy = Math.sin(yaw);
  const v = [0, 0, 0];

  function draw() {
    g.fillStyle = '#10141c';
    g.fillRect(0, 0, canvas.width, canvas.height);
    const q = bones.map((c) => c.map((col) => col.array));
    const eye = eyes.array, ang = turn.array;
    g.strokeStyle = '#8fbcbb';
    g.lineWidth = Math.max(1, cell * 0.05);
    g.beginPath();
    const heads = [];
    for (let i = 0; i < shown; i++) {
      const ox = (i % cols + 0.5) * cell, oy = (Math.floor(i / cols) + 0.52) * cell;
      const P = (p) => [ox + (p[0] * cy + p[2] * sy) * scale, oy - p[1] * scale];
      const J = {};
      const at = (base, bone, len, ax, ay, az) => {
        rotate(q[bone], i, ax, ay, az, v);
        return [base[0] + v[0] * len, base[1] + v[1] * len, base[2] + v[2] * len];
      };
      const hips = [0, 0.05, 0];
      J.hipL = at(hips, HIPS, 0.1, -1, 0, 0);
      J.hipR = at(hips, HIPS, 0.1, 1, 0, 0);
      const neck = at(hips, CHEST, 0.5, 0, 1, 0);
      J.shoulderL = at(neck, CHEST, 0.18, -1, 0, 0);
      J.shoulderR = at(neck, CHEST, 0.18, 1, 0, 0);
      const head = at(neck, HEAD, 0.2, 0, 1, 0);
      for (const [bone, from, len] of LIMBS) J[NEXT[bone]] = at(J[from], bone, len, 0, 1, 0);
      const seg = (a, b) => {
        const A = P(a), B = P(b);
        g.moveTo(A[0], A[1]);
        g.lineTo(B[0], B[1]);
      };
      seg(J.hipL, J.hipR); seg(hips, neck); seg(J.shoulderL, J.shoulderR);
      for (const [bone, from] of LIMBS) seg(J[from], J[NEXT[bone]]);
      heads.push(P(head));
    }
    g.stroke();
    // heads: turned by ParamAngleX, eyes closing with ParamEyeLOpen
    const r = cell * 0.09;
    for (let i = 0; i < shown; i++) {
      const [hx, hy] = heads[i];
      g.fillStyle = '#ebcb8b';
      g.beginPath();
      g.arc(hx, hy, r, 0, 2 * Math.PI);
      g.fill();
      if (r >= 2.5) {
        const dx = (ang[i] / 30) * r * 0.5, h = Math.max(0.3, eye[i] * r * 0.35);
        g.fillStyle = '#2e3440';
        g.fillRect(hx + dx - r * 0.45, hy - h / 2, r * 0.25, h);
        g.fillRect(hx + dx + r * 0.2, hy - h / 2, r * 0.25, h);
      }
    }
  }

  function frame() {
    if (stopAt && d.frame >= stopAt) return;
    const ms = d.step();
    status.frame = d.frame;
    status.tickMs.push(ms);
    const recent = status.tickMs.slice(-60);
    const mean = recent.reduce((a, b) => a + b, 0) / recent.length;
    $('tick').textContent = `tick ${mean.toFixed(2)} ms (mean of the last ${recent.length}) · frame ${d.frame}`;
    draw();
    if (stopAt && d.frame >= stopAt) {
      status.checksum = d.checksum();
      $('checksum').textContent = `checksum ${status.checksum} after ${d.frame} frames`;
      status.done = true;
      return;
    }
    requestAnimationFrame(frame);
  }
  requestAnimationFrame(frame);

  // The webcam part lives in webcam.js, loaded only when asked (it needs MediaPipe and a camera).
  const button = $('webcam');
  if (navigator.mediaDevices?.getUserMedia) {
    button.hidden = false;
    button.onclick = async () => {
      button.disabled = true;
      const { startWebcam } = await import('./webcam.js');
      startWebcam(crowd, canvas).catch((e) => {
        button.textContent = `webcam: ${e.message}`;
      });
    };
  }
}

main().catch((e) => {
  status.error = String(e?.stack ?? e);
  $('info').textContent = `error: ${e.message}`;
});
