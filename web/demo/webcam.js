// Optional: one avatar driven from the webcam through MediaPipe's pose landmarker. Not part of
// the tests (no camera here). MediaPipe is not bundled: the page loads @mediapipe/tasks-vision
// from its CDN (change MEDIAPIPE to a copy you serve yourself).
const MEDIAPIPE = 'https://cdn.jsdelivr.net/npm/@mediapipe/tasks-vision@0.10.14';

export async function startWebcam(crowd, canvas) {
  const { FilesetResolver, PoseLandmarker } = await import(`${MEDIAPIPE}/vision_bundle.mjs`);
  const files = await FilesetResolver.forVisionTasks(`${MEDIAPIPE}/wasm`);
  const landmarker = await PoseLandmarker.createFromOptions(files, {
    baseOptions: { modelAssetPath: 'https://storage.googleapis.com/mediapipe-models/pose_landmarker/pose_landmarker_lite/float16/1/pose_landmarker_lite.task' },
    runningMode: 'VIDEO',
  });
  const video = document.createElement('video');
  video.srcObject = await navigator.mediaDevices.getUserMedia({ video: true });
  video.muted = true;
  await video.play();

  // A rig with limbs only, landmarks as MediaPipe gives them, smoothed with its own settings.
  const engine = crowd.engine();
  const rig = engine.rig({ name: 'webcam', limbs: { frame: 'mediapipe_world', smoothing: true } });
  const me = rig.add(1);
  // its own small canvas: the crowd's redraws every frame
  const view = document.createElement('canvas');
  view.width = view.height = 240;
  view.style = 'position: fixed; right: 12px; bottom: 12px; background: #2e3440; width: 240px';
  document.body.append(view);
  const g = view.getContext('2d');
  // bones as segments from a joint along local +y (arms, legs) or up (chest, head)
  const SEGMENTS = [[1, -1, 0.5], [2, 1, 0.2], [3, 1, 0.29], [4, 3, 0.26], [6, 1, 0.29], [7, 6, 0.26],
    [9, -1, 0.42], [10, 9, 0.42], [12, -1, 0.42], [13, 12, 0.42]];
  let last = performance.now();
  const loop = () => {
    const now = performance.now();
    const result = landmarker.detectForVideo(video, now);
    engine.setPoseFromWorldLandmarks(me, result.worldLandmarks); // the JS result, as it comes
    engine.tick(Math.min(1, (now - last) / 1000));
    last = now;
    const q = [];
    for (let b = 0; b < 15; b++) q.push(engine.get('bone_world', me, b));
    const ends = {};
    g.clearRect(0, 0, 240, 240);
    g.strokeStyle = '#ebcb8b';
    g.lineWidth = 4;
    g.beginPath();
    for (const [bone, parent, len] of SEGMENTS) {
      const [x, y, z, w] = q[bone];
      // the bone's +y axis: the second column of its rotation matrix
      const dx = 2 * (x * y - w * z), dy = 1 - 2 * (x * x + z * z);
      const start = parent < 0 ? [120, 120] : ends[parent] ?? [120, 120];
      const end = [start[0] + dx * len * 120, start[1] - dy * len * 120];
      ends[bone] = end;
      g.moveTo(start[0], start[1]);
      g.lineTo(end[0], end[1]);
    }
    g.stroke();
    requestAnimationFrame(loop);
  };
  requestAnimationFrame(loop);
}
