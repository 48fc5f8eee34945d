"""python -m crowd run|pose: the crowd command's run and pose, driven from Python.

Scenes and clips are read by the crowd command's own C readers, the io library (crowd_io.h, in
libcrowd_loaders), which also builds the run's world (rigs, instances, per-frame look keys and pose rows) exactly as `crowd
run` does; the frames are ticked through this package, and the summary and checksum are the
same as the C program's (tick time and rates are measured here, so they differ run to run).
Exit status: 0 success, 2 bad usage or bad input, 1 any other failure.
"""
import argparse
import ctypes as C
import os
import sys
import time

import numpy as np

from . import Engine, Error, Field, LANDMARK_COUNT, BONE_COUNT, Limbs, bone_name, simd_name, _ffi
from ._generated import IoStatus

OK, FAILED, BAD_INPUT = int(IoStatus.OK), int(IoStatus.FAILED), int(IoStatus.BAD_INPUT)
SIMD_CHOICES = ("auto", "scalar", "sse2", "avx2", "avx512")
_loaders = None


def loaders():
    global _loaders
    if _loaders is None:
        _loaders = _ffi.declare(_ffi.load_loaders(), _ffi.LOADER_SIGNATURES)
    return _loaders


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        sys.stderr.write(f"crowd: {self.prog.split()[-1]}: {message}\n")
        sys.exit(BAD_INPUT)


def _ranged(kind, lo, hi, open_lo=False):
    def parse(text):
        try:
            v = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}")
        if kind is float:
            v32 = float(np.float32(v))
            if v32 != v32 or (v32 <= lo if open_lo else v32 < lo) or v32 > hi:
                raise argparse.ArgumentTypeError(f"{text} is outside {'(' if open_lo else '['}{lo:g}, {hi:g}]")
            return v32
        if v < lo or v > hi:
            raise argparse.ArgumentTypeError(f"{text} is outside [{lo}, {hi}]")
        return v
    return parse


def _format(v):
    """%.9g of a float32, as the C program prints it (an exact round trip)."""
    return "%.9g" % float(v)


