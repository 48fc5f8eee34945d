# Imports BVH files written by `crowd pose --bvh` / `crowd run --bvh --instance K` with Blender's own
# importer (io_anim_bvh, headless) and checks the armature it builds against the landmarks:
#   blender -b --factory-startup --python-exit-code 1 --python bvh_blender.py -- \
#       [--hands HANDS.txt] [--render OUT.png FRAME] BVH CLIP.csv FRAME_NAME FRAMES FRAME_TIME [BVH CLIP ...]
# Per file, on the imported armature (pose bones evaluated by Blender at every scene frame):
# - the frame count (the action's keys and the scene's range) and the rate (scene fps / fps_base
#   is 1 / FRAME_TIME);
# - every bone's direction in Blender's world, taken back through the importer's axis conversion
#   (BVH -Z forward, Y up, as the importer's defaults) into the file's frame, equals the clip's
#   landmark segment in the right-handed frame (the landmarks' x negated; mediapipe_world also
#   has y down) within 0.05 degrees: the 8 limb segments (shoulder to elbow to wrist, hip to knee
#   to ankle) and pelvis to mid-shoulders (hips, chest);
# - handedness, in Blender's right-handed world with no reference to the file's axes: with up
#   from the hips to the head and forward along the toes (ankle to the foot's end site), the left
#   shoulder and the left hip lie on the subject's left (up x forward) of the right ones: both
#   on every frame, each on 95% of them (a real subject may cross an arm over);
# - with --hands (crowd pose --hands): HANDS.txt holds per frame the 2 x 21 hand landmarks (left
#   hand, then right) already in the file's right-handed frame; every finger bone of the first
#   file (LeftThumbMetacarpal ... RightLittleDistal: head to the next joint's head, the distal
#   ones head to tail, their end site) points along its landmark segment within 0.05 degrees;
# - with --render: FRAME of the first file drawn from the front (the subject facing the camera)
#   by the workbench engine into OUT.png (the README's picture).
# Row k of CLIP is frame k (the clips and scenes the tests write are built so). Exit 1 on a failure.
import builtins
import math
import sys

import bpy
from bpy_extras.io_utils import axis_conversion
from mathutils import Vector

argv = sys.argv[sys.argv.index('--') + 1:]
hands = None
if argv and argv[0] == '--hands':
    with open(argv[1]) as f:
        hands = [[float(v) for v in line.split()] for line in f if line.strip()]
    argv = argv[2:]
render = None
if argv and argv[0] == '--render':
    render = (argv[1], int(argv[2]))
    argv = argv[3:]
jobs = [argv[k:k + 5] for k in range(0, len(argv), 5)]

failures = 0


def fail(msg):
    global failures
    if failures < 20:
        print('bvh_blender: ' + msg)
    failures += 1


def import_bvh(path):
    # Debian's Blender 3.4 opens the file with mode 'rU', which its Python 3.11 rejects
    real_open = builtins.open

    def open_without_u(file, mode='r', *args, **kwargs):
        if isinstance(mode, str) and 'U' in mode:
            mode = mode.replace('U', '') or 'r'
        return real_open(file, mode, *args, **kwargs)

    builtins.open = open_without_u
    try:
        before = set(bpy.data.objects)
        bpy.ops.import_anim.bvh(filepath=path, update_scene_fps=True, update_scene_duration=True)
    finally:
        builtins.open = real_open
    new = [o for o in bpy.data.objects if o not in before and o.type == 'ARMATURE']
    if len(new) != 1:
        raise SystemExit(f'bvh_blender: {path}: the importer made {len(new)} armatures')
    return new[0]


def read_clip(path):
    rows = []
    with open(path) as f:
        next(f)
        for line in f:
            if line.strip():
                rows.append([float(v) if v else float('nan') for v in line.rstrip('\n').split(',')[2:]])
    return rows


def lm(row, *ids):
    return [sum(row[i * 4 + c] for i in ids) / len(ids) for c in range(3)]


