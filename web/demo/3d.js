// The 3D demo: the tools' default crowd (its first n avatars, as `crowd run` ticks them) in
// WebGL2 with three.js. Every avatar is one instance of a low-poly humanoid built here, a box
// per bone, skinned in the vertex shader on crowd's 15 body bones. Each frame the bones' world
// rotations and the face's parameters go to one float texture straight from crowd's columns:
// texSubImage2D reads the module's memory at the column's offset, with no JavaScript loop over
// the avatars and nothing allocated per frame. window.crowd3d reports progress for the test.
import * as THREE from 'three';
import { loadCrowd, threadsAvailable, Engine, Rig, CrowdError, Result } from '../crowd.js';

const params = new URLSearchParams(location.search);
const n = Math.min(10000, Math.max(1, Number(params.get('n') ?? 1000)));
const simd = params.get('simd') ?? 'auto';
const stopAt = Number(params.get('frames') ?? 0); // 0: run on
const shown = Math.min(n, Math.max(0, Number(params.get('show') ?? n))); // avatars drawn (all are ticked)
const orbit = params.get('orbit') !== '0';
// ?threads=N: the tick's threads (the module with threads, crowd_wasm_mt, splits every tick's rows
// over N - 1 workers and the page's thread); 'auto' (the default): up to 4, as the CPU has cores.
// Without SharedArrayBuffer (a page that is not cross-origin isolated) it is 1, and says so.
const threadsAsked = params.get('threads') ?? 'auto';
const canThread = threadsAvailable();
let threads = !canThread ? 1 : threadsAsked === 'auto' ? Math.max(1, Math.min(4, navigator.hardwareConcurrency || 1))
  : Math.max(1, Math.min(8, Math.floor(Number(threadsAsked)) || 1));
// ?avatar=full: the default crowd's rig with fingers and lip sync (demo_rig.c), each avatar's
// hands closing and opening at its own pace and its mouth talking; its own checksum (the
// outputs and the finger bones), not `crowd run`'s.
const full = params.get('avatar') === 'full';
const WINDOW = 600; // per-frame timings kept (a ring: nothing grows per frame)
const status = (window.crowd3d = {
  frame: 0, checksum: null, done: false, error: null, ready: false, paused: false,
  tickMs: new Float64Array(WINDOW), uploadMs: new Float64Array(WINDOW), renderMs: new Float64Array(WINDOW),
  simd: null, count: n, shown, threads, threadsAvailable: canThread, avatar: full ? 'full' : 'default',
  garbage: false, // the heap test's self-check: allocate a crowd-sized array per frame
});
const $ = (id) => document.getElementById(id);

// crowd_bone order; the joint of each bone in its parent's frame (metres). In the bones' frames
// (the limbs rig's default axis fix) +y runs along arms and legs toward the next joint, +z along
// hands and feet and is the torso's and head's forward, +x the avatar's left.
const BONES = 15;
const PARENT = [-1, 0, 1, 1, 3, 4, 1, 6, 7, 0, 9, 10, 0, 12, 13];
const SIDE = 1; // the avatar's left is the bones' local +x
const UPPER_ARM = 0.28, LOWER_ARM = 0.25, UPPER_LEG = 0.43, LOWER_LEG = 0.43;
const JOINTS = [
  [0, 0, 0], [0, 0.02, 0], [0, 0.5, 0],
  [SIDE * 0.18, 0.46, 0], [0, UPPER_ARM, 0], [0, LOWER_ARM, 0],
  [-SIDE * 0.18, 0.46, 0], [0, UPPER_ARM, 0], [0, LOWER_ARM, 0],
  [SIDE * 0.1, 0, 0], [0, UPPER_LEG, 0], [0, LOWER_LEG, 0],
  [-SIDE * 0.1, 0, 0], [0, UPPER_LEG, 0], [0, LOWER_LEG, 0],
];
const HIP_HEIGHT = 0.95;
// The fingers (?avatar=full): crowd's finger bones hang from the body's hands (their local
// rotations, CROWD_FIELD_FINGER_LOCAL, chained from the limbs' hand), each along its +y (the
// fingers' y_along_bone fix). Knuckles in the hand's frame (+z along the hand, +x from the index
// toward the little finger, as the fingers' and limbs' hands are solved), segment lengths in metres.
const PALM = 0.09;
const KNUCKLES = [[-0.03, 0, 0.025], [-0.03, 0, PALM], [-0.01, 0, PALM + 0.004], [0.01, 0, PALM], [0.029, 0, PALM - 0.006]];
const FINGER_LENGTHS = [[0.04, 0.032, 0.028], [0.045, 0.027, 0.021], [0.05, 0.03, 0.022], [0.046, 0.028, 0.021], [0.036, 0.021, 0.019]];
const HAND_BONES = 16; // per hand in the finger fields: the hand, then 15 finger bones
const BODY_HAND = [5, 8]; // crowd_bone of the left and right hand
// The face's parameters, uploaded after the 60 bone columns.
const FACE = ['ParamEyeLOpen', 'ParamEyeROpen', 'ParamEyeBallX', 'ParamEyeBallY', 'ParamMouthOpenY'];
// colour kinds (the shader picks each avatar's colours by a hash of its row)
const SKIN = 0, SHIRT = 1, PANTS = 2, SHOES = 3, EYE = 4, PUPIL = 5, MOUTH = 6, HAIR = 7;
// parts the face animates
const BODY = 0, LID_L = 1, LID_R = 2, PUPIL_L = 3, PUPIL_R = 4, LIPS = 5, LOCK_L = 6, LOCK_R = 7;
// ?avatar=full: the side locks of hair swing with the physics rig's outputs (demo_rig.c)
const LOCKS = ['ParamHairSideL', 'ParamHairSideR'];
const LOCK_LENGTH = 0.2;