def run(argv):
    p = _Parser(prog="python -m crowd run", description="Runs SCENE (or the built-in default crowd) and "
                "prints the summary of `crowd run`: instances, frames, tick time, rate, SIMD target, threads "
                "and the 64-bit checksum of the final outputs.")
    p.add_argument("scene", nargs="?", help="a scene (JSON, format in README.md); none: the default crowd")
    p.add_argument("--frames", type=_ranged(int, 0, 2147483647))
    p.add_argument("--dt", type=_ranged(float, 0.0, 1.0))
    p.add_argument("--seed", type=_ranged(int, 0, 2 ** 64 - 1))
    p.add_argument("--threads", type=_ranged(int, 1, 256), default=1)
    p.add_argument("--simd", choices=SIMD_CHOICES, default="auto")
    p.add_argument("--trace", metavar="FILE", help="every frame's output parameters: frame,instance,id,value")
    p.add_argument("--bones", metavar="FILE", help="every frame's bone world rotations")
    p.add_argument("--snapshot-at", nargs=2, metavar=("K", "FILE"), help="after frame K write the run's state")
    p.add_argument("--resume", metavar="FILE", help="continue the run saved in FILE")
    p.add_argument("--quiet", action="store_true", help="accepted for `crowd run` compatibility (no progress line here)")
    p.add_argument("--json", action="store_true", help="the summary as one JSON object on the last line")
    a = p.parse_args(argv)
    snap_at, snap_file = None, None
    if a.snapshot_at:
        try:
            snap_at = _ranged(int, 0, 2147483647)(a.snapshot_at[0])
        except argparse.ArgumentTypeError as e:
            p.error(f"argument --snapshot-at: {e}")
        snap_file = a.snapshot_at[1]
    named = [("--trace", a.trace), ("--bones", a.bones), ("--snapshot-at", snap_file)]
    for i in range(3):
        for j in range(i + 1, 3):
            if named[i][1] and named[j][1] and named[i][1] == named[j][1]:
                sys.stderr.write(f"crowd: run: {named[i][0]} and {named[j][0]} name the same file {named[i][1]}\n")
                return BAD_INPUT

    L = loaders()
    scene = C.c_void_p()
    st = L.crowd_io_scene_load(a.scene.encode() if a.scene else None, C.byref(scene))
    if st:
        return st
    world = C.c_void_p()
    traces = [C.c_void_p(), C.c_void_p()]
    done = False
    try:
        L.crowd_io_scene_override(scene, a.frames is not None, a.frames or 0, a.dt is not None,
                                       a.dt or 0.0, a.seed is not None, a.seed or 0)
        if a.bones:
            st = L.crowd_io_scene_check_bones(scene)
            if st:
                return st
        st = L.crowd_io_world_create(scene, SIMD_CHOICES.index(a.simd), a.threads, C.byref(world))
        if st:
            return st
        frames = L.crowd_io_scene_frames(scene)
        dt = L.crowd_io_scene_dt(scene)
        first = 0
        if a.resume:
            got = _ffi.u32()
            st = L.crowd_io_world_resume(world, a.resume.encode(), C.byref(got))
            if st:
                return st
            first = got.value
            if first > frames:
                sys.stderr.write(f"crowd: run: {a.resume} was saved after frame {first}, past this run's last frame "
                                 f"{frames} (--frames)\n")
                return BAD_INPUT
        if snap_file is not None and not first <= snap_at <= frames:
            sys.stderr.write(f"crowd: run: --snapshot-at {snap_at} is outside the frames of this run "
                             f"({first} to {frames})\n")
            return BAD_INPUT
        for kind, path in enumerate((a.trace, a.bones)):
            if path:
                st = L.crowd_io_trace_open(kind, path.encode(), C.byref(traces[kind]))
                if st:
                    return st
        engine = Engine._borrow(L.crowd_io_world_engine(world))
        prepare = L.crowd_io_world_prepare_frame
        write = L.crowd_io_world_write_traces if (a.trace or a.bones) else None
        seconds = 0.0
        clock = time.perf_counter
        if snap_file is not None and snap_at == first:
            st = L.crowd_io_world_save(world, first, snap_file.encode())
            if st:
                return st
        try:
            for k in range(first + 1, frames + 1):
                prepare(world, k, dt)
                t0 = clock()
                engine.tick(dt)
                seconds += clock() - t0
                if write:
                    write(world, k, traces[0], traces[1])
                if snap_file is not None and k == snap_at:
                    st = L.crowd_io_world_save(world, k, snap_file.encode())
                    if st:
                        return st
        except Error as e:
            L.crowd_io_error(FAILED, f"crowd_tick: {e.message}".encode())
            return FAILED
        except KeyboardInterrupt:
            L.crowd_io_error(FAILED, b"interrupted")
            return FAILED
        for kind in (0, 1):
            t, traces[kind] = traces[kind], C.c_void_p()
            if t:
                st = L.crowd_io_trace_close(t, 1)
                if st:
                    return st
        ticked = frames - first
        n = L.crowd_io_world_instance_count(world)
        rate = n * ticked / seconds if seconds > 0 else 0.0
        target = simd_name(engine.simd)
        threads = engine.threads
        checksum = L.crowd_io_world_checksum(world)
        path = L.crowd_io_scene_path(scene).decode(errors="replace")
        if a.json:
            print('{"instances": %u, "frames": %u, "tick_seconds": %.9g, "updates_per_second": %.0f, '
                  '"simd": "%s", "threads": %u, "checksum": "0x%016x"}'
                  % (n, ticked, seconds, rate, target, threads, checksum))
        else:
            print("scene               %s" % path)
            if a.resume:
                print("resumed             %s (after frame %u)" % (a.resume, first))
            print("instances           %u" % n)
            if a.resume:
                print("frames              %u (%u to %u, dt %.9g s)" % (ticked, first + 1, frames, dt))
            else:
                print("frames              %u (dt %.9g s)" % (ticked, dt))
            print("tick seconds        %.6f" % seconds)
            print("instance-updates/s  %.4g" % rate)
            print("simd                %s" % target)
            print("threads             %u" % threads)
            if snap_file is not None:
                print("snapshot            %s (after frame %u)" % (snap_file, snap_at))
            print("checksum            0x%016x" % checksum)
        done = True
        return OK
    finally:
        for t in traces:
            if t:
                L.crowd_io_trace_close(t, 0)  # an unfinished trace is removed
        if world:
            L.crowd_io_world_destroy(world)
        L.crowd_io_scene_free(scene)


