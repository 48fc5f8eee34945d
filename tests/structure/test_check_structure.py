#!/usr/bin/env python3
"""check_structure.py on small trees, each with one kind of fault: the check names it (and a
clean tree passes). usage: test_check_structure.py"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_structure  # noqa: E402

CLEAN = {
    "simd/cv.h": "#define CV_W 4\n",
    "engine/controllers.h": "#define CROWDI_CONTROLLER_LIST(X) X(LOOK, look) X(FACE, face)\n#endif\n",
    "engine/kernels/look.h": '#ifndef L\n#define L\n#include "common.h"\n#ifdef CROWDI_STAGES\nint s;\n#endif\n#endif\n',
    "engine/kernels/face.h": '#ifndef F\n#define F\n#ifdef CROWDI_STAGES\nint t;\n#endif\n#endif\n',
    "engine/kernels/common.h": '#include "cv.h"\n',
    "engine/kernels/stages.h": '#define CROWDI_STAGES 1\n#include "common.h"\n#include "crowdi_stage_list.h"\n',
    "engine/face.c": '#include "kernels/face.h"\n',
    "engine/look.c": '#include "kernels/look.h"\n',
    "io/a.c": '#include "a.h"\n#include "b.h"\n',
    "io/a.h": "",
    "io/b.c": '#include "b.h"\n',
    "io/b.h": "",
}

FAULTS = [  # (files changed, words the report must hold)
    ({"engine/kernels/common.h": '#include "cv.h"\n#include "face.h"\n',
      "engine/kernels/stages.h": '#include "common.h"\n#define CROWDI_STAGES 1\n#include "crowdi_stage_list.h"\n'},
     ["engine/kernels/stages.h reaches engine/kernels/face.h before it defines CROWDI_STAGES"]),
    ({"engine/kernels/stages.h": '#include "face.h"\n#define CROWDI_STAGES 1\n#include "crowdi_stage_list.h"\n'},
     ["engine/kernels/stages.h reaches engine/kernels/face.h before it defines CROWDI_STAGES"]),
    ({"engine/kernels/stages.h": '#define CROWDI_STAGES 1\n#include "crowdi_stage_list.h"\n#include "face.h"\n'},
     ["engine/kernels/stages.h includes engine/kernels/face.h twice"]),
    ({"io/a.c": '#include "a.h"\n#include "b.h"\n#include "a.h"\n'}, ["io/a.c includes io/a.h twice"]),
    ({"io/b.c": '#include "b.h"\n#include "a.h"\n'}, ["include circle: io/a <-> io/b"]),
    ({"simd/cv.h": '#include "../io/a.h"\n'}, ["simd/cv.h includes io/a.h: points up"]),
    ({"io/a.h": '#include "../engine/kernels/look.h"\n'}, ["behind the engine's public headers"]),
]


def problems(files):
    with tempfile.TemporaryDirectory() as root:
        for path, text in files.items():
            os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(root, path), "w") as h:
                h.write(text)
        return check_structure.check(root)[0]


def main():
    failed = 0
    found = problems(CLEAN)
    if found:
        print("the clean tree has problems:", found)
        failed += 1
    for change, words in FAULTS:
        found = problems({**CLEAN, **change})
        for w in words:
            if not any(w in p for p in found):
                print(f"not reported: {w!r} (reported: {found})")
                failed += 1
    print(f"{len(FAULTS)} faulty trees, {failed} misses")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