/** The humanoid: boxes in their bone's frame (position relative to the bone's joint). */
function humanoid(withFingers) {
  const pos = [], nrm = [], bone = [], kind = [], part = [], anchor = [], index = [];
  const box = (b, [cx, cy, cz], [sx, sy, sz], k, p = BODY) => {
    const faces = [
      [[1, 0, 0], [0, 1, 0], [0, 0, 1]], [[-1, 0, 0], [0, 0, 1], [0, 1, 0]],
      [[0, 1, 0], [0, 0, 1], [1, 0, 0]], [[0, -1, 0], [1, 0, 0], [0, 0, 1]],
      [[0, 0, 1], [1, 0, 0], [0, 1, 0]], [[0, 0, -1], [0, 1, 0], [1, 0, 0]],
    ];
    for (const [nv, u, v] of faces) {
      const base = pos.length / 3;
      for (const [a, c] of [[-1, -1], [1, -1], [1, 1], [-1, 1]]) {
        for (let d = 0; d < 3; d++) {
          const half = [sx, sy, sz][d] / 2;
          pos.push([cx, cy, cz][d] + (nv[d] + u[d] * a + v[d] * c) * half);
        }
        nrm.push(...nv);
        bone.push(b);
        kind.push(k);
        part.push(p);
        anchor.push(cx, cy, cz);
      }
      index.push(base, base + 1, base + 2, base, base + 2, base + 3);
    }
  };
  box(0, [0, 0.02, 0], [0.32, 0.16, 0.2], PANTS);
  box(1, [0, 0.27, 0], [0.36, 0.42, 0.22], SHIRT);
  box(2, [0, 0.06, 0], [0.08, 0.1, 0.08], SKIN); // neck
  box(2, [0, 0.2, 0], [0.2, 0.24, 0.22], SKIN);
  box(2, [0, 0.33, -0.01], [0.22, 0.05, 0.24], HAIR);
  box(2, [0, 0.24, -0.1], [0.22, 0.18, 0.04], HAIR);
  if (withFingers) // side locks, each hanging from its top edge
    for (const [s, lock] of [[SIDE, LOCK_L], [-SIDE, LOCK_R]])
      box(2, [s * 0.122, 0.33 - LOCK_LENGTH / 2, 0.0], [0.03, LOCK_LENGTH, 0.12], HAIR, lock);
  // the face is on the bones' local +z (the head's forward)
  for (const [s, lid, pupil] of [[SIDE, LID_L, PUPIL_L], [-SIDE, LID_R, PUPIL_R]]) {
    box(2, [s * 0.05, 0.22, 0.111], [0.06, 0.04, 0.004], EYE, lid);
    box(2, [s * 0.05, 0.22, 0.115], [0.025, 0.03, 0.004], PUPIL, pupil);
  }
  box(2, [0, 0.13, 0.112], [0.08, 0.04, 0.004], MOUTH, LIPS);
  for (const [upper, lower, hand] of [[3, 4, 5], [6, 7, 8]]) {
    box(upper, [0, UPPER_ARM / 2, 0], [0.11, UPPER_ARM + 0.04, 0.11], SHIRT);
    box(lower, [0, LOWER_ARM / 2, 0], [0.09, LOWER_ARM + 0.02, 0.09], SKIN);
    if (withFingers) box(hand, [0, 0, PALM / 2], [0.085, 0.03, PALM], SKIN); // the palm, its side along +x
    else box(hand, [0, 0, 0.07], [0.04, 0.08, 0.14], SKIN);
  }
  // fingers: segment s of finger f of hand h is "bone" BONES + 15h + 3f + s, drawn along its +y
  if (withFingers)
    for (let h = 0; h < 2; h++)
      for (let f = 0; f < 5; f++)
        for (let seg = 0; seg < 3; seg++) {
          const len = FINGER_LENGTHS[f][seg], w = f === 0 ? 0.022 : 0.018 - 0.001 * seg;
          box(BONES + 15 * h + 3 * f + seg, [0, len / 2, 0], [w, len + 0.004, w], SKIN);
        }
  for (const [upper, lower, foot] of [[9, 10, 11], [12, 13, 14]]) {
    box(upper, [0, UPPER_LEG / 2, 0], [0.15, UPPER_LEG + 0.04, 0.15], PANTS);
    box(lower, [0, LOWER_LEG / 2, 0], [0.12, LOWER_LEG + 0.02, 0.12], PANTS);
    box(foot, [0, -0.04, 0.05], [0.1, 0.08, 0.22], SHOES);
  }
  const g = new THREE.InstancedBufferGeometry();
  g.setAttribute('position', new THREE.Float32BufferAttribute(pos, 3));
  g.setAttribute('normal', new THREE.Float32BufferAttribute(nrm, 3));
  g.setAttribute('bone', new THREE.Float32BufferAttribute(bone, 1));
  g.setAttribute('kind', new THREE.Float32BufferAttribute(kind, 1));
  g.setAttribute('part', new THREE.Float32BufferAttribute(part, 1));
  g.setAttribute('anchor', new THREE.Float32BufferAttribute(anchor, 3));
  g.setIndex(index);
  return g;
}