def pose(argv):
    d = Limbs()
    p = _Parser(prog="python -m crowd pose", description="Solves one instance (root identity) through the "
                "pose clip CLIP, one tick per row with dt the difference of t_s (0 on the first row), and "
                "writes its bone rotations as `crowd pose` does.")
    p.add_argument("clip")
    p.add_argument("--frame", choices=("mediapipe_world", "engine"), default="mediapipe_world")
    p.add_argument("--axis-fix", choices=("y_along_bone", "z_along_bone"), default="y_along_bone")
    p.add_argument("--fallback", choices=("stable", "root", "previous"), default="stable")
    p.add_argument("--visibility-threshold", type=_ranged(float, 0.0, 1.0), default=d.visibility_threshold)
    p.add_argument("--smoothing", choices=("off", "one_euro"), default="off")
    p.add_argument("--min-cutoff", type=_ranged(float, 0.0, 1e6, True), default=d.min_cutoff)
    p.add_argument("--beta", type=_ranged(float, 0.0, 1e6), default=d.beta)
    p.add_argument("--d-cutoff", type=_ranged(float, 0.0, 1e6, True), default=d.d_cutoff)
    p.add_argument("--hold-half-life", type=_ranged(float, 0.0, 3600.0, True), default=d.hold_half_life)
    p.add_argument("--reacquire-half-life", type=_ranged(float, 0.0, 3600.0, True), default=d.reacquire_half_life)
    p.add_argument("--bend-min", type=_ranged(float, 0.0, 90.0), default=d.bend_min)
    p.add_argument("--bend-full", type=_ranged(float, 0.0, 90.0), default=d.bend_full)
    p.add_argument("--arm-image-bend", type=_ranged(float, 0.0, 90.0), default=d.arm_image_bend)
    p.add_argument("--outputs", choices=("both", "world", "local"), default="both")
    p.add_argument("--local", action="store_true")
    p.add_argument("--bones", default="-")
    a = p.parse_args(argv)
    if not a.bend_min < a.bend_full:
        sys.stderr.write(f"crowd: pose: --bend-min ({a.bend_min:g}) must be below --bend-full ({a.bend_full:g})\n")
        return BAD_INPUT
    want = "local" if a.local else "world"
    if a.outputs not in ("both", want):
        flag = "--local" if a.local else "the bones trace without --local"
        sys.stderr.write(f"crowd: pose: {flag} needs {want} rotations, but --outputs {a.outputs} stores "
                         f"{a.outputs} rotations only\n")
        return BAD_INPUT

    L = loaders()
    clip = C.c_void_p()
    st = L.crowd_io_clip_load(a.clip.encode(), C.byref(clip))
    if st:
        return st
    try:
        rows = L.crowd_io_clip_rows(clip)
        t_s = np.ctypeslib.as_array(L.crowd_io_clip_times(clip), (rows,))
        marks = np.ctypeslib.as_array(L.crowd_io_clip_landmarks(clip), (rows, LANDMARK_COUNT * 4))
        lines = np.ctypeslib.as_array(L.crowd_io_clip_lines(clip), (rows,))
        path = L.crowd_io_clip_path(clip).decode(errors="replace")
        limbs = Limbs(frame=a.frame, axis_fix=a.axis_fix, fallback=a.fallback,
                      visibility_threshold=a.visibility_threshold, smoothing=a.smoothing == "one_euro",
                      min_cutoff=a.min_cutoff, beta=a.beta, d_cutoff=a.d_cutoff, hold_half_life=a.hold_half_life,
                      reacquire_half_life=a.reacquire_half_life, bend_min=a.bend_min, bend_full=a.bend_full,
                      arm_image_bend=a.arm_image_bend, outputs=a.outputs)
        with Engine() as engine:
            try:
                rig = engine.rig(name="pose", limbs=limbs)
            except Error as e:
                sys.stderr.write(f"crowd: pose: the limbs settings: {e.message}\n")
                return BAD_INPUT
            inst = int(rig.add(1)[0])
            field = Field.BONE_LOCAL if a.local else Field.BONE_WORLD
            names = [bone_name(b) for b in range(BONE_COUNT)]
            out = []
            for k in range(rows):
                step = float(t_s[k] - t_s[k - 1]) if k else 0.0
                dt = float(np.float32(step))
                if not dt <= 1.0:
                    sys.stderr.write(f"crowd: {path}:{lines[k]}: t_s: steps {step:.9g} s from the previous row; "
                                     "a tick takes at most 1 s\n")
                    return BAD_INPUT
                try:
                    engine.set_one(inst, Field.POSE, marks[k])
                except Error as e:
                    sys.stderr.write(f"crowd: {path}:{lines[k]}: crowd_set (pose): {e.message}\n")
                    return BAD_INPUT
                engine.tick(dt)
                for b in range(BONE_COUNT):
                    q = engine.get_one(inst, field, b)
                    out.append("%u,0,%s,%s,%s,%s,%s\n" % (k + 1, names[b], _format(q[0]), _format(q[1]),
                                                          _format(q[2]), _format(q[3])))
        text = "frame,instance,bone,qx,qy,qz,qw\n" + "".join(out)
        if a.bones == "-":
            sys.stdout.write(text)
        else:
            tmp = a.bones + ".tmp"
            try:
                with open(tmp, "w") as f:
                    f.write(text)
                os.replace(tmp, a.bones)
            except OSError as e:
                sys.stderr.write(f"crowd: {a.bones}: {e.strerror}\n")
                return FAILED
        return OK
    finally:
        L.crowd_io_clip_free(clip)


USAGE = """usage: python -m crowd COMMAND [ARGS]
  run [SCENE]   run a scene (or the built-in default crowd of 10,000 avatars) and print a summary
  pose CLIP     bone rotations of one instance through a pose clip
python -m crowd COMMAND --help describes each. Exit status: 0 success, 2 bad usage or input, 1 other failure.
"""


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        sys.stderr.write(USAGE)
        return BAD_INPUT
    if argv[0] in ("-h", "--help", "help"):
        sys.stdout.write(USAGE)
        return OK
    commands = {"run": run, "pose": pose}
    if argv[0] not in commands:
        sys.stderr.write(USAGE)
        sys.stderr.write(f"crowd: unknown command '{argv[0]}'\n")
        return BAD_INPUT
    status = commands[argv[0]](argv[1:])
    sys.stdout.flush()
    return status
