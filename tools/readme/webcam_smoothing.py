"""The README's webcam smoothing figures: `crowd pose` (fallback stable) on the tracking harness's
noisy walk and hop at 15 and 30 fps, per One Euro setting: the p95 error of the limb bones against
the motion capture (trusted frames, pooled) and their mean frame-to-frame turn.

  /usr/bin/python3 tools/readme/webcam_smoothing.py [CROWD] [DATA]   (default build/tools/crowd, ../shared/data)
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tests', 'tracking'))
import harness as h  # noqa: E402
import quat  # noqa: E402

CONFIGS = [('no smoothing', ''), ('min_cutoff 1, beta 5', ' --smoothing one_euro --min-cutoff 1 --beta 5'),
           ("MediaPipe's 0.1 / 40", ' --smoothing one_euro'),
           ('min_cutoff 1, beta 0.5', ' --smoothing one_euro --min-cutoff 1 --beta 0.5')]


def main(argv):
    crowd = argv[0] if argv else 'build/tools/crowd'
    data = argv[1] if len(argv) > 1 else h.DATA
    for name, flags in CONFIGS:
        st = h.Study(f'{crowd} pose' + flags, data, fps=(15, 30), variants=('noisy',), modes=('stable',))
        errs, steps = [], []
        for c in st.names:
            for f in (15, 30):
                r = st.run(c, f, 'noisy', 'stable')
                for b in h.FLIP_BONES:
                    errs.append(r.err[r.trust[:, b], b])
                    steps.append(quat.angle(r.world[:-1, b], r.world[1:, b]))
        print(f'{name}: p95 error {np.percentile(np.concatenate(errs), 95):.1f} deg, '
              f'mean turn per frame {np.mean(np.concatenate(steps)):.1f} deg')


if __name__ == '__main__':
    main(sys.argv[1:])