// The bone texture's reader and the placement of instance i, shared with a VRM's shader (vrm.js).
const shaderHead = /* glsl */ `
precision highp float;
precision highp int;
precision highp sampler2D;
uniform sampler2D columns; // R32F: column c (bone b's component k is 4b + k, then the face's), row i at texel c * columnStride + i
uniform int texWidth, columnStride, gridCols;
uniform float spacing;
const int PARENT[${BONES}] = int[${BONES}](${PARENT.join(', ')});

float column(int c, int i) {
  int texel = c * columnStride + i;
  return texelFetch(columns, ivec2(texel % texWidth, texel / texWidth), 0).r;
}
vec4 boneWorld(int b, int i) {
  return vec4(column(4 * b, i), column(4 * b + 1, i), column(4 * b + 2, i), column(4 * b + 3, i));
}
vec3 rotate(vec4 q, vec3 v) {
  vec3 t = 2.0 * cross(q.xyz, v);
  return v + q.w * t + cross(q.xyz, t);
}
float hash(int i, int salt) {
  uint h = uint(i) * 747796405u + uint(salt) * 2891336453u;
  h = ((h >> ((h >> 28u) + 4u)) ^ h) * 277803737u;
  return float((h >> 22u) ^ h) / 4294967295.0;
}
// an avatar's point (metres, feet on the ground at the origin) placed on a jittered grid, each
// sized and turned a little
vec3 place(vec3 p, int i) {
  vec3 world = p * (0.88 + 0.24 * hash(i, 1));
  float yaw = (hash(i, 2) - 0.5) * 0.9, cy = cos(yaw), sy = sin(yaw);
  world.xz = mat2(cy, -sy, sy, cy) * world.xz;
  int gx = i % gridCols, gz = i / gridCols;
  world.x += (float(gx) - float(gridCols - 1) * 0.5 + (hash(i, 3) - 0.5) * 0.5) * spacing;
  world.z += (float(gz) - float(gridCols - 1) * 0.5 + (hash(i, 4) - 0.5) * 0.5) * spacing;
  return world;
}
vec3 placeNormal(vec3 n, int i) {
  float yaw = (hash(i, 2) - 0.5) * 0.9, cy = cos(yaw), sy = sin(yaw);
  n.xz = mat2(cy, -sy, sy, cy) * n.xz;
  return n;
}
`;

