// Landmarks from MediaPipe's JavaScript pose landmarker (@mediapipe/tasks-vision): a page passes
// `result.worldLandmarks` (or the whole result, or its JSON text) and gets the 132 floats a rig's
// pose field holds (33 landmarks: x, y, z, visibility). The rules are the ones of the C tools'
// landmark JSON reader (SPEC 7): the first pose is used; an empty list is a frame without a
// detection; a pose of other than 33 landmarks is an error; x, y, z are required, finite and
// within the float32 range; visibility is optional (default 1) and lies in [0, 1]; other fields
// (presence, image landmarks) are ignored. Errors name the field by its path.

import { LANDMARK_COUNT } from './crowd_enums.js';

export { LANDMARK_COUNT };
export const POSE_FLOATS = LANDMARK_COUNT * 4;
const FLOAT32_MAX = 3.4028234663852886e38;

/** Thrown for landmarks that break a rule; `path` names the field. */
export class LandmarkError extends Error {
  constructor(path, message) {
    super(`${path}: ${message}`);
    this.name = 'LandmarkError';
    this.path = path;
  }
}

function coordinate(lm, key, path) {
  const v = lm[key];
  if (v === undefined) throw new LandmarkError(`${path}.${key}`, 'missing');
  if (typeof v !== 'number') throw new LandmarkError(`${path}.${key}`, `not a number (${typeof v})`);
  if (!Number.isFinite(v)) throw new LandmarkError(`${path}.${key}`, `not finite (${v})`);
  if (Math.abs(v) > FLOAT32_MAX) throw new LandmarkError(`${path}.${key}`, `outside the float32 range (${v})`);
  return v;
}

/**
 * Reads one pose (an array of 33 {x, y, z, visibility?}) into out[offset .. offset + 132).
 * Nothing is written unless every landmark is valid.
 */
export function readPose(pose, out, offset = 0, path = 'pose') {
  if (!Array.isArray(pose)) throw new LandmarkError(path, 'not an array of landmarks');
  if (pose.length !== LANDMARK_COUNT)
    throw new LandmarkError(path, `${pose.length} landmarks, a pose has ${LANDMARK_COUNT}`);
  const values = new Float64Array(POSE_FLOATS);
  for (let k = 0; k < LANDMARK_COUNT; k++) {
    const lm = pose[k], p = `${path}[${k}]`;
    if (lm === null || typeof lm !== 'object' || Array.isArray(lm)) throw new LandmarkError(p, 'not a landmark object');
    values[4 * k] = coordinate(lm, 'x', p);
    values[4 * k + 1] = coordinate(lm, 'y', p);
    values[4 * k + 2] = coordinate(lm, 'z', p);
    let vis = lm.visibility;
    if (vis === undefined) vis = 1;
    else if (typeof vis !== 'number' || !(vis >= 0 && vis <= 1))
      throw new LandmarkError(`${p}.visibility`, `not a number in [0, 1] (${vis})`);
    values[4 * k + 3] = vis;
  }
  out.set(values, offset); // each value rounded once to float32, as the C reader does
  return out;
}

/**
 * The first pose of MediaPipe's worldLandmarks as 132 floats, or null when the list is empty
 * (no one was detected). Accepts `result.worldLandmarks`, the result object itself (also with
 * the Python API's `pose_world_landmarks`), or the result's JSON text.
 */
export function poseFromWorldLandmarks(input) {
  let path = 'worldLandmarks';
  let value = input;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch (e) {
      throw new LandmarkError('(JSON text)', e.message);
    }
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    if ('worldLandmarks' in value) value = value.worldLandmarks;
    else if ('pose_world_landmarks' in value) {
      value = value.pose_world_landmarks;
      path = 'pose_world_landmarks';
    } else throw new LandmarkError('worldLandmarks', 'missing (not a pose landmarker result)');
  }
  if (!Array.isArray(value)) throw new LandmarkError(path, 'not a list of poses');
  if (value.length === 0) return null;
  return readPose(value[0], new Float32Array(POSE_FLOATS), 0, `${path}[0]`);
}
