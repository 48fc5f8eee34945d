// Bring your own avatar: a VRM (0.x or 1.0, loaded with @pixiv/three-vrm) becomes the crowd's
// avatar, drawn instanced from the same bone texture as the built-in humanoid.
//
// The binding is VMC's and VRM Animation's (tools/vmc.h, tools/vrma.h): crowd's 15 bones are
// VRM's hips, spine (crowd's chest), head and the limbs; the turn of bone b from the T-pose is
// A = W * inverse(B), W its world rotation and B the engine's solve of the documented T-pose with
// the rig's limb settings; the engine frame is glTF's with z negated (x, y, z) -> (x, y, -z), so
// in the VRM's frame (right-handed, Y up, facing +Z) the turn is G = (-A.x, -A.y, A.z, A.w), and
// the local rotation of a normalised bone inverse(G[parent]) * G (VMC's local in glTF's frame).
// Bones the crowd does not drive (chest, neck, shoulders, fingers, hair) keep their rest rotation
// relative to the nearest driven bone above them. In the shader every vertex follows its skin
// joints' driven bones: p' = G_b (p - rest_b) + joint'_b, joint'_b the posed joint (the hips
// stay at their rest place; each child joint at its parent's plus G_parent times the rest offset).
import * as THREE from 'three';

/** VRM humanoid names of crowd's bones, in crowd_bone order. */
export const VRM_BONES = ['hips', 'spine', 'head', 'leftUpperArm', 'leftLowerArm', 'leftHand', 'rightUpperArm',
  'rightLowerArm', 'rightHand', 'leftUpperLeg', 'leftLowerLeg', 'leftFoot', 'rightUpperLeg', 'rightLowerLeg', 'rightFoot'];
export const PARENT = [-1, 0, 1, 1, 3, 4, 1, 6, 7, 0, 9, 10, 0, 12, 13];

// tools/vmc.h's T-pose, engine frame, metres: [left landmark, right landmark, x, y, z] of the left
// side; the right side mirrors x.
const TPOSE = [[0, 0, 0, 0.66, -0.1], [2, 5, 0.04, 0.69, -0.075], [1, 4, 0.03, 0.69, -0.075], [3, 6, 0.05, 0.69, -0.07],
  [7, 8, 0.075, 0.66, 0], [9, 10, 0.02, 0.62, -0.085], [11, 12, 0.18, 0.5, 0], [13, 14, 0.46, 0.5, 0],
  [15, 16, 0.72, 0.5, 0], [17, 18, 0.8, 0.5, 0.03], [19, 20, 0.81, 0.5, -0.03], [21, 22, 0.77, 0.5, -0.06],
  [23, 24, 0.1, 0, 0], [25, 26, 0.1, -0.45, 0], [27, 28, 0.1, -0.88, 0], [29, 30, 0.1, -0.93, 0.04],
  [31, 32, 0.1, -0.93, -0.13]];

/** inverse(B) of each bone (60 floats): the T-pose solved with `limbs` (the crowd rig's settings). */
export function bindInverse(crowd, limbs = {}) {
  const landmarks = new Float32Array(132);
  for (const [l, r, x, y, z] of TPOSE) {
    landmarks.set([x, y, z, 1], l * 4);
    landmarks.set([-x, y, z, 1], r * 4);
  }
  const engine = crowd.engine();
  try {
    const rig = engine.rig({ limbs: { ...limbs, frame: 'engine', outputs: 'both' } });
    const one = rig.add(1);
    engine.set('pose', one, landmarks);
    engine.tick(0);
    const out = new Float32Array(60);
    for (let b = 0; b < 15; b++) {
      const q = engine.get('bone_world', one, b);
      out.set([-q[0], -q[1], -q[2], q[3]], b * 4);
    }
    return out;
  } finally {
    engine.destroy();
  }
}

/** Loads a VRM from a URL, a File or an ArrayBuffer; VRM 0.x is turned to face +Z as VRM 1.0 does. */
export async function loadVrm(source) {
  const [{ GLTFLoader }, { VRMLoaderPlugin, VRMUtils }] = await Promise.all([
    import('three/addons/loaders/GLTFLoader.js'), import('@pixiv/three-vrm')]);
  const loader = new GLTFLoader();
  loader.register((parser) => new VRMLoaderPlugin(parser, { autoUpdateHumanBones: true }));
  const gltf = typeof source === 'string' ? await loader.loadAsync(source)
    : await loader.parseAsync(source instanceof ArrayBuffer ? source : await source.arrayBuffer(), '');
  const vrm = gltf.userData.vrm;
  if (!vrm) throw new Error('not a VRM: the file has no VRMC_vrm (1.0) or VRM (0.x) extension');
  for (const name of VRM_BONES)
    if (!vrm.humanoid.getRawBoneNode(name)) throw new Error(`the VRM has no humanoid bone ${name}`);
  VRMUtils.rotateVRM0(vrm);
  vrm.scene.updateMatrixWorld(true);
  return vrm;
}