const vertexShader = /* glsl */ `${shaderHead}
uniform vec3 joints[${BONES}];
in float bone, kind, part;
in vec3 anchor;
flat out vec3 vColor;
out vec3 vNormal;
vec3 pick(vec3 a, vec3 b, vec3 c, vec3 d, float u) {
  return u < 0.25 ? a : u < 0.5 ? b : u < 0.75 ? c : d;
}

uniform int fingerBase, hairBase; // the first finger-local and hair column (0: none)
vec4 qmul(vec4 a, vec4 b) { // (vrm.js's shader has its own: not in the shared head)
  return vec4(a.w * b.xyz + b.w * a.xyz + cross(a.xyz, b.xyz), a.w * b.w - dot(a.xyz, b.xyz));
}
uniform vec3 knuckles[5];
uniform float fingerLengths[15];
vec4 fingerLocal(int fb, int i) {
  int c = fingerBase + 4 * fb;
  return vec4(column(c, i), column(c + 1, i), column(c + 2, i), column(c + 3, i));
}
// the world position of bone b's joint (the hips at the origin)
vec3 jointOf(int b, int i) {
  vec3 at = vec3(0.0);
  for (int j = b; j > 0; j = PARENT[j]) at += rotate(boneWorld(PARENT[j], i), joints[j]);
  return at;
}

void main() {
  int i = gl_InstanceID;
  int b = int(bone + 0.5), p = int(part + 0.5), k = int(kind + 0.5);
  vec3 local = position;
  if (b >= ${BONES}) { // a finger segment: chained from the body's hand by the finger bones' local rotations
    int h = (b - ${BONES}) / 15, f = ((b - ${BONES}) % 15) / 3, seg = (b - ${BONES}) % 3;
    int hand = h == 0 ? ${BODY_HAND[0]} : ${BODY_HAND[1]};
    vec4 q = boneWorld(hand, i);
    vec3 at = jointOf(hand, i) + rotate(q, knuckles[f]);
    for (int s = 0; s <= seg; s++) {
      if (s > 0) at += rotate(q, vec3(0.0, fingerLengths[3 * f + s - 1], 0.0));
      q = normalize(qmul(q, fingerLocal(${HAND_BONES} * h + 1 + 3 * f + s, i)));
    }
    vec3 world = place(at + rotate(q, local) + vec3(0.0, ${HIP_HEIGHT}, 0.0), i);
    vNormal = placeNormal(rotate(q, normal), i);
    vColor = pick(vec3(0.96, 0.8, 0.69), vec3(0.87, 0.67, 0.5), vec3(0.63, 0.43, 0.3), vec3(0.4, 0.27, 0.18), hash(i, 5 + ${SKIN}));
    gl_Position = projectionMatrix * viewMatrix * vec4(world, 1.0);
    return;
  }
  if (p == ${LID_L} || p == ${LID_R} || p == ${PUPIL_L} || p == ${PUPIL_R}) {
    float open = clamp(column(${BONES * 4} + (p - 1) % 2, i), 0.0, 1.0); // the lid closes over the eye
    local.y = anchor.y + (local.y - anchor.y) * max(open, 0.06);
    if (p >= ${PUPIL_L}) // gaze: ParamEyeBallX to the viewer's right is the avatar's left
      local.xy += vec2(${SIDE}.0 * column(${BONES * 4 + 2}, i) * 0.014, column(${BONES * 4 + 3}, i) * 0.008);
  } else if (p == ${LIPS}) {
    local.y = anchor.y + (local.y - anchor.y) * (0.25 + 2.0 * clamp(column(${BONES * 4 + 4}, i), 0.0, 1.0));
  } else if ((p == ${LOCK_L} || p == ${LOCK_R}) && hairBase > 0) {
    // swung sideways about the head's forward axis at the lock's top, 25 degrees at the output's 1
    float a = 0.436 * column(hairBase + p - ${LOCK_L}, i), ca = cos(a), sa = sin(a);
    vec2 v = local.xy - (anchor.xy + vec2(0.0, ${LOCK_LENGTH / 2}));
    local.xy = anchor.xy + vec2(0.0, ${LOCK_LENGTH / 2}) + vec2(ca * v.x - sa * v.y, sa * v.x + ca * v.y);
  }
  vec3 world = rotate(boneWorld(b, i), local);
  for (int j = b; j > 0; j = PARENT[j]) world += rotate(boneWorld(PARENT[j], i), joints[j]);
  world = place(world + vec3(0.0, ${HIP_HEIGHT}, 0.0), i);
  vNormal = placeNormal(rotate(boneWorld(b, i), normal), i);
  float u = hash(i, 5 + k);
  vColor = k == ${SKIN} ? pick(vec3(0.96, 0.8, 0.69), vec3(0.87, 0.67, 0.5), vec3(0.63, 0.43, 0.3), vec3(0.4, 0.27, 0.18), u)
         : k == ${SHIRT} ? 0.25 + 0.65 * vec3(hash(i, 11), hash(i, 12), hash(i, 13))
         : k == ${PANTS} ? pick(vec3(0.18, 0.22, 0.35), vec3(0.3, 0.3, 0.32), vec3(0.42, 0.33, 0.22), vec3(0.12, 0.12, 0.14), u)
         : k == ${SHOES} ? vec3(0.12, 0.1, 0.09)
         : k == ${EYE} ? vec3(0.97)
         : k == ${PUPIL} ? vec3(0.08, 0.1, 0.16)
         : k == ${MOUTH} ? vec3(0.55, 0.16, 0.18)
         : pick(vec3(0.1, 0.07, 0.05), vec3(0.35, 0.2, 0.1), vec3(0.8, 0.65, 0.35), vec3(0.55, 0.55, 0.55), u);
  gl_Position = projectionMatrix * viewMatrix * vec4(world, 1.0);
}`;

