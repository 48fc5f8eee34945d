#include "bvh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

/* A point of the figure: the mean of up to four landmarks. */
typedef struct point {
    int n;
    int lm[4];
} point;

static const point P_PELVIS = {2, {23, 24}};

typedef struct joint {
    const char *name;
    int parent; /* crowd_bone, -1 for the root */
    point start;
    point end; /* n = 0: no end site */
} joint;

static const joint joints[CROWD_BONE_COUNT] = {
    [CROWD_BONE_HIPS] = {"Hips", -1, {2, {23, 24}}, {0, {0}}},
    [CROWD_BONE_CHEST] = {"Chest", CROWD_BONE_HIPS, {4, {23, 24, 11, 12}}, {0, {0}}},
    [CROWD_BONE_HEAD] = {"Head", CROWD_BONE_CHEST, {2, {11, 12}}, {2, {7, 8}}},
    [CROWD_BONE_LEFT_UPPER_ARM] = {"LeftUpperArm", CROWD_BONE_CHEST, {1, {11}}, {0, {0}}},
    [CROWD_BONE_LEFT_LOWER_ARM] = {"LeftLowerArm", CROWD_BONE_LEFT_UPPER_ARM, {1, {13}}, {0, {0}}},
    [CROWD_BONE_LEFT_HAND] = {"LeftHand", CROWD_BONE_LEFT_LOWER_ARM, {1, {15}}, {2, {17, 19}}},
    [CROWD_BONE_RIGHT_UPPER_ARM] = {"RightUpperArm", CROWD_BONE_CHEST, {1, {12}}, {0, {0}}},
    [CROWD_BONE_RIGHT_LOWER_ARM] = {"RightLowerArm", CROWD_BONE_RIGHT_UPPER_ARM, {1, {14}}, {0, {0}}},
    [CROWD_BONE_RIGHT_HAND] = {"RightHand", CROWD_BONE_RIGHT_LOWER_ARM, {1, {16}}, {2, {18, 20}}},
    [CROWD_BONE_LEFT_UPPER_LEG] = {"LeftUpperLeg", CROWD_BONE_HIPS, {1, {23}}, {0, {0}}},
    [CROWD_BONE_LEFT_LOWER_LEG] = {"LeftLowerLeg", CROWD_BONE_LEFT_UPPER_LEG, {1, {25}}, {0, {0}}},
    [CROWD_BONE_LEFT_FOOT] = {"LeftFoot", CROWD_BONE_LEFT_LOWER_LEG, {1, {27}}, {1, {31}}},
    [CROWD_BONE_RIGHT_UPPER_LEG] = {"RightUpperLeg", CROWD_BONE_HIPS, {1, {24}}, {0, {0}}},
    [CROWD_BONE_RIGHT_LOWER_LEG] = {"RightLowerLeg", CROWD_BONE_RIGHT_UPPER_LEG, {1, {26}}, {0, {0}}},
    [CROWD_BONE_RIGHT_FOOT] = {"RightFoot", CROWD_BONE_RIGHT_LOWER_LEG, {1, {28}}, {1, {32}}},
};

static void at(const float *lm, const point *p, double out[3]) {
    out[0] = out[1] = out[2] = 0;
    for (int k = 0; k < p->n; k++)
        for (int c = 0; c < 3; c++) out[c] += lm[p->lm[k] * 4 + c];
    for (int c = 0; c < 3; c++) out[c] /= p->n;
}

