// A VRM 1.0 avatar built here for the 3D page's test (no model file is shipped): VRM 1.0's 15
// required humanoid bones in a T-pose (glTF's frame: Y up, facing +Z, the avatar's left on +X),
// each raw bone with an arbitrary rest rotation of its own (three-vrm's normalised bones must
// cancel it), a tip node past each end bone (head, hands, feet) so every bone has a direction,
// and a skinned mesh of one box per bone. Returns the .glb bytes and the joints.
// THREE: the npm package `three` (for its quaternions and matrices).

/** VRM names in crowd_bone order, and what each bone points at (a child joint or a tip). */
export const BONES = ['hips', 'spine', 'head', 'leftUpperArm', 'leftLowerArm', 'leftHand', 'rightUpperArm',
  'rightLowerArm', 'rightHand', 'leftUpperLeg', 'leftLowerLeg', 'leftFoot', 'rightUpperLeg', 'rightLowerLeg', 'rightFoot'];
export const PARENT = [-1, 0, 1, 1, 3, 4, 1, 6, 7, 0, 9, 10, 0, 12, 13];
export const TIP = ['spine', 'head', 'headTip', 'leftLowerArm', 'leftHand', 'leftHandTip', 'rightLowerArm', 'rightHand',
  'rightHandTip', 'leftLowerLeg', 'leftFoot', 'leftFootTip', 'rightLowerLeg', 'rightFoot', 'rightFootTip'];

// T-pose joints (metres): the hands along the arms, the legs straight, the feet flat and forward
const LEFT = {
  hips: [0, 0.93, 0], spine: [0, 1.03, 0], head: [0, 1.45, 0], headTip: [0, 1.67, 0],
  leftUpperArm: [0.18, 1.35, 0], leftLowerArm: [0.46, 1.35, 0], leftHand: [0.72, 1.35, 0], leftHandTip: [0.82, 1.35, 0],
  leftUpperLeg: [0.1, 0.93, 0], leftLowerLeg: [0.1, 0.48, 0], leftFoot: [0.1, 0.06, 0], leftFootTip: [0.1, 0.06, 0.16],
};
export const JOINTS = { ...LEFT };
for (const [name, [x, y, z]] of Object.entries(LEFT))
  if (name.startsWith('left')) JOINTS['right' + name.slice(4)] = [-x, y, z];

