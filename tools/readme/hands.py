#!/usr/bin/env python3
"""Draws README's picture of solved hands: MediaPipe's own Hand Landmarker results for its four
gesture photos (../shared/data/mediapipe/hands: fist, pointing up, victory, thumb up), each fed
to `crowd pose --hands` (beside a still T-pose body), and drawn from the solved finger bones:
the palm (wrist and knuckles) from the landmarks, then each finger bone from its knuckle along
its solved world rotation (local +y, the default y_along_bone fix) for its landmark segment's
length. Seen as the camera saw it (MediaPipe's x right, y down), the thumb orange, the index
yellow, the middle green, the ring blue, the little purple.

    /usr/bin/python3 tools/readme/hands.py ../shared/data build/tools/crowd tools/readme/hands.png

Standard library only (the PNG is written with zlib)."""
import os
import struct
import subprocess
import sys
import tempfile
import zlib

GESTURES = [('fist', 'fist'), ('pointing_up', 'pointing up'), ('victory', 'victory'), ('thumb_up', 'thumb up')]
# vmc.h's T-pose body (engine frame, left side; the right mirrors x): a still body for the hands
TPOSE = [(0, 0, 0.0, 0.66, -0.10), (2, 5, 0.04, 0.69, -0.075), (1, 4, 0.03, 0.69, -0.075), (3, 6, 0.05, 0.69, -0.07),
         (7, 8, 0.075, 0.66, 0.0), (9, 10, 0.02, 0.62, -0.085), (11, 12, 0.18, 0.50, 0.0), (13, 14, 0.46, 0.50, 0.0),
         (15, 16, 0.72, 0.50, 0.0), (17, 18, 0.80, 0.50, 0.03), (19, 20, 0.81, 0.50, -0.03), (21, 22, 0.77, 0.50, -0.06),
         (23, 24, 0.10, 0.0, 0.0), (25, 26, 0.10, -0.45, 0.0), (27, 28, 0.10, -0.88, 0.0), (29, 30, 0.10, -0.93, 0.04),
         (31, 32, 0.10, -0.93, -0.13)]
BONES = ['thumb_metacarpal', 'thumb_proximal', 'thumb_distal'] + [
    f'{f}_{s}' for f in ('index', 'middle', 'ring', 'little') for s in ('proximal', 'intermediate', 'distal')]
FROM = [1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15, 17, 18, 19]
COLOURS = [(240, 140, 40), (230, 200, 40), (60, 170, 80), (60, 120, 220), (150, 80, 200)]


def world_landmarks(path):
    """The label and the 21 world landmarks of a result in the proto's text form."""
    text = open(path).read()
    label = text.split('label: "')[1].split('"')[0]
    block = text.split('world_landmarks {')[1]
    pts = []
    for part in block.split('landmark {')[1:22]:
        v = {k.strip(): float(x) for k, x in (line.split(':') for line in part.strip().split('\n') if ':' in line)}
        pts.append((v['x'], v['y'], v['z']))
    return label, pts


def rotate(q, v):
    x, y, z, w = q
    tx, ty, tz = 2 * (y * v[2] - z * v[1]), 2 * (z * v[0] - x * v[2]), 2 * (x * v[1] - y * v[0])
    return (v[0] + w * tx + (y * tz - z * ty), v[1] + w * ty + (z * tx - x * tz), v[2] + w * tz + (x * ty - y * tx))


