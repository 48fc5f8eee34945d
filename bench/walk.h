/* walk.h — the built-in walk cycle: the pose clip of `crowd run`'s default crowd, of `crowd
 * bench` and of the benchmarks' limb rows (library crowd_bench). Generated in code, so that no
 * benchmark needs a file or the crowd command's readers.
 *
 * 33 rows at 30 fps (a 1.1 s loop); row k is at t = k / BENCH_WALK_FPS s. Engine frame (+y up,
 * facing +z, the subject's right at +x), metres, origin between the hips, visibility 1. Each
 * value is computed in double and rounded once to float. */
#ifndef CROWD_BENCH_WALK_H
#define CROWD_BENCH_WALK_H

#include "crowd.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BENCH_WALK_FPS 30
#define BENCH_WALK_ROWS 33
#define BENCH_WALK_FLOATS (4 * CROWD_LANDMARK_COUNT) /* x, y, z, visibility per landmark */

/* Writes the walk's BENCH_WALK_ROWS rows of BENCH_WALK_FLOATS floats each. */
void bench_walk_rows(float rows[BENCH_WALK_ROWS * BENCH_WALK_FLOATS]);

#ifdef __cplusplus
}
#endif
#endif