// G = mirror_z(W * Binv) for one bone: q (x, y, z, w) into out at o.
function turn(w, binv, b, out, o) {
  const [ax, ay, az, aw] = [w[0], w[1], w[2], w[3]];
  const bx = binv[b * 4], by = binv[b * 4 + 1], bz = binv[b * 4 + 2], bw = binv[b * 4 + 3];
  const x = aw * bx + ax * bw + ay * bz - az * by;
  const y = aw * by - ax * bz + ay * bw + az * bx;
  const z = aw * bz + ax * by - ay * bx + az * bw;
  const s = aw * bw - ax * bx - ay * by - az * bz;
  out[o] = -x, out[o + 1] = -y, out[o + 2] = z, out[o + 3] = s;
}

const glsl = /* glsl */ `
uniform vec3 restJoint[15];
uniform vec4 bindInv[15];
in vec4 crowdBones, crowdWeights;
vec4 qmul(vec4 a, vec4 b) { return vec4(a.w * b.xyz + b.w * a.xyz + cross(a.xyz, b.xyz), a.w * b.w - dot(a.xyz, b.xyz)); }
vec4 turnOf(int b, int i) { vec4 a = qmul(boneWorld(b, i), bindInv[b]); return vec4(-a.x, -a.y, a.z, a.w); }
vec3 skinned(vec3 p, int b, int i) {
  vec3 q = rotate(turnOf(b, i), p - restJoint[b]) + restJoint[0];
  for (int j = b; j > 0; j = PARENT[j]) q += rotate(turnOf(PARENT[j], i), restJoint[j] - restJoint[PARENT[j]]);
  return q;
}`;

/**
 * The VRM drawn as the crowd: { group (instanced meshes to add to the scene), pose(world) (poses
 * the VRM's own skeleton like instance's bones: world = 60 floats of W) }. `shader`: { head
 * (the bone texture's GLSL: boneWorld, rotate, PARENT, place, placeNormal, hash), uniforms
 * (shared with the built-in avatar), count (instances drawn) }.
 */