def solve(crowd, work, label, pts):
    clip = os.path.join(work, 'body.csv')
    row = [0.0] * 132
    for l, r, x, y, z in TPOSE:
        row[l * 4:l * 4 + 4] = [x, y, z, 1]
        row[r * 4:r * 4 + 4] = [-x, y, z, 1]
    header = ['frame', 't_s'] + [f'lm{k}_{c}' for k in range(33) for c in ('x', 'y', 'z', 'vis')]
    with open(clip, 'w') as f:
        f.write(','.join(header) + '\n0,0,' + ','.join(f'{v:.9g}' for v in row) + '\n')
    hands = os.path.join(work, 'hand.ndjson')
    lms = ', '.join(f'{{"x": {x!r}, "y": {y!r}, "z": {z!r}}}' for x, y, z in pts)
    with open(hands, 'w') as f:
        f.write(f'{{"timestampMs": 0, "handedness": [[{{"score": 1, "categoryName": "{label}"}}]], '
                f'"worldLandmarks": [[{lms}]]}}\n')
    out = subprocess.run([crowd, 'pose', clip, '--frame', 'engine', '--hands', hands, '--hand-threshold', '0',
                          '--bones', '-'], check=True, capture_output=True, text=True).stdout
    side = 'right' if label == 'Right' else 'left'  # a camera that does not mirror: the label's hand
    rot = {}
    for line in out.splitlines()[1:]:
        _, _, name, *q = line.split(',')
        if name.startswith(side + '_'):
            rot[name[len(side) + 1:]] = tuple(float(v) for v in q)
    return rot


def draw_hand(img, w, ox, oy, size, pts, rot):
    eng = [(x, -y, z) for x, y, z in pts]  # MediaPipe's frame into the engine's (y up)
    mid = [(min(p[c] for p in eng) + max(p[c] for p in eng)) / 2 for c in range(3)]
    eng = [(p[0] - mid[0], p[1] - mid[1], p[2]) for p in eng]  # each hand in the middle of its panel
    lines = [(0, k) for k in (1, 5, 9, 13, 17)] + [(5, 9), (9, 13), (13, 17)]
    segs = [(eng[a], eng[b], (200, 200, 200)) for a, b in lines]
    for i, (bone, frm) in enumerate(zip(BONES, FROM)):
        colour = COLOURS[0 if i < 3 else 1 + (i - 3) // 3]
        if bone.endswith(('metacarpal', 'proximal')) and not bone == 'thumb_proximal':
            at = eng[frm]
        a, b = eng[frm], eng[frm + 1]
        length = sum((b[c] - a[c]) ** 2 for c in range(3)) ** 0.5
        d = rotate(rot[bone], (0, 1, 0))
        nxt = tuple(at[c] + d[c] * length for c in range(3))
        segs.append((at, nxt, colour))
        at = nxt
    scale = size / 0.2
    for a, b, colour in segs:  # screen: x right, y down as the photo
        x0, y0, x1, y1 = ox + size / 2 + a[0] * scale, oy + size / 2 - a[1] * scale, ox + size / 2 + b[0] * scale, \
            oy + size / 2 - b[1] * scale
        n = int(max(abs(x1 - x0), abs(y1 - y0))) + 1
        for s in range(n + 1):
            px, py = x0 + (x1 - x0) * s / n, y0 + (y1 - y0) * s / n
            for dx in range(-2, 3):
                for dy in range(-2, 3):
                    X, Y = int(px) + dx, int(py) + dy
                    if 0 <= X < w and oy <= Y < oy + size and dx * dx + dy * dy <= 5:
                        img[Y][X] = colour


def main(data, crowd, out):
    size = 240
    w, h = size * len(GESTURES), size
    img = [[(255, 255, 255)] * w for _ in range(h)]
    with tempfile.TemporaryDirectory() as work:
        for k, (name, _) in enumerate(GESTURES):
            label, pts = world_landmarks(os.path.join(data, 'mediapipe', 'hands', f'{name}_landmarks.pbtxt'))
            draw_hand(img, w, k * size, 0, size, pts, solve(crowd, work, label, pts))
    raw = b''.join(b'\0' + bytes(c for px in row for c in px) for row in img)
    chunk = lambda t, d: struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
    with open(out, 'wb') as f:
        f.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0)) +
                chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b''))
    print(f'hands.py: {", ".join(t for _, t in GESTURES)} drawn into {out}')


if __name__ == '__main__':
    main(*sys.argv[1:4])
