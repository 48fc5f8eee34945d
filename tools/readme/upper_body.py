#!/usr/bin/env python3
"""Writes the clips and the scene behind README's upper-body picture: the CMU walk as a webcam
sees an upper-body shot (tests/tracking's tracker-noise model, legs out of frame for the whole
clip) and, beside it, the same walk fully in view.

    /usr/bin/python3 tools/readme/upper_body.py ../shared/data OUT_DIR
    build/tools/crowd render OUT_DIR/upper_body.json --out tools/readme/upper_body.png \
        --frame 150 --size 960x540 --count 6

Needs NumPy (Debian: python3-numpy)."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tests', 'tracking'))
import noise  # noqa: E402
import skeleton  # noqa: E402


def main(data, out):
    os.makedirs(out, exist_ok=True)
    truth = skeleton.Truth(os.path.join(data, 'bvh', 'cmu_scaled_131_01.bvh'), 4)  # 30 fps
    noise.noisy(truth, 11, 'walk', dropouts=False, upper_body=True).write(os.path.join(out, 'walk_upper_body.csv'))
    noise.clean(truth).write(os.path.join(out, 'walk_in_view.csv'))
    limbs = {'frame': 'engine'}  # the defaults otherwise: stable, hold and re-acquire 0.3 s
    rig = {'name': 'avatar', 'limbs': limbs,
           'parameters': [{'id': 'ParamEyeLOpen', 'min': 0, 'max': 1, 'default': 1},
                          {'id': 'ParamEyeROpen', 'min': 0, 'max': 1, 'default': 1},
                          {'id': 'ParamBreath', 'min': 0, 'max': 1, 'default': 0}],
           'harmonic': {'parameters': [{'id': 'ParamBreath', 'origin': 0.5, 'range': 0.5, 'duration': 3}]},
           'blink': {'parameters': ['ParamEyeLOpen', 'ParamEyeROpen']}}
    scene = {'seed': 3, 'dt': 1 / 30, 'frames': 150, 'rigs': [rig],
             'groups': [{'rig': 'avatar', 'count': 3, 'pose': {'clip': 'walk_upper_body.csv', 'offset': 'random'},
                         'place': {'at': [-1.5, 0], 'columns': 3}},
                        {'rig': 'avatar', 'count': 3, 'pose': {'clip': 'walk_in_view.csv', 'offset': 'random'},
                         'place': {'at': [1.5, 0], 'columns': 3}}]}
    with open(os.path.join(out, 'upper_body.json'), 'w') as f:
        json.dump(scene, f, indent=1)


if __name__ == '__main__':
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