export function buildVrm(THREE) {
  const nodes = [], chunks = [], accessors = [], views = [];
  let byteLength = 0;
  const data = (typed, target) => {
    const bytes = new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength);
    chunks.push(bytes);
    const pad = (4 - (bytes.length % 4)) % 4;
    if (pad) chunks.push(new Uint8Array(pad));
    views.push({ buffer: 0, byteOffset: byteLength, byteLength: bytes.length, ...(target ? { target } : {}) });
    byteLength += bytes.length + pad;
    return views.length - 1;
  };
  const accessor = (typed, type, componentType, count, extra = {}) => {
    accessors.push({ bufferView: data(typed), componentType, count, type, ...extra });
    return accessors.length - 1;
  };

  // raw bones: rest rotations drawn from a fixed sequence, translations that put the joints above
  let seed = 12345;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const worldRotation = new Map(), index = new Map();
  const order = [...BONES, 'headTip', 'leftHandTip', 'rightHandTip', 'leftFootTip', 'rightFootTip'];
  const parentOf = (name) => {
    const b = BONES.indexOf(name);
    if (b >= 0) return PARENT[b] >= 0 ? BONES[PARENT[b]] : null;
    return BONES[TIP.indexOf(name)];
  };
  for (const name of order) {
    const parent = parentOf(name);
    const local = BONES.includes(name)
      ? new THREE.Quaternion().setFromAxisAngle(new THREE.Vector3(random() - 0.5, random() - 0.5, random() - 0.5).normalize(), (random() - 0.5) * 2.5)
      : new THREE.Quaternion();
    const parentWorld = parent ? worldRotation.get(parent) : new THREE.Quaternion();
    worldRotation.set(name, parentWorld.clone().multiply(local));
    const offset = new THREE.Vector3(...JOINTS[name]).sub(new THREE.Vector3(...(parent ? JOINTS[parent] : [0, 0, 0])))
      .applyQuaternion(parentWorld.clone().invert());
    index.set(name, nodes.length + 1); // node 0 is the root
    nodes.push({ name, translation: offset.toArray(), rotation: local.toArray(), children: [] });
  }
  for (const name of order) {
    const parent = parentOf(name);
    if (parent) nodes[index.get(parent) - 1].children.push(index.get(name));
  }
  for (const n of nodes) if (!n.children.length) delete n.children;

  // the mesh: a box per bone from its joint to what it points at, skinned to that bone alone
  const pos = [], nrm = [], joints = [], weights = [], indices = [];
  BONES.forEach((name, b) => {
    const a = new THREE.Vector3(...JOINTS[name]), c = new THREE.Vector3(...JOINTS[TIP[b]]);
    const along = c.clone().sub(a), len = along.length();
    const basis = new THREE.Matrix4().makeBasis(...frame(THREE, along.normalize()));
    const half = [0.04, len / 2, 0.04];
    for (const [axis, sign] of [[0, 1], [0, -1], [1, 1], [1, -1], [2, 1], [2, -1]]) {
      const u = (axis + 1) % 3, v = (axis + 2) % 3, base = pos.length / 3;
      for (const [su, sv] of [[-1, -1], [1, -1], [1, 1], [-1, 1]]) {
        const p = [0, 0, 0];
        p[axis] = sign * half[axis];
        p[u] = su * half[u] * sign;
        p[v] = sv * half[v];
        p[1] += len / 2;
        const n = [0, 0, 0];
        n[axis] = sign;
        pos.push(...new THREE.Vector3(...p).applyMatrix4(basis).add(a).toArray());
        nrm.push(...new THREE.Vector3(...n).transformDirection(basis).toArray());
        joints.push(b, 0, 0, 0);
        weights.push(1, 0, 0, 0);
      }
      indices.push(base, base + 1, base + 2, base, base + 2, base + 3);
    }
  });
  const positions = new Float32Array(pos);
  const min = [0, 1, 2].map((k) => Math.min(...positions.filter((_, i) => i % 3 === k)));
  const max = [0, 1, 2].map((k) => Math.max(...positions.filter((_, i) => i % 3 === k)));
  const count = positions.length / 3;
  const attributes = {
    POSITION: accessor(positions, 'VEC3', 5126, count, { min, max }),
    NORMAL: accessor(new Float32Array(nrm), 'VEC3', 5126, count),
    JOINTS_0: accessor(new Uint16Array(joints), 'VEC4', 5123, count),
    WEIGHTS_0: accessor(new Float32Array(weights), 'VEC4', 5126, count),
  };
  const indexAccessor = accessor(new Uint16Array(indices), 'SCALAR', 5123, indices.length);
  const inverseBind = new Float32Array(BONES.length * 16);
  BONES.forEach((name, b) => {
    const m = new THREE.Matrix4().compose(new THREE.Vector3(...JOINTS[name]), worldRotation.get(name), new THREE.Vector3(1, 1, 1));
    inverseBind.set(m.invert().elements, b * 16);
  });
  const ibm = accessor(inverseBind, 'MAT4', 5126, BONES.length);

  const meshNode = nodes.length + 1;
  const gltf = {
    asset: { version: '2.0', generator: 'crowd web/test/vrm_build.mjs' },
    extensionsUsed: ['VRMC_vrm'],
    extensions: {
      VRMC_vrm: {
        specVersion: '1.0',
        meta: { name: 'crowd test avatar', version: '1', authors: ['crowd'], licenseUrl: 'https://vrm.dev/licenses/1.0/' },
        humanoid: { humanBones: Object.fromEntries(BONES.map((name) => [name, { node: index.get(name) }])) },
      },
    },
    scene: 0,
    scenes: [{ nodes: [0, meshNode] }],
    nodes: [{ name: 'root', children: [index.get('hips')] }, ...nodes, { name: 'body', mesh: 0, skin: 0 }],
    meshes: [{ primitives: [{ attributes, indices: indexAccessor, material: 0 }] }],
    materials: [{ name: 'body', doubleSided: true, pbrMetallicRoughness: { baseColorFactor: [0.9, 0.45, 0.2, 1] } }],
    skins: [{ joints: BONES.map((name) => index.get(name)), inverseBindMatrices: ibm, skeleton: index.get('hips') }],
    accessors,
    bufferViews: views,
    buffers: [{ byteLength }],
  };
  return glb(gltf, chunks, byteLength);
}

// An orthonormal basis whose second axis is `along`.
function frame(THREE, along) {
  const side = Math.abs(along.z) < 0.9 ? new THREE.Vector3(0, 0, 1) : new THREE.Vector3(1, 0, 0);
  const x = new THREE.Vector3().crossVectors(along, side).normalize();
  const z = new THREE.Vector3().crossVectors(x, along).normalize();
  return [x, along.clone(), z];
}

function glb(gltf, chunks, binLength) {
  let json = new TextEncoder().encode(JSON.stringify(gltf));
  const jsonPad = (4 - (json.length % 4)) % 4;
  json = Uint8Array.from([...json, ...new Array(jsonPad).fill(0x20)]);
  const total = 12 + 8 + json.length + 8 + binLength;
  const out = new Uint8Array(total), view = new DataView(out.buffer);
  view.setUint32(0, 0x46546c67, true); // glTF
  view.setUint32(4, 2, true);
  view.setUint32(8, total, true);
  view.setUint32(12, json.length, true);
  view.setUint32(16, 0x4e4f534a, true); // JSON
  out.set(json, 20);
  let at = 20 + json.length;
  view.setUint32(at, binLength, true);
  view.setUint32(at + 4, 0x004e4942, true); // BIN
  at += 8;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