const fragmentShader = /* glsl */ `
precision highp float;
uniform vec3 lightDir;
flat in vec3 vColor;
in vec3 vNormal;
out vec4 colour;
void main() {
  vec3 n = normalize(vNormal);
  float light = 0.38 + 0.12 * n.y + 0.6 * max(dot(n, lightDir), 0.0);
  colour = vec4(vColor * light, 1.0);
}`;

/** The fuller avatar's crowd (demo_rig.c), with DefaultCrowd's shape: step, checksum, destroy. */
class FullCrowd {
  constructor(crowd, count, simd, threads) {
    const M = (this.M = crowd.module);
    const out = M._malloc(8);
    const st = M._cw_demo_create(count, crowd._enum(crowd.Simd, simd, 'simd'), threads, out);
    const ptr = M.HEAPU32[out >> 2];
    M._free(out);
    if (st !== 0) throw new CrowdError(st === 2 ? Result.RANGE : Result.OUT_OF_MEMORY, crowd._toolMessage() || 'the fuller avatar failed');
    this.ptr = ptr;
    this.engine = new Engine(crowd, {}, M._cw_demo_engine(ptr));
    this.rig = new Rig(this.engine, M._cw_demo_rig(ptr));
    this.dt = Math.fround(1 / 60); // the default crowd's
    this.frame = 0;
  }
  step() {
    this.M._cw_demo_prepare(this.ptr, ++this.frame, this.dt);
    const t0 = performance.now();
    this.engine.tick(this.dt);
    return performance.now() - t0;
  }
  checksum() {
    const out = this.M._malloc(8);
    this.M._cw_demo_checksum(this.ptr, out);
    const v = (BigInt(this.M.HEAPU32[(out >> 2) + 1]) << 32n) | BigInt(this.M.HEAPU32[out >> 2]);
    this.M._free(out);
    return '0x' + v.toString(16).padStart(16, '0');
  }
  destroy() {
    this.M._cw_demo_destroy(this.ptr);
    this.ptr = 0;
    this.engine.ptr = 0;
  }
}