def angle(a, b):
    cross = [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    return math.atan2(math.sqrt(sum(c * c for c in cross)), sum(x * y for x, y in zip(a, b)))


def seen(row):
    return all(row[i * 4 + 3] >= 0.5 for i in range(33))


# (bone whose head starts the segment, bone whose head ends it; landmarks of the two ends)
segments = [
    ('LeftUpperArm', 'LeftLowerArm', (11,), (13,)), ('LeftLowerArm', 'LeftHand', (13,), (15,)),
    ('RightUpperArm', 'RightLowerArm', (12,), (14,)), ('RightLowerArm', 'RightHand', (14,), (16,)),
    ('LeftUpperLeg', 'LeftLowerLeg', (23,), (25,)), ('LeftLowerLeg', 'LeftFoot', (25,), (27,)),
    ('RightUpperLeg', 'RightLowerLeg', (24,), (26,)), ('RightLowerLeg', 'RightFoot', (26,), (28,)),
    ('Hips', 'Head', (23, 24), (11, 12)), ('Chest', 'Head', (23, 24, 11, 12), (11, 12)),
]

# the finger bones: (name, first landmark); each runs to the next landmark
fingers = [('ThumbMetacarpal', 1), ('ThumbProximal', 2), ('ThumbDistal', 3)] + [
    (f + s, m + j) for f, m in (('Index', 5), ('Middle', 9), ('Ring', 13), ('Little', 17))
    for j, s in enumerate(('Proximal', 'Intermediate', 'Distal'))]
finger_checked = 0


def check_fingers(k, head, tail):
    global worst, finger_checked
    m = from_blender
    file_worst = 0.0
    for h, side in enumerate(('Left', 'Right')):
        names = [side + n for n, _ in fingers]
        for i, (n, lm0) in enumerate(fingers):
            name = side + n
            nxt = names[i + 1] if not n.endswith('Distal') else None
            got_world = (head[nxt] if nxt else tail[name]) - head[name]
            got = [sum(m[r][c] * got_world[c] for c in range(3)) for r in range(3)]
            row = hands[k]
            a = row[(h * 21 + lm0) * 3:(h * 21 + lm0) * 3 + 3]
            b = row[(h * 21 + lm0 + 1) * 3:(h * 21 + lm0 + 1) * 3 + 3]
            deg = math.degrees(angle(got, [b[c] - a[c] for c in range(3)]))
            finger_checked += 1
            worst = max(worst, deg)
            file_worst = max(file_worst, deg)
            if deg > 0.05:
                fail(f'frame {k + 1} {name}: {deg:.4f} deg from the hand landmarks')
    return file_worst


scene = bpy.context.scene
# from the file's axes into Blender's world, as the importer's defaults (forward -Z, up Y)
to_blender = axis_conversion(from_forward='-Z', from_up='Y').to_3x3()
from_blender = to_blender.inverted()
worst = 0.0
checked = 0
for path, clip_path, frame_name, frames_text, frame_time_text in jobs:
    for o in list(bpy.data.objects):
        bpy.data.objects.remove(o)
    obj = import_bvh(path)
    frames, frame_time = int(frames_text), float(frame_time_text)
    keys = {len(fc.keyframe_points) for fc in obj.animation_data.action.fcurves}
    if keys != {frames}:
        fail(f'{path}: the action has {sorted(keys)} keys per curve, expected {frames}')
    first, last = obj.animation_data.action.frame_range
    if (first, last) != (scene.frame_start, scene.frame_start + frames - 1):
        fail(f'{path}: the action runs frames {first:g}..{last:g}, expected {scene.frame_start}..'
             f'{scene.frame_start + frames - 1}')
    rate = scene.render.fps / scene.render.fps_base
    if abs(rate * frame_time - 1) > 1e-6:
        fail(f'{path}: {rate} frames a second, expected {1 / frame_time}')
    rows = read_clip(clip_path)
    if len(rows) < frames:
        fail(f'{path}: the clip has {len(rows)} rows for {frames} frames')
    y_sign = -1.0 if frame_name == 'mediapipe_world' else 1.0
    pose = obj.pose.bones
    file_worst = 0.0
    frames_checked = frames_swapped = 0
    for k in range(frames):
        row = rows[k]
        if not seen(row):
            continue
        scene.frame_set(scene.frame_start + k)
        head = {b.name: obj.matrix_world @ b.head for b in pose}
        tail = {b.name: obj.matrix_world @ b.tail for b in pose}

        def check(name, got_world, a, b):
            global worst, checked
            # in double (mathutils is float32: its angle() cannot resolve 0.05 degrees)
            m = from_blender
            got = [sum(m[i][j] * got_world[j] for j in range(3)) for i in range(3)]
            la, lb = lm(row, *a), lm(row, *b)
            want = [-(lb[0] - la[0]), y_sign * (lb[1] - la[1]), lb[2] - la[2]]
            deg = math.degrees(angle(got, want))
            checked += 1
            worst = max(worst, deg)
            if deg > 0.05:
                fail(f'{path} frame {k + 1} {name}: {deg:.4f} deg from the landmarks')
            return deg

        for a, b, la, lb in segments:
            file_worst = max(file_worst, check(f'{a} -> {b}', head[b] - head[a], la, lb))
        if hands is not None and path == jobs[0][0]:
            file_worst = max(file_worst, check_fingers(k, head, tail))
        # handedness in Blender's world alone
        up = head['Head'] - head['Hips']
        forward = (tail['LeftFoot'] - head['LeftFoot']) + (tail['RightFoot'] - head['RightFoot'])
        left = up.cross(forward)
        swapped = [l for l, r in (('LeftUpperArm', 'RightUpperArm'), ('LeftUpperLeg', 'RightUpperLeg'))
                   if (head[l] - head[r]).dot(left) <= 0]
        frames_checked += 1
        if swapped:
            frames_swapped += 1
        if len(swapped) == 2:
            fail(f'{path} frame {k + 1}: the left shoulder and hip are on the subject\'s right (mirrored)')
        if (to_blender @ Vector((0, 1, 0))).dot(up) <= 0:
            fail(f'{path} frame {k + 1}: the figure is upside down')
    # a real subject may cross an arm over: a few frames with one pair swapped are no mirror
    if frames_swapped > 0.05 * frames_checked:
        fail(f'{path}: the left shoulder or hip on the subject\'s right on {frames_swapped} of {frames_checked} frames')
    if frames_checked == 0:
        fail(f'{path}: no frame with every landmark seen')
    print(f'bvh_blender: {path}: {frames} frames at {rate:.6g} fps, worst bone direction {file_worst:.3g} deg')

if hands is not None:
    print(f'bvh_blender: {finger_checked} finger bones checked')
    if finger_checked == 0:
        fail('no finger bone checked')
print(f'bvh_blender: worst bone direction {worst:.3g} deg over {checked} bones, {failures} failures')

if render and not failures:
    # render engines draw meshes, not armatures: a tapered box per bone, head to tail, at FRAME
    import bmesh
    out, frame = render
    for o in list(bpy.data.objects):
        bpy.data.objects.remove(o)
    obj = import_bvh(jobs[0][0])
    scene.frame_set(scene.frame_start + frame - 1)
    pose = obj.pose.bones
    bm = bmesh.new()
    mesh = bpy.data.meshes.new('figure')
    # the subject's left limbs orange, the right ones blue: the picture shows the handedness
    for name, colour in (('middle', (0.8, 0.8, 0.8, 1)), ('left', (0.95, 0.45, 0.1, 1)), ('right', (0.15, 0.4, 0.95, 1))):
        m = bpy.data.materials.new(name)
        m.diffuse_color = colour
        mesh.materials.append(m)
    for b in pose:
        h, t = obj.matrix_world @ b.head, obj.matrix_world @ b.tail
        axis = t - h
        length = axis.length
        if length < 1e-6:
            continue
        rot = axis.to_track_quat('Z', 'Y')
        r = 0.12 * length if b.name not in ('Hips', 'Chest') else 0.08 * length
        made = bmesh.ops.create_cone(bm, cap_ends=True, segments=4, radius1=r, radius2=0.4 * r, depth=length)
        side = 1 if b.name.startswith('Left') else 2 if b.name.startswith('Right') else 0
        for v in made['verts']:
            v.co = h + rot @ (v.co + Vector((0, 0, length / 2)))
            for f in v.link_faces:
                f.material_index = side
    bm.to_mesh(mesh)
    bm.free()
    figure = bpy.data.objects.new('figure', mesh)
    scene.collection.objects.link(figure)
    lo = Vector([min(v.co[c] for v in mesh.vertices) for c in range(3)])
    hi = Vector([max(v.co[c] for v in mesh.vertices) for c in range(3)])
    centre = (lo + hi) / 2
    # the subject faces along the toes (horizontally): the camera stands there, looking back
    forward = sum(((obj.matrix_world @ pose[f].tail) - (obj.matrix_world @ pose[f].head)
                   for f in ('LeftFoot', 'RightFoot')), Vector())
    forward.z = 0
    forward.normalize()
    cam_data = bpy.data.cameras.new('front')
    cam_data.type = 'ORTHO'
    cam_data.ortho_scale = 1.25 * max(hi.z - lo.z, 1e-3)
    cam_data.clip_end = 100 * (hi - lo).length
    cam = bpy.data.objects.new('front', cam_data)
    scene.collection.objects.link(cam)
    cam.location = centre + forward * 10 * (hi - lo).length
    cam.rotation_euler = (-forward).to_track_quat('-Z', 'Y').to_euler()
    scene.camera = cam
    scene.render.engine = 'BLENDER_WORKBENCH'
    scene.display.shading.color_type = 'MATERIAL'
    scene.render.resolution_x, scene.render.resolution_y = 240, 320
    scene.render.resolution_percentage = 100
    scene.render.image_settings.file_format = 'PNG'
    scene.render.image_settings.color_mode = 'RGB'
    scene.render.image_settings.compression = 100
    scene.render.filepath = out
    bpy.ops.render.render(write_still=True)
    print(f'bvh_blender: frame {frame} of {jobs[0][0]} drawn from the front into {out}')

sys.exit(1 if failures else 0)