static bool seen(const float *lm, const point *p) {
    for (int k = 0; k < p->n; k++)
        if (!(lm[p->lm[k] * 4 + 3] >= 0.5f)) return false;
    return true;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median distance between two points over the clip's seen frames, or `fallback`. */
static double median_length(const pose_clip *clip, const point *a, const point *b, double fallback, double *scratch) {
    if (!clip) return fallback;
    size_t n = 0;
    for (uint32_t r = clip->rest_rows; r < clip->row_count; r++) {
        const float *lm = &clip->landmarks[(size_t)r * CLIP_FLOATS];
        if (!seen(lm, a) || !seen(lm, b)) continue;
        double pa[3], pb[3];
        at(lm, a, pa);
        at(lm, b, pb);
        double d = sqrt((pa[0] - pb[0]) * (pa[0] - pb[0]) + (pa[1] - pb[1]) * (pa[1] - pb[1]) + (pa[2] - pb[2]) * (pa[2] - pb[2]));
        if (d > 1e-6) scratch[n++] = d;
    }
    if (!n) return fallback;
    qsort(scratch, n, sizeof *scratch, by_value);
    return n % 2 ? scratch[n / 2] : 0.5 * (scratch[n / 2 - 1] + scratch[n / 2]);
}

/* conj(q) * v * q: v from world into q's frame. */
static void unrotate(const crowd_quat *q, const double v[3], double out[3]) {
    double x = -q->x, y = -q->y, z = -q->z, w = q->w;
    double tx = 2 * (y * v[2] - z * v[1]), ty = 2 * (z * v[0] - x * v[2]), tz = 2 * (x * v[1] - y * v[0]);
    out[0] = v[0] + w * tx + (y * tz - z * ty);
    out[1] = v[1] + w * ty + (z * tx - x * tz);
    out[2] = v[2] + w * tz + (x * ty - y * tx);
}

static void rotate(const crowd_quat *q, const double v[3], double out[3]) {
    crowd_quat c = {-q->x, -q->y, -q->z, q->w};
    unrotate(&c, v, out);
}

/* inverse(rest world of `frame_bone`) * (b - a), scaled to `length` metres, in cm. */
static void offset_of(const crowd_quat *rest_world, int frame_bone, const double a[3], const double b[3],
                      double length, double out[3]) {
    double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    double n = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    for (int c = 0; c < 3; c++) d[c] = n > 0 ? d[c] / n * length * 100.0 : 0.0;
    unrotate(&rest_world[frame_bone], d, out);
}

int bvh_skeleton_make(bvh_skeleton *sk, crowd_engine *engine, crowd_rig rig, crowd_pose_frame frame,
                      const pose_clip *clip) {
    memset(sk, 0, sizeof *sk);
    crowd_quat world[CROWD_BONE_COUNT];
    crowd_result res = crowd_rig_rest_pose(engine, rig, world, NULL);
    if (res != CROWD_OK) return tool_engine_error(TOOL_FAILED, engine, res, "crowd_rig_rest_pose");
    float rest[CLIP_FLOATS];
    crowd_rest_landmarks(CROWD_FRAME_ENGINE, rest);
    double *scratch = clip ? tool_malloc(((size_t)clip->row_count + 1) * sizeof *scratch) : NULL;
    if (clip && !scratch) return TOOL_FAILED;
    /* rest positions of every joint, in the engine frame, with the clip's lengths */
    double pos[CROWD_BONE_COUNT][3];
    double lowest = 0;
    for (int b = 0; b < CROWD_BONE_COUNT; b++) {
        const joint *j = &joints[b];
        double s[3];
        at(rest, &j->start, s);
        if (j->parent >= 0) {
            double p[3];
            at(rest, &joints[j->parent].start, p);
            double rest_len = sqrt((s[0] - p[0]) * (s[0] - p[0]) + (s[1] - p[1]) * (s[1] - p[1]) + (s[2] - p[2]) * (s[2] - p[2]));
            double len = median_length(clip, &joints[j->parent].start, &j->start, rest_len, scratch);
            offset_of(world, j->parent, p, s, len, sk->offset[b]);
            double step[3];
            rotate(&world[j->parent], sk->offset[b], step);
            for (int c = 0; c < 3; c++) pos[b][c] = pos[j->parent][c] + step[c];
        } else {
            pos[b][0] = pos[b][1] = pos[b][2] = 0;
        }
        if (pos[b][1] < lowest) lowest = pos[b][1];
        if (j->end.n) {
            double e[3];
            at(rest, &j->end, e);
            double rest_len = sqrt((s[0] - e[0]) * (s[0] - e[0]) + (s[1] - e[1]) * (s[1] - e[1]) + (s[2] - e[2]) * (s[2] - e[2]));
            double len = median_length(clip, &j->start, &j->end, rest_len, scratch);
            offset_of(world, b, s, e, len, sk->end[b]);
            double step[3];
            rotate(&world[b], sk->end[b], step);
            if (pos[b][1] + step[1] < lowest) lowest = pos[b][1] + step[1];
        }
    }
    free(scratch);
    sk->lift = frame == CROWD_FRAME_MEDIAPIPE_WORLD ? -lowest : 0.0;
    return TOOL_OK;
}

/* The file is right-handed (every BVH reader assumes so) and the engine frame left-handed: the
 * file's frame is the engine's with x negated, a mirror. A vector mirrors to (-x, y, z); a
 * rotation q to M q M = (x, -y, -z, w). + 0.0 turns -0 into 0 so a zero prints unsigned. */
static double mirrored_x(double x) { return -x + 0.0; }

static void mirror_rotation(const float q[4], float out[4]) {
    out[0] = q[0];
    out[1] = -q[1];
    out[2] = -q[2];
    out[3] = q[3];
}

static void indent(FILE *f, int depth) {
    for (int k = 0; k < depth; k++) fputc('\t', f);
}

/* Finger bones within a hand (crowd_hand_bone): parent and first landmark, as the engine's. */
static const int hand_parent[CROWD_HAND_BONE_COUNT] = {-1, 0, 1, 2, 0, 4, 5, 0, 7, 8, 0, 10, 11, 0, 13, 14};
static const int hand_from[CROWD_HAND_BONE_COUNT] = {0, 1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15, 17, 18, 19};
static const char *const finger_names[CROWD_HAND_BONE_COUNT] = {
    "Hand", "ThumbMetacarpal", "ThumbProximal", "ThumbDistal", "IndexProximal", "IndexIntermediate",
    "IndexDistal", "MiddleProximal", "MiddleIntermediate", "MiddleDistal", "RingProximal", "RingIntermediate",
    "RingDistal", "LittleProximal", "LittleIntermediate", "LittleDistal"};

static bool is_distal(int bone) { return bone % 3 == 0; } /* thumb, index ... little distal: 3, 6, ... 15 */

/* The median length of landmark segment a-b over the hand frames where `hand` is seen. */
static double hand_length(const hand_track *t, int hand, int a, int b, double fallback, double *scratch) {
    size_t n = 0;
    for (uint32_t k = 0; k < t->count; k++) {
        const float *h = t->frames[k].hands[hand];
        if (!(h[3 * CROWD_HAND_LANDMARK_COUNT] >= 0.5f)) continue;
        double d = 0;
        for (int c = 0; c < 3; c++) d += ((double)h[b * 3 + c] - h[a * 3 + c]) * ((double)h[b * 3 + c] - h[a * 3 + c]);
        if ((d = sqrt(d)) > 1e-6) scratch[n++] = d;
    }
    if (!n) return fallback;
    qsort(scratch, n, sizeof *scratch, by_value);
    return n % 2 ? scratch[n / 2] : 0.5 * (scratch[n / 2 - 1] + scratch[n / 2]);
}

int bvh_skeleton_hands(bvh_skeleton *sk, const crowd_fingers_desc *fingers, const hand_track *hands) {
    /* the rest hand's own solve: a rig with limbs would give its hands the body's rest hand */
    crowd_quat world[CROWD_FINGER_BONE_COUNT];
    crowd_engine *engine = NULL;
    crowd_engine_desc desc = {0};
    crowd_result res = crowd_engine_create(&desc, &engine);
    if (res != CROWD_OK) return tool_error(TOOL_FAILED, "crowd_engine_create: %s", crowd_result_text(res));
    crowd_rig_desc rd = {.name = "bvh_rest_hands", .fingers = fingers};
    crowd_rig rig;
    if ((res = crowd_rig_create(engine, &rd, &rig)) == CROWD_OK) res = crowd_rig_rest_hands(engine, rig, world, NULL);
    if (res != CROWD_OK) {
        int st = tool_engine_error(TOOL_FAILED, engine, res, "crowd_rig_rest_hands");
        crowd_engine_destroy(engine);
        return st;
    }
    crowd_engine_destroy(engine);
    double *scratch = tool_malloc(((size_t)hands->count + 1) * sizeof *scratch);
    if (!scratch) return TOOL_FAILED;
    for (int h = 0; h < CROWD_HAND_COUNT; h++) {
        float rest[CROWD_HAND_FLOATS];
        crowd_rest_hand_landmarks(CROWD_FRAME_ENGINE, (crowd_hand)h, rest);
        double p[CROWD_HAND_LANDMARK_COUNT][3];
        for (int k = 0; k < CROWD_HAND_LANDMARK_COUNT; k++)
            for (int c = 0; c < 3; c++) p[k][c] = rest[k * 3 + c];
        for (int b = 1; b < CROWD_HAND_BONE_COUNT; b++) {
            int parent = hand_parent[b], a = hand_from[parent], s = hand_from[b], i = h * CROWD_HAND_BONE_COUNT + b;
            double rest_len = sqrt((p[s][0] - p[a][0]) * (p[s][0] - p[a][0]) + (p[s][1] - p[a][1]) * (p[s][1] - p[a][1]) +
                                   (p[s][2] - p[a][2]) * (p[s][2] - p[a][2]));
            offset_of(world, h * CROWD_HAND_BONE_COUNT + parent, p[a], p[s], hand_length(hands, h, a, s, rest_len, scratch),
                      sk->finger_offset[i]);
            if (is_distal(b)) {
                int e = s + 1;
                double end_len = sqrt((p[e][0] - p[s][0]) * (p[e][0] - p[s][0]) + (p[e][1] - p[s][1]) * (p[e][1] - p[s][1]) +
                                      (p[e][2] - p[s][2]) * (p[e][2] - p[s][2]));
                offset_of(world, i, p[s], p[e], hand_length(hands, h, s, e, end_len, scratch), sk->finger_end[i]);
            }
        }
    }
    free(scratch);
    sk->hands = true;
    return TOOL_OK;
}

static void end_site(FILE *f, const double e[3], int depth) {
    indent(f, depth);
    fprintf(f, "End Site\n");
    indent(f, depth);
    fprintf(f, "{\n");
    indent(f, depth + 1);
    fprintf(f, "OFFSET %.6f %.6f %.6f\n", mirrored_x(e[0]), e[1], e[2]);
    indent(f, depth);
    fprintf(f, "}\n");
}

/* Finger bone i (hand * 16 + bone) and the rest of its chain. */
static void write_finger(bvh_file *out, const bvh_skeleton *sk, int i, int depth) {
    FILE *f = out->out.f;
    int h = i / CROWD_HAND_BONE_COUNT, b = i % CROWD_HAND_BONE_COUNT;
    out->order[out->joints++] = 100 + i;
    indent(f, depth);
    fprintf(f, "JOINT %s%s\n", h == CROWD_HAND_LEFT ? "Left" : "Right", finger_names[b]);
    indent(f, depth);
    fprintf(f, "{\n");
    indent(f, depth + 1);
    fprintf(f, "OFFSET %.6f %.6f %.6f\n", mirrored_x(sk->finger_offset[i][0]), sk->finger_offset[i][1],
            sk->finger_offset[i][2]);
    indent(f, depth + 1);
    fprintf(f, "CHANNELS 3 Zrotation Xrotation Yrotation\n");
    if (is_distal(b)) end_site(f, sk->finger_end[i], depth + 1);
    else write_finger(out, sk, i + 1, depth + 1);
    indent(f, depth);
    fprintf(f, "}\n");
}

static void write_joint(bvh_file *out, const bvh_skeleton *sk, int b, int depth) {
    FILE *f = out->out.f;
    const joint *j = &joints[b];
    out->order[out->joints++] = b;
    indent(f, depth);
    fprintf(f, "%s %s\n", j->parent < 0 ? "ROOT" : "JOINT", j->name);
    indent(f, depth);
    fprintf(f, "{\n");
    indent(f, depth + 1);
    fprintf(f, "OFFSET %.6f %.6f %.6f\n", mirrored_x(sk->offset[b][0]), sk->offset[b][1], sk->offset[b][2]);
    indent(f, depth + 1);
    fprintf(f, j->parent < 0 ? "CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
                             : "CHANNELS 3 Zrotation Xrotation Yrotation\n");
    bool child = false;
    for (int c = 0; c < CROWD_BONE_COUNT; c++)
        if (joints[c].parent == b) {
            write_joint(out, sk, c, depth + 1);
            child = true;
        }
    if (sk->hands && (b == CROWD_BONE_LEFT_HAND || b == CROWD_BONE_RIGHT_HAND)) {
        int h = b == CROWD_BONE_LEFT_HAND ? CROWD_HAND_LEFT : CROWD_HAND_RIGHT;
        for (int first = 1; first < CROWD_HAND_BONE_COUNT; first += 3) /* each finger's first bone */
            write_finger(out, sk, h * CROWD_HAND_BONE_COUNT + first, depth + 1);
        child = true;
    }
    if (!child) end_site(f, sk->end[b], depth + 1);
    indent(f, depth);
    fprintf(f, "}\n");
}

int bvh_open(bvh_file *b, const char *path, const bvh_skeleton *sk, crowd_pose_frame frame, uint32_t frames,
             double frame_time) {
    memset(b, 0, sizeof *b);
    int st = trace_open(&b->out, path, "HIERARCHY");
    if (st != TOOL_OK) return st;
    b->frame = frame;
    b->lift = sk->lift;
    b->joints = 0; /* write_joint records the order of MOTION's values */
    write_joint(b, sk, CROWD_BONE_HIPS, 0);
    fprintf(b->out.f, "MOTION\nFrames: %u\nFrame Time: %.9g\n", frames, frame_time);
    return TOOL_OK;
}

void bvh_euler_zxy(const float qf[4], double *z_deg, double *x_deg, double *y_deg) {
    double x = qf[0], y = qf[1], z = qf[2], w = qf[3];
    double n = sqrt(x * x + y * y + z * z + w * w);
    if (n > 0) x /= n, y /= n, z /= n, w /= n;
    else w = 1;
    double m11 = 1 - 2 * (y * y + z * z), m12 = 2 * (x * y - w * z);
    double m21 = 2 * (x * y + w * z), m22 = 1 - 2 * (x * x + z * z);
    double m31 = 2 * (x * z - w * y), m32 = 2 * (y * z + w * x), m33 = 1 - 2 * (x * x + y * y);
    /* x from atan2, not asin: exact near +-90 degrees, where y_along_bone's limb bones often are */
    double c = sqrt(m31 * m31 + m33 * m33), ex = atan2(m32, c), ey, ez;
    if (c > 1e-12) {
        ey = atan2(-m31, m33);
        ez = atan2(-m12, m22);
    } else { /* gimbal lock: the whole turn about z */
        ey = 0;
        ez = atan2(m21, m11);
    }
    const double deg = 180.0 / 3.14159265358979323846;
    *z_deg = ez * deg;
    *x_deg = ex * deg;
    *y_deg = ey * deg;
}

void bvh_frame(bvh_file *b, const float lm[CLIP_FLOATS], const float local[CROWD_BONE_COUNT][4]) {
    bvh_frame_hands(b, lm, local, NULL);
}

void bvh_frame_hands(bvh_file *b, const float lm[CLIP_FLOATS], const float local[CROWD_BONE_COUNT][4],
                     const float (*fingers)[4]) {
    static const float identity[4] = {0, 0, 0, 1};
    FILE *f = b->out.f;
    double pelvis[3];
    at(lm, &P_PELVIS, pelvis);
    if (b->frame == CROWD_FRAME_MEDIAPIPE_WORLD) pelvis[1] = -pelvis[1];
    fprintf(f, "%.4f %.4f %.4f", mirrored_x(pelvis[0] * 100.0), pelvis[1] * 100.0 + b->lift, pelvis[2] * 100.0);
    for (int k = 0; k < b->joints; k++) {
        double z, x, y;
        float q[4];
        int j = b->order[k];
        mirror_rotation(j < 100 ? local[j] : fingers ? fingers[j - 100] : identity, q);
        bvh_euler_zxy(q, &z, &x, &y);
        fprintf(f, " %.6f %.6f %.6f", z, x, y);
    }
    fputc('\n', f);
}

int bvh_finish(bvh_file *b) { return trace_finish(&b->out); }

void bvh_abort(bvh_file *b) { trace_abort(&b->out); }