export function crowdVrm(vrm, binv, shader) {
  const raw = VRM_BONES.map((name) => vrm.humanoid.getRawBoneNode(name));
  const rest = raw.map((node) => node.getWorldPosition(new THREE.Vector3()));
  const driven = new Map(raw.map((node, b) => [node, b]));
  const follow = (node) => { // the nearest driven bone at or above a node (the hips above them all)
    for (let n = node; n; n = n.parent) if (driven.has(n)) return driven.get(n);
    return 0;
  };
  const uniforms = {
    ...shader.uniforms,
    restJoint: { value: rest },
    bindInv: { value: Array.from({ length: 15 }, (_, b) => new THREE.Vector4(...binv.slice(b * 4, b * 4 + 4))) },
  };
  const group = new THREE.Group();
  const v = new THREE.Vector3(), nrm = new THREE.Vector3(), normalMatrix = new THREE.Matrix3();
  vrm.scene.traverse((mesh) => {
    if (!mesh.isMesh) return;
    const g = mesh.geometry, count = g.attributes.position.count;
    const pos = new Float32Array(count * 3), normals = new Float32Array(count * 3);
    const bones = new Float32Array(count * 4), weights = new Float32Array(count * 4);
    normalMatrix.getNormalMatrix(mesh.matrixWorld);
    const fixed = follow(mesh.parent);
    for (let k = 0; k < count; k++) {
      mesh.getVertexPosition(k, v).applyMatrix4(mesh.matrixWorld); // morphs and skin at rest
      pos.set([v.x, v.y, v.z], k * 3);
      if (g.attributes.normal) nrm.fromBufferAttribute(g.attributes.normal, k).applyMatrix3(normalMatrix).normalize();
      else nrm.set(0, 1, 0);
      normals.set([nrm.x, nrm.y, nrm.z], k * 3);
      if (mesh.isSkinnedMesh) {
        for (let c = 0; c < 4; c++) {
          const w = g.attributes.skinWeight.getComponent(k, c);
          bones[k * 4 + c] = w > 0 ? follow(mesh.skeleton.bones[g.attributes.skinIndex.getComponent(k, c)]) : 0;
          weights[k * 4 + c] = w;
        }
      } else {
        bones[k * 4] = fixed;
        weights[k * 4] = 1;
      }
    }
    const geometry = new THREE.InstancedBufferGeometry();
    geometry.setAttribute('position', new THREE.BufferAttribute(pos, 3));
    geometry.setAttribute('normal', new THREE.BufferAttribute(normals, 3));
    geometry.setAttribute('crowdBones', new THREE.BufferAttribute(bones, 4));
    geometry.setAttribute('crowdWeights', new THREE.BufferAttribute(weights, 4));
    if (g.attributes.uv) geometry.setAttribute('uv', g.attributes.uv);
    if (g.index) geometry.setIndex(g.index);
    geometry.instanceCount = shader.count;
    for (const range of g.groups.length ? g.groups : [{ start: 0, count: g.index ? g.index.count : count, materialIndex: 0 }]) {
      const source = Array.isArray(mesh.material) ? mesh.material[range.materialIndex] : mesh.material;
      const part = geometry.clone();
      part.instanceCount = shader.count;
      part.setDrawRange(range.start, range.count);
      const map = source?.map ?? null;
      const material = new THREE.ShaderMaterial({
        glslVersion: THREE.GLSL3,
        side: source?.side ?? THREE.FrontSide,
        defines: map ? { USE_CROWD_MAP: '' } : {},
        uniforms: { ...uniforms, colour: { value: source?.color?.clone() ?? new THREE.Color(0.8, 0.8, 0.8) }, map: { value: map } },
        vertexShader: `${shader.head}${glsl}
out vec2 vUv;
out vec3 vNormal;
void main() {
  int i = gl_InstanceID;
  vec3 p = vec3(0.0), n = vec3(0.0);
  for (int k = 0; k < 4; k++) {
    float w = crowdWeights[k];
    if (w <= 0.0) continue;
    int b = int(crowdBones[k] + 0.5);
    p += w * skinned(position, b, i);
    n += w * rotate(turnOf(b, i), normal);
  }
  vNormal = placeNormal(vec3(-n.x, n.y, -n.z), i);
#ifdef USE_CROWD_MAP
  vUv = uv;
#else
  vUv = vec2(0.0);
#endif
  // the crowd's walk faces -Z in the VRM's frame (+z in the engine's): turned to face the camera
  // as the built-in avatars do
  gl_Position = projectionMatrix * viewMatrix * vec4(place(vec3(-p.x, p.y, -p.z), i), 1.0);
}`,
        fragmentShader: /* glsl */ `
precision highp float;
uniform vec3 lightDir, colour;
uniform sampler2D map;
in vec2 vUv;
in vec3 vNormal;
out vec4 fragColour;
void main() {
  vec4 c = vec4(colour, 1.0);
#ifdef USE_CROWD_MAP
  c *= texture(map, vUv);
  if (c.a < 0.5) discard;
#endif
  vec3 n = normalize(vNormal);
  float light = 0.45 + 0.1 * n.y + 0.5 * max(dot(n, lightDir), 0.0);
  fragColour = vec4(c.rgb * light, 1.0);
}`,
      });
      const drawn = new THREE.Mesh(part, material);
      drawn.frustumCulled = false;
      group.add(drawn);
    }
  });

  const turns = new Float32Array(60), local = new THREE.Quaternion(), parent = new THREE.Quaternion();
  const vrm0 = vrm.meta?.metaVersion === '0';
  /** Poses the VRM's own skeleton (three-vrm's normalised bones) with world rotations W. */
  function pose(world) {
    for (let b = 0; b < 15; b++) turn(world.subarray(b * 4, b * 4 + 4), binv, b, turns, b * 4);
    for (let b = 0; b < 15; b++) {
      local.fromArray(turns, b * 4);
      if (PARENT[b] >= 0) local.premultiply(parent.fromArray(turns, PARENT[b] * 4).invert());
      if (vrm0) local.set(-local.x, local.y, -local.z, local.w); // VRM 0.x's normalised bones face -Z
      vrm.humanoid.getNormalizedBoneNode(VRM_BONES[b]).quaternion.copy(local);
    }
    vrm.humanoid.update();
    vrm.scene.updateMatrixWorld(true);
  }
  return { group, pose };
}