async function main() {
  // the module with threads, or (it did not load: a package built without it) the other, saying so
  let crowd, threadsNote = canThread ? '' : 'SharedArrayBuffer unavailable (the page is not cross-origin isolated): 1 thread';
  try {
    crowd = await loadCrowd({ threads: canThread });
  } catch (e) {
    if (!canThread) throw e;
    crowd = await loadCrowd();
    threads = 1;
    threadsNote = `the module with threads did not load (${e.message}): 1 thread`;
  }
  const d = full ? new FullCrowd(crowd, n, simd, threads) : crowd.defaultCrowd({ count: n, simd, threads });
  status.threads = d.engine.threads;
  const select = $('threads');
  for (const k of new Set([1, 2, 4, 8, threads])) select.add(new Option(String(k), String(k), false, k === threads));
  select.disabled = threadsNote !== '';
  select.onchange = () => {
    params.set('threads', select.value);
    location.search = params.toString();
  };
  $('threadsNote').textContent = threadsNote;
  const rig = d.rig, M = crowd.module;
  status.simd = d.engine.simd;

  // The columns in upload order: 15 bones x (x, y, z, w), then the face's parameters.
  const sources = [];
  for (let b = 0; b < BONES; b++) for (let c = 0; c < 4; c++) sources.push(['bone_world', b, c]);
  for (const id of FACE) sources.push(['output', rig.parameterIndex(id), 0]);
  const hairBase = full ? sources.length : 0;
  if (full) for (const id of LOCKS) sources.push(['output', rig.parameterIndex(id), 0]);
  const fingerBase = full ? sources.length : 0;
  if (full) for (let b = 0; b < 2 * HAND_BONES; b++) for (let c = 0; c < 4; c++) sources.push(['finger_local', b, c]);
  const offsets = new Int32Array(sources.length); // float offsets into the module's memory
  const fetchOffsets = () => sources.forEach(([f, i, c], k) => (offsets[k] = rig.column(f, i, c).byteOffset >> 2));
  fetchOffsets();

  const canvas = $('view');
  const renderer = new THREE.WebGLRenderer({ canvas, antialias: false, preserveDrawingBuffer: true });
  renderer.setPixelRatio(1);
  const gl = renderer.getContext();
  // The texture holds column c's row i at texel c * columnStride + i (rows of texWidth texels).
  // crowd stores a rig's bone columns one after another at a fixed stride: when texWidth divides
  // that stride, the 60 bone columns are one block of memory and one texSubImage2D call, and each
  // face column one more (each call costs tens of microseconds in Chromium, whatever its size).
  // Otherwise two calls per column, for the rows of the drawn avatars only (the first `shown`;
  // every avatar's with ?upload=all, to measure a crowd larger than software rendering draws).
  const uploaded = params.get('upload') === 'all' ? n : shown;
  const maxSize = Math.min(4096, gl.getParameter(gl.MAX_TEXTURE_SIZE));
  const stride = offsets[1] - offsets[0], boneFloats = BONES * 4;
  let texWidth = 0;
  if (stride >= n && offsets.slice(0, boneFloats).every((o, k) => o === offsets[0] + k * stride) &&
      offsets.every((o) => o + stride <= M.HEAPF32.length))
    for (let w = Math.min(stride, maxSize); w >= 256 && !texWidth; w--)
      if (stride % w === 0 && (sources.length * stride) / w <= maxSize) texWidth = w;
  const block = texWidth > 0;
  if (!block) texWidth = Math.min(1024, Math.max(uploaded, 1));
  const rowsPerColumn = block ? stride / texWidth : Math.ceil(Math.max(uploaded, 1) / texWidth);
  const columnStride = rowsPerColumn * texWidth;
  const whole = Math.floor(uploaded / texWidth), rest = uploaded % texWidth;
  // in one block: a call per run of columns one stride apart (the bones, each face column, the
  // finger bones)
  const runs = [];
  for (let c = 0; c < offsets.length; c++)
    if (c > 0 && offsets[c] === offsets[c - 1] + stride) runs[runs.length - 1][1]++;
    else runs.push([c, 1]);
  status.uploadCalls = block ? runs.length : sources.length * ((whole > 0) + (rest > 0));
  const texture = new THREE.DataTexture(new Float32Array(columnStride * sources.length),
    texWidth, rowsPerColumn * sources.length, THREE.RedFormat, THREE.FloatType);
  texture.minFilter = texture.magFilter = THREE.NearestFilter;
  texture.generateMipmaps = false;
  texture.needsUpdate = true;
  renderer.initTexture(texture);
  const glTexture = renderer.properties.get(texture).__webglTexture;

  function upload() {
    const heap = M.HEAPF32; // the current view (memory growth replaces it)
    renderer.state.bindTexture(gl.TEXTURE_2D, glTexture);
    gl.pixelStorei(gl.UNPACK_ALIGNMENT, 4);
    gl.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, false);
    gl.pixelStorei(gl.UNPACK_PREMULTIPLY_ALPHA_WEBGL, false);
    gl.pixelStorei(gl.UNPACK_ROW_LENGTH, 0);
    gl.pixelStorei(gl.UNPACK_SKIP_ROWS, 0);
    gl.pixelStorei(gl.UNPACK_SKIP_PIXELS, 0);
    if (block) {
      for (const [c, count] of runs)
        gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, c * rowsPerColumn, texWidth, count * rowsPerColumn, gl.RED, gl.FLOAT, heap, offsets[c]);
      return;
    }
    for (let c = 0; c < offsets.length; c++) {
      const y = c * rowsPerColumn;
      if (whole) gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, y, texWidth, whole, gl.RED, gl.FLOAT, heap, offsets[c]);
      if (rest) gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, y + whole, rest, 1, gl.RED, gl.FLOAT, heap, offsets[c] + whole * texWidth);
    }
  }

  const scene = new THREE.Scene();
  const SKY = 0x9fc4e8;
  scene.background = new THREE.Color(SKY);
  const gridCols = Math.ceil(Math.sqrt(Math.max(shown, 1))), spacing = 1.3;
  const extent = gridCols * spacing;
  const lightDir = new THREE.Vector3(0.4, 0.8, -0.45).normalize();
  const ground = new THREE.Mesh(new THREE.PlaneGeometry(extent * 6 + 100, extent * 6 + 100).rotateX(-Math.PI / 2),
    new THREE.MeshBasicMaterial({ color: 0x5d7a4c }));
  scene.add(ground);
  const material = new THREE.ShaderMaterial({
    glslVersion: THREE.GLSL3, vertexShader, fragmentShader,
    uniforms: {
      columns: { value: texture }, texWidth: { value: texWidth }, columnStride: { value: columnStride },
      gridCols: { value: gridCols }, spacing: { value: spacing }, lightDir: { value: lightDir },
      joints: { value: JOINTS.map((j) => new THREE.Vector3(...j)) },
      fingerBase: { value: fingerBase }, hairBase: { value: hairBase }, knuckles: { value: KNUCKLES.map((j) => new THREE.Vector3(...j)) },
      fingerLengths: { value: FINGER_LENGTHS.flat() },
    },
  });
  const geometry = humanoid(full);
  geometry.instanceCount = shown;
  const avatars = new THREE.Mesh(geometry, material);
  avatars.frustumCulled = false;
  scene.add(avatars);

  const camera = new THREE.PerspectiveCamera(40, canvas.width / canvas.height, 0.1, 1000);
  const radius = Number(params.get('distance')) || extent * 1.05 + 6, height = radius * 0.32 + 1; // ?distance=metres: closer
  const placeCamera = (angle) => {
    // angle 0: in front of the crowd (the avatars face +z)
    camera.position.set(Math.sin(angle) * radius, height, Math.cos(angle) * radius);
    camera.lookAt(0, 0.9, 0);
  };
  placeCamera(0.35);

  $('info').textContent = `${n.toLocaleString()} avatars${shown < n ? ` (${shown.toLocaleString()} drawn)` : ''} · ${d.engine.simd} (width ${d.engine.simdWidth}) · ${d.engine.threads} thread${d.engine.threads > 1 ? 's' : ''} · ${renderer.getContext().getParameter(gl.VERSION)}`;
  $('pause').onclick = () => {
    status.paused = !status.paused;
    $('pause').textContent = status.paused ? 'run' : 'pause';
  };
  status.pause = (on) => {
    if (on !== status.paused) $('pause').click();
  };
  // Bring your own avatar: a .vrm dropped on the page or given as ?vrm=URL replaces the built-in
  // humanoid (vrm.js: loaded with @pixiv/three-vrm, bound to crowd's bones as VMC and VRM
  // Animation do). status.vrm: null, 'loading', 'ready' or the error.
  const own = { vrm: null, drawn: null };
  status.vrm = null;
  async function useVrm(source) {
    status.vrm = 'loading';
    try {
      const { loadVrm, bindInverse, crowdVrm } = await import('./vrm.js');
      const vrm = await loadVrm(source);
      // the T-pose solved with the default crowd's limb settings (crowd.h's defaults, engine frame)
      const drawn = crowdVrm(vrm, bindInverse(crowd), { head: shaderHead, uniforms: material.uniforms, count: geometry.instanceCount });
      if (own.drawn) scene.remove(own.drawn.group);
      Object.assign(own, { vrm, drawn });
      scene.add(drawn.group);
      avatars.visible = false;
      status.vrm = 'ready';
    } catch (e) {
      const name = typeof source === 'string' ? source : source.name ?? 'the file';
      status.vrm = `error: ${name}: ${e.message}`;
      $('info').textContent = `VRM ${name}: ${e.message}`;
    }
  }
  addEventListener('dragover', (e) => e.preventDefault());
  addEventListener('drop', (e) => {
    e.preventDefault();
    const file = e.dataTransfer?.files?.[0];
    if (file) useVrm(file);
  });
  if (params.get('vrm')) useVrm(params.get('vrm'));
  // The test's view of the VRM: its own skeleton posed like instance i (the world rotations
  // returned), and the world positions of named nodes.
  status.vrmPose = (i) => {
    const world = new Float32Array(BONES * 4);
    for (let b = 0; b < BONES; b++) for (let c = 0; c < 4; c++) world[b * 4 + c] = rig.column('bone_world', b, c)[i];
    own.drawn.pose(world);
    return Array.from(world);
  };
  status.vrmNodes = (names) => names.map((name) => own.vrm.scene.getObjectByName(name)?.getWorldPosition(new THREE.Vector3()).toArray() ?? null);

  // draw only the first k of the drawn avatars (the heap test: software rendering is slow)
  status.draw = (k) => {
    geometry.instanceCount = Math.max(0, Math.min(shown, k));
    own.drawn?.group.children.forEach((m) => (m.geometry.instanceCount = geometry.instanceCount));
  };
  // the checksum of the frame shown now (the test pauses first: { frame, checksum } of one frame)
  status.checksumNow = () => ({ frame: d.frame, checksum: d.checksum() });
  // The test's view of instance i now: a finger bone's local rotation (field index hand * 16 +
  // crowd_hand_bone) and the mouth's output; with ?avatar=full also the eyes' outputs
  // (ParamEyeLOpen, ParamEyeBallX, ParamEyeBallY), the gaze's smoothed position and the motion's
  // playback (its time in the clip).
  const mouth = rig.parameterIndex('ParamMouthOpenY');
  const motionOf = (i) => {
    const all = rig.handles(), one = all.slice(i, i + 1);
    try {
      return d.engine.motionStatus(one);
    } finally {
      one.free();
      all.free();
    }
  };
  status.sample = (i, fingerBone = 4) => ({
    frame: d.frame, mouth: rig.column('output', mouth, 0)[i],
    hair: full ? LOCKS.map((id) => rig.column('output', rig.parameterIndex(id), 0)[i]) : null,
    finger: full ? [0, 1, 2, 3].map((c) => rig.column('finger_local', fingerBone, c)[i]) : null,
    eyes: full ? ['ParamEyeLOpen', 'ParamEyeBallX', 'ParamEyeBallY'].map((id) => rig.column('output', rig.parameterIndex(id), 0)[i]) : null,
    look: full ? [0, 1].map((c) => rig.column('look_position', 0, c)[i]) : null,
    motion: full ? motionOf(i) : null,
  });
  // The test's threads check: the first `count` avatars of the default crowd ticked `frames`
  // frames in an engine of `k` threads of their own; their checksum.
  status.checksumWith = (k, frames, count = n) => {
    const other = full ? new FullCrowd(crowd, count, simd, k) : crowd.defaultCrowd({ count, simd, threads: k });
    try {
      for (let f = 0; f < frames; f++) other.step();
      return { threads: other.engine.threads, checksum: other.checksum() };
    } finally {
      other.destroy();
    }
  };

  const mean = (ring, count) => {
    let sum = 0;
    const m = Math.min(count, 60);
    for (let k = 1; k <= m; k++) sum += ring[(count - k) % WINDOW];
    return m ? sum / m : 0;
  };
  const start = performance.now();
  function frame() {
    const ticking = !status.paused && !(stopAt && d.frame >= stopAt);
    if (ticking) {
      const slot = d.frame % WINDOW;
      status.tickMs[slot] = d.step();
      status.frame = d.frame;
      const t0 = performance.now();
      upload();
      status.uploadMs[slot] = performance.now() - t0;
      if (status.garbage) status.lastGarbage = new Array(n).fill(0.5); // n doubles on the JS heap
    }
    if (orbit) placeCamera(0.35 + (performance.now() - start) * 0.00005);
    const t1 = performance.now();
    renderer.render(scene, camera);
    status.renderMs[(Math.max(d.frame, 1) - 1) % WINDOW] = performance.now() - t1;
    if (ticking && d.frame % 30 === 0)
      $('times').textContent = `frame ${d.frame} · tick ${mean(status.tickMs, d.frame).toFixed(2)} ms · upload ${mean(status.uploadMs, d.frame).toFixed(3)} ms · render (CPU side) ${mean(status.renderMs, d.frame).toFixed(1)} ms`;
    if (ticking && ((stopAt && d.frame >= stopAt) || d.frame % 120 === 0)) {
      status.checksum = d.checksum();
      $('checksum').textContent = `checksum ${status.checksum} after ${d.frame} frames`;
      if (stopAt && d.frame >= stopAt) status.done = true;
    }
    requestAnimationFrame(frame);
  }
  status.ready = true;
  requestAnimationFrame(frame);
}

main().catch((e) => {
  status.error = String(e?.stack ?? e);
  $('info').textContent = `error: ${e.message}`;
});
