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
  const g = canvas.getContext('2d');
  let last = performance.now();
  const loop = () => {
    const now = performance.now();
    const result = landmarker.detectForVideo(video, now);
    engine.setPoseFromWorldLandmarks(me, result.worldLandmarks); // the JS result, as it comes
    engine.tick(Math.min(1, (now - last) / 1000));
    last = now;
    const world = engine.get('bone_world', me, 2); // the head's rotation
    g.fillStyle = '#bf616a';
    g.fillRect(canvas.width - 150, 10, 140, 24);
    g.fillStyle = '#fff';
    g.fillText(`head q ${Array.from(world, (x) => x.toFixed(2)).join(' ')}`, canvas.width - 146, 26);
    requestAnimationFrame(loop);
  };
  requestAnimationFrame(loop);
}
