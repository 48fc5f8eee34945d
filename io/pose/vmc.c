#include "vmc.h"

#include <errno.h>
#include <lo/lo.h>
#include <math.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diag.h"

struct vmc_sender {
    lo_address address;
    vmc_settings settings;
    double bind_inverse[CROWD_BONE_COUNT][4]; /* inverse(B[b]) */
    float offset[CROWD_BONE_COUNT][3];        /* bone positions (Unity frame, metres) */
    bool fingers;                                      /* vmc_set_fingers was called */
    double finger_bind_inverse[CROWD_FINGER_BONE_COUNT][4]; /* inverse(B) of the T-pose hands */
    float finger_offset[CROWD_FINGER_BONE_COUNT][3];        /* finger joints from their parents' */
    char where[300];                          /* HOST:PORT for messages */
};

static const char *const bone_names[CROWD_BONE_COUNT] = {
    "Hips",         "Spine",         "Head",         "LeftUpperArm", "LeftLowerArm",
    "LeftHand",     "RightUpperArm", "RightLowerArm", "RightHand",   "LeftUpperLeg",
    "LeftLowerLeg", "LeftFoot",      "RightUpperLeg", "RightLowerLeg", "RightFoot"};

/* The engine's hierarchy (crowd.h §9): each bone's parent, -1 the root. */
static const int parent_of[CROWD_BONE_COUNT] = {-1, 0, 1, 1, 3, 4, 1, 6, 7, 0, 9, 10, 0, 12, 13};

const char *vmc_bone_name(crowd_bone bone) {
    return (unsigned)bone < CROWD_BONE_COUNT ? bone_names[bone] : "?";
}

/* Left-side landmarks of the T-pose (engine frame); right ones mirror x (see vmc.h). */
void vmc_tpose_landmarks(crowd_pose_frame frame, float out[CROWD_LANDMARK_COUNT * 4]) {
    static const struct { int left, right; float x, y, z; } points[] = {
        {0, 0, 0.0f, 0.66f, -0.10f},     {2, 5, 0.04f, 0.69f, -0.075f},  {1, 4, 0.03f, 0.69f, -0.075f},
        {3, 6, 0.05f, 0.69f, -0.07f},    {7, 8, 0.075f, 0.66f, 0.0f},    {9, 10, 0.02f, 0.62f, -0.085f},
        {11, 12, 0.18f, 0.50f, 0.0f},    {13, 14, 0.46f, 0.50f, 0.0f},   {15, 16, 0.72f, 0.50f, 0.0f},
        {17, 18, 0.80f, 0.50f, 0.03f},   {19, 20, 0.81f, 0.50f, -0.03f}, {21, 22, 0.77f, 0.50f, -0.06f},
        {23, 24, 0.10f, 0.0f, 0.0f},     {25, 26, 0.10f, -0.45f, 0.0f},  {27, 28, 0.10f, -0.88f, 0.0f},
        {29, 30, 0.10f, -0.93f, 0.04f},  {31, 32, 0.10f, -0.93f, -0.13f},
    };
    float ysign = frame == CROWD_FRAME_MEDIAPIPE_WORLD ? -1.0f : 1.0f;
    for (size_t k = 0; k < sizeof points / sizeof points[0]; k++) {
        float *l = &out[points[k].left * 4], *r = &out[points[k].right * 4];
        l[0] = points[k].x, l[1] = ysign * points[k].y, l[2] = points[k].z, l[3] = 1.0f;
        r[0] = -points[k].x, r[1] = ysign * points[k].y, r[2] = points[k].z, r[3] = 1.0f;
    }
}

/* ---- quaternions in double: (x, y, z, w), Hamilton, a*b applies b first ---- */
static void qmul(const double a[4], const double b[4], double out[4]) {
    double r[4] = {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
                   a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
                   a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
                   a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
    memcpy(out, r, sizeof r);
}

static void qconj(const double a[4], double out[4]) {
    out[0] = -a[0], out[1] = -a[1], out[2] = -a[2], out[3] = a[3];
}

/* Unit length (the engine's rotations are unit to float precision) and w >= 0. */
static void qnormalize(double q[4]) {
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    double s = (q[3] < 0 ? -1.0 : 1.0) / (n > 0 ? n : 1.0);
    for (int c = 0; c < 4; c++) q[c] *= s;
}

/* Solves the T-pose with the rig's limb settings (landmarks in the engine frame). */
static int solve_bind(vmc_sender *s, const crowd_limbs_desc *limbs) {
    crowd_engine *engine = NULL;
    crowd_engine_desc desc = {0};
    crowd_result res = crowd_engine_create(&desc, &engine);
    if (res != CROWD_OK) return tool_error(TOOL_FAILED, "crowd_engine_create: %s", crowd_result_text(res));
    crowd_limbs_desc bind = *limbs;
    bind.frame = CROWD_FRAME_ENGINE;
    bind.outputs = CROWD_LIMB_OUTPUTS_BOTH; /* this T-pose's world rotations, whatever the rig stores */
    crowd_rig_desc rd = {.name = "vmc_tpose", .limbs = &bind};
    crowd_rig rig;
    crowd_instance inst;
    float lm[CROWD_LANDMARK_COUNT * 4];
    vmc_tpose_landmarks(CROWD_FRAME_ENGINE, lm);
    int st = TOOL_OK;
    if ((res = crowd_rig_create(engine, &rd, &rig)) != CROWD_OK) {
        st = tool_engine_error(TOOL_BAD_INPUT, engine, res, "vmc: the limbs settings");
    } else {
        crowd_add_desc add = {.rig = rig, .count = 1};
        if ((res = crowd_instances_add(engine, &add, &inst)) != CROWD_OK ||
            (res = crowd_set(engine, inst, CROWD_FIELD_POSE, 0, lm)) != CROWD_OK ||
            (res = crowd_tick(engine, 0.0f)) != CROWD_OK)
            st = tool_engine_error(TOOL_FAILED, engine, res, "vmc: solving the T-pose");
    }
    for (uint32_t b = 0; st == TOOL_OK && b < CROWD_BONE_COUNT; b++) {
        float q[4];
        if ((res = crowd_get(engine, inst, CROWD_FIELD_BONE_WORLD, b, q)) != CROWD_OK) {
            st = tool_engine_error(TOOL_FAILED, engine, res, "vmc: the T-pose's bones");
            break;
        }
        double d[4] = {q[0], q[1], q[2], q[3]};
        qconj(d, s->bind_inverse[b]);
    }
    crowd_engine_destroy(engine);
    /* joints (engine frame) and offsets from the parent's joint, in Unity's frame (-x, y, -z) */
    static const int joint_landmark[CROWD_BONE_COUNT] = {-1, -1, -1, 11, 13, 15, 12, 14, 16, 23, 25, 27, 24, 26, 28};
    double joint[CROWD_BONE_COUNT][3];
    for (int b = 0; b < CROWD_BONE_COUNT; b++) {
        int k = joint_landmark[b];
        if (k >= 0) joint[b][0] = lm[k * 4], joint[b][1] = lm[k * 4 + 1], joint[b][2] = lm[k * 4 + 2];
    }
    joint[CROWD_BONE_HIPS][0] = 0, joint[CROWD_BONE_HIPS][1] = 0, joint[CROWD_BONE_HIPS][2] = 0;
    joint[CROWD_BONE_CHEST][0] = 0, joint[CROWD_BONE_CHEST][1] = 0.10, joint[CROWD_BONE_CHEST][2] = 0;
    joint[CROWD_BONE_HEAD][0] = 0, joint[CROWD_BONE_HEAD][1] = lm[7 * 4 + 1], joint[CROWD_BONE_HEAD][2] = 0;
    for (int b = 0; b < CROWD_BONE_COUNT; b++) {
        int p = parent_of[b];
        double o[3] = {joint[b][0], joint[b][1], joint[b][2]};
        if (p >= 0) o[0] -= joint[p][0], o[1] -= joint[p][1], o[2] -= joint[p][2];
        else o[1] += 0.93; /* hips above the floor */
        s->offset[b][0] = (float)-o[0], s->offset[b][1] = (float)o[1], s->offset[b][2] = (float)-o[2];
    }
    return st;
}

/* ---- fingers (vmc.h) ---- */
static const int hand_parent[CROWD_HAND_BONE_COUNT] = {-1, 0, 1, 2, 0, 4, 5, 0, 7, 8, 0, 10, 11, 0, 13, 14};
static const int hand_from[CROWD_HAND_BONE_COUNT] = {0, 1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15, 17, 18, 19};
/* Unity's names: its thumb bones are one joint further out than VRM 1.0's (vmc.h) */
static const char *const finger_names[CROWD_FINGER_BONE_COUNT] = {
    "LeftHand",           "LeftThumbProximal",      "LeftThumbIntermediate",  "LeftThumbDistal",
    "LeftIndexProximal",  "LeftIndexIntermediate",  "LeftIndexDistal",        "LeftMiddleProximal",
    "LeftMiddleIntermediate", "LeftMiddleDistal",   "LeftRingProximal",       "LeftRingIntermediate",
    "LeftRingDistal",     "LeftLittleProximal",     "LeftLittleIntermediate", "LeftLittleDistal",
    "RightHand",          "RightThumbProximal",     "RightThumbIntermediate", "RightThumbDistal",
    "RightIndexProximal", "RightIndexIntermediate", "RightIndexDistal",       "RightMiddleProximal",
    "RightMiddleIntermediate", "RightMiddleDistal", "RightRingProximal",      "RightRingIntermediate",
    "RightRingDistal",    "RightLittleProximal",    "RightLittleIntermediate", "RightLittleDistal"};

void vmc_finger_offset(const vmc_sender *s, int i, float out[3]) { memcpy(out, s->finger_offset[i], 3 * sizeof *out); }

const char *vmc_finger_name(int i) { return i >= 0 && i < CROWD_FINGER_BONE_COUNT ? finger_names[i] : "?"; }

/* The T-pose hand of vmc.h: engine frame, metres from the wrist, left hand (right: x mirrored). */
static void tpose_hand(crowd_hand hand, float out[CROWD_HAND_FLOATS]) {
    static const float x[5][4] = {{0, 0, 0, 0}, {0.09f, 0.13f, 0.155f, 0.175f}, {0.09f, 0.135f, 0.16f, 0.185f},
                                  {0.085f, 0.125f, 0.15f, 0.17f}, {0.08f, 0.11f, 0.13f, 0.145f}};
    static const float z[5] = {0, -0.03f, -0.01f, 0.01f, 0.03f};
    const float side = hand == CROWD_HAND_LEFT ? 1.0f : -1.0f;
    memset(out, 0, sizeof(float) * CROWD_HAND_FLOATS);
    for (int k = 0; k < 4; k++) {
        float *t = &out[(1 + k) * 3];
        t[0] = side * (0.02f + 0.025f * (float)k), t[1] = 0, t[2] = -(0.02f + 0.025f * (float)k);
    }
    for (int f = 1; f < 5; f++)
        for (int k = 0; k < 4; k++) {
            float *p = &out[(1 + 4 * f + k) * 3];
            p[0] = side * x[f][k], p[1] = 0, p[2] = z[f];
        }
    out[3 * CROWD_HAND_LANDMARK_COUNT] = 1.0f;
}

int vmc_set_fingers(vmc_sender *s, const crowd_fingers_desc *fingers) {
    crowd_engine *engine = NULL;
    crowd_engine_desc desc = {0};
    crowd_result res = crowd_engine_create(&desc, &engine);
    if (res != CROWD_OK) return tool_error(TOOL_FAILED, "crowd_engine_create: %s", crowd_result_text(res));
    crowd_fingers_desc bind = *fingers;
    bind.frame = CROWD_FRAME_ENGINE;
    bind.mirrored = false;
    bind.smoothing = false;
    bind.presence_threshold = 0; /* the pose itself, no easing */
    crowd_rig_desc rd = {.name = "vmc_tpose_hands", .fingers = &bind};
    crowd_rig rig;
    crowd_instance inst;
    float lm[CROWD_HAND_COUNT][CROWD_HAND_FLOATS];
    int st = TOOL_OK;
    for (int h = 0; h < CROWD_HAND_COUNT; h++) tpose_hand((crowd_hand)h, lm[h]);
    if ((res = crowd_rig_create(engine, &rd, &rig)) != CROWD_OK) {
        st = tool_engine_error(TOOL_BAD_INPUT, engine, res, "vmc: the fingers settings");
    } else {
        crowd_add_desc add = {.rig = rig, .count = 1};
        if ((res = crowd_instances_add(engine, &add, &inst)) != CROWD_OK ||
            (res = crowd_set(engine, inst, CROWD_FIELD_HAND_LANDMARKS, 0, lm[0])) != CROWD_OK ||
            (res = crowd_set(engine, inst, CROWD_FIELD_HAND_LANDMARKS, 1, lm[1])) != CROWD_OK ||
            (res = crowd_tick(engine, 0.0f)) != CROWD_OK)
            st = tool_engine_error(TOOL_FAILED, engine, res, "vmc: solving the T-pose hands");
    }
    for (int i = 0; st == TOOL_OK && i < CROWD_FINGER_BONE_COUNT; i++) {
        float q[4];
        if ((res = crowd_get(engine, inst, CROWD_FIELD_FINGER_WORLD, (uint32_t)i, q)) != CROWD_OK) {
            st = tool_engine_error(TOOL_FAILED, engine, res, "vmc: the T-pose hands' bones");
            break;
        }
        double d[4] = {q[0], q[1], q[2], q[3]};
        qconj(d, s->finger_bind_inverse[i]);
        int h = i / CROWD_HAND_BONE_COUNT, b = i % CROWD_HAND_BONE_COUNT;
        if (b == 0) continue;
        const float *at = &lm[h][hand_from[b] * 3], *from = &lm[h][hand_from[hand_parent[b]] * 3];
        s->finger_offset[i][0] = -(at[0] - from[0]), s->finger_offset[i][1] = at[1] - from[1];
        s->finger_offset[i][2] = -(at[2] - from[2]);
    }
    crowd_engine_destroy(engine);
    if (st == TOOL_OK) s->fingers = true;
    return st;
}

/* A = W * inverse(B) in Unity's frame (vmc.h steps 1 and 2). */
static void to_unity(const float w[4], const double bind_inverse[4], double out[4]) {
    double d[4] = {w[0], w[1], w[2], w[3]}, a[4];
    qmul(d, bind_inverse, a);
    out[0] = -a[0], out[1] = a[1], out[2] = -a[2], out[3] = a[3];
}

void vmc_convert_fingers(const vmc_sender *s, const float world[CROWD_BONE_COUNT][4],
                         const float fingers[CROWD_FINGER_BONE_COUNT][4], float out[CROWD_FINGER_BONE_COUNT][4]) {
    double unity[CROWD_FINGER_BONE_COUNT][4];
    for (int i = 0; i < CROWD_FINGER_BONE_COUNT; i++) { /* parents first */
        int h = i / CROWD_HAND_BONE_COUNT, b = i % CROWD_HAND_BONE_COUNT;
        double parent[4], pinv[4], l[4];
        to_unity(fingers[i], s->finger_bind_inverse[i], unity[i]);
        if (b == 0) {
            int lower = h == CROWD_HAND_LEFT ? CROWD_BONE_LEFT_LOWER_ARM : CROWD_BONE_RIGHT_LOWER_ARM;
            to_unity(world[lower], s->bind_inverse[lower], parent);
        } else {
            memcpy(parent, unity[h * CROWD_HAND_BONE_COUNT + hand_parent[b]], sizeof parent);
        }
        qconj(parent, pinv);
        qmul(pinv, unity[i], l);
        qnormalize(l);
        for (int c = 0; c < 4; c++) out[i][c] = (float)l[c];
    }
}

int vmc_open(vmc_sender **out, const char *flag, const char *host_port, const crowd_limbs_desc *limbs) {
    *out = NULL;
    const char *colon = host_port ? strrchr(host_port, ':') : NULL;
    char host[256];
    size_t host_len = colon ? (size_t)(colon - host_port) : 0;
    char *end = NULL;
    long port = colon ? (errno = 0, strtol(colon + 1, &end, 10)) : 0;
    if (!colon || host_len == 0 || host_len >= sizeof host || !end || *end || end == colon + 1 || errno ||
        port < 1 || port > 65535)
        return tool_error(TOOL_BAD_INPUT, "%s: \"%s\" is not HOST:PORT (e.g. 127.0.0.1:%d, a port in 1..65535)", flag,
                          host_port ? host_port : "", VMC_RECEIVER_PORT);
    memcpy(host, host_port, host_len);
    host[host_len] = 0;
    vmc_sender *s = tool_calloc(1, sizeof *s);
    if (!s) return TOOL_FAILED;
    s->settings = vmc_settings_defaults();
    snprintf(s->where, sizeof s->where, "%s:%ld", host, port);
    char port_text[16];
    snprintf(port_text, sizeof port_text, "%ld", port);
    /* resolved now, so that a wrong name is bad input here and not a failed send later (liblo
     * sends over IPv4) */
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_DGRAM}, *found = NULL;
    int gai = getaddrinfo(host, port_text, &hints, &found);
    if (gai != 0) {
        free(s);
        return tool_error(TOOL_BAD_INPUT, "%s: cannot resolve %s (an IPv4 address or host name): %s", flag, host,
                          gai_strerror(gai));
    }
    freeaddrinfo(found);
    s->address = lo_address_new(host, port_text);
    if (!s->address) {
        free(s);
        return tool_error(TOOL_BAD_INPUT, "%s: cannot use the address %s", flag, host_port);
    }
    int st = solve_bind(s, limbs);
    if (st != TOOL_OK) {
        vmc_close(s);
        return st;
    }
    *out = s;
    return TOOL_OK;
}

void vmc_convert(const vmc_sender *s, const float world[CROWD_BONE_COUNT][4], float local[CROWD_BONE_COUNT][4]) {
    double unity[CROWD_BONE_COUNT][4];
    for (int b = 0; b < CROWD_BONE_COUNT; b++) { /* the bones come parents first */
        double w[4] = {world[b][0], world[b][1], world[b][2], world[b][3]}, a[4], l[4], pinv[4];
        qmul(w, s->bind_inverse[b], a);
        unity[b][0] = -a[0], unity[b][1] = a[1], unity[b][2] = -a[2], unity[b][3] = a[3];
        if (parent_of[b] >= 0) {
            qconj(unity[parent_of[b]], pinv);
            qmul(pinv, unity[b], l);
        } else {
            memcpy(l, unity[b], sizeof l);
        }
        qnormalize(l);
        for (int c = 0; c < 4; c++) local[b][c] = (float)l[c];
    }
}

static int add(lo_bundle bundle, const char *path, lo_message m) {
    return m && lo_bundle_add_message(bundle, path, m) == 0 ? 0 : -1;
}

static lo_message pose_message(const char *name, const float p[3], const float q[4]) {
    lo_message m = lo_message_new();
    if (m && (lo_message_add_string(m, name) || lo_message_add_float(m, p[0]) || lo_message_add_float(m, p[1]) ||
              lo_message_add_float(m, p[2]) || lo_message_add_float(m, q[0]) || lo_message_add_float(m, q[1]) ||
              lo_message_add_float(m, q[2]) || lo_message_add_float(m, q[3]))) {
        lo_message_free(m);
        return NULL;
    }
    return m;
}

static lo_message blend_message(const char *name, float v) {
    lo_message m = lo_message_new();
    if (m && (lo_message_add_string(m, name) || lo_message_add_float(m, v))) {
        lo_message_free(m);
        return NULL;
    }
    return m;
}

/* Every bundle ends with OK (loaded, calibrated, tracking) and the time, then goes out and is
 * freed; bad: a message before failed to build. */
static int finish_bundle(vmc_sender *s, lo_bundle bundle, int bad, double t_s) {
    if (!bad) {
        lo_message ok = lo_message_new();
        if (ok && (lo_message_add_int32(ok, 1) || lo_message_add_int32(ok, 3) || lo_message_add_int32(ok, 0) ||
                   lo_message_add_int32(ok, 1))) {
            lo_message_free(ok);
            ok = NULL;
        }
        bad = add(bundle, "/VMC/Ext/OK", ok);
    }
    if (!bad) {
        lo_message t = lo_message_new();
        if (t && lo_message_add_float(t, (float)t_s)) {
            lo_message_free(t);
            t = NULL;
        }
        bad = add(bundle, "/VMC/Ext/T", t);
    }
    int st = TOOL_OK;
    if (bad) st = tool_error(TOOL_FAILED, "vmc: cannot build the OSC bundle (out of memory)");
    else if (lo_send_bundle(s->address, bundle) < 0)
        st = tool_error(TOOL_FAILED, "vmc: cannot send to %s: %s", s->where, lo_address_errstr(s->address));
    lo_bundle_free_recursive(bundle);
    return st;
}

/* VMC 2.1's Root/Pos: the pose, then the avatar's scale (1, 1, 1) and offset (0, 0, 0) for MR
 * compositing, so receivers that read the long form get explicit neutral values. */
static lo_message root_message(void) {
    static const float origin[3] = {0, 0, 0}, identity[4] = {0, 0, 0, 1};
    lo_message m = pose_message("root", origin, identity);
    static const float extra[6] = {1, 1, 1, 0, 0, 0};
    for (int k = 0; m && k < 6; k++)
        if (lo_message_add_float(m, extra[k])) {
            lo_message_free(m);
            return NULL;
        }
    return m;
}

static float unit_clamp(float v) { return v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v; }

/* The blend shapes of `face` by the chosen names (see vmc.h), then Apply; 0 or -1. */
static int add_blends(const vmc_sender *s, lo_bundle bundle, const vmc_face *face) {
    int bad = 0, sent = 0;
    const float *sc = face->scores;
#define BLEND(name, value) \
    do { \
        if (!bad) bad = add(bundle, "/VMC/Ext/Blend/Val", blend_message(name, unit_clamp(value))); \
        sent++; \
    } while (0)
    if (s->settings.blend == VMC_BLEND_ARKIT) {
        if (sc) {
            for (int k = 1; k < CROWD_FACE_SCORE_COUNT; k++) /* (0 is MediaPipe's _neutral, not ARKit's) */
                BLEND(crowd_face_source_name((crowd_face_source)k), sc[k]);
        } else {
            if (face->has_blink) {
                BLEND("eyeBlinkLeft", face->blink[0]);
                BLEND("eyeBlinkRight", face->blink[1]);
            }
            if (face->has_mouth) BLEND("jawOpen", face->mouth);
        }
    } else {
        if (face->has_blink) {
            BLEND("Blink_L", face->blink[0]);
            BLEND("Blink_R", face->blink[1]);
        }
        if (face->has_mouth) BLEND("A", face->mouth);
        else if (sc) BLEND("A", sc[CROWD_FACE_JAW_OPEN]);
        if (sc) {
            BLEND("I", 0.5f * (sc[CROWD_FACE_MOUTH_STRETCH_LEFT] + sc[CROWD_FACE_MOUTH_STRETCH_RIGHT]));
            BLEND("U", sc[CROWD_FACE_MOUTH_PUCKER]);
            BLEND("E", 0.5f * (sc[CROWD_FACE_MOUTH_LOWER_DOWN_LEFT] + sc[CROWD_FACE_MOUTH_LOWER_DOWN_RIGHT]));
            BLEND("O", sc[CROWD_FACE_MOUTH_FUNNEL]);
        }
    }
#undef BLEND
    if (!bad && sent) bad = add(bundle, "/VMC/Ext/Blend/Apply", lo_message_new());
    return bad;
}

void vmc_eye_rotation(const float gaze[2], float q[4]) {
    const double deg = 3.14159265358979323846 / 180.0;
    double yaw = -VMC_EYE_YAW_DEG * deg * gaze[0], pitch = -VMC_EYE_PITCH_DEG * deg * gaze[1];
    double ry[4] = {0, sin(yaw / 2), 0, cos(yaw / 2)}, rx[4] = {sin(pitch / 2), 0, 0, cos(pitch / 2)}, r[4];
    qmul(ry, rx, r);
    for (int c = 0; c < 4; c++) q[c] = (float)r[c];
}

int vmc_send_frame(vmc_sender *s, const vmc_frame *f) {
    lo_bundle bundle = lo_bundle_new(LO_TT_IMMEDIATE);
    if (!bundle) return tool_error(TOOL_FAILED, "out of memory");
    int bad = 0;
    const bool fingers = f->world && f->fingers && s->fingers;
    float finger_local[CROWD_FINGER_BONE_COUNT][4];
    if (fingers) vmc_convert_fingers(s, f->world, f->fingers, finger_local);
    if (f->world && (s->settings.send & VMC_SEND_BONES)) {
        float local[CROWD_BONE_COUNT][4];
        vmc_convert(s, f->world, local);
        if (fingers) { /* the hands: the fingers' refined hands against the T-pose hands */
            memcpy(local[CROWD_BONE_LEFT_HAND], finger_local[CROWD_HAND_LEFT * CROWD_HAND_BONE_COUNT], sizeof local[0]);
            memcpy(local[CROWD_BONE_RIGHT_HAND], finger_local[CROWD_HAND_RIGHT * CROWD_HAND_BONE_COUNT], sizeof local[0]);
        }
        bad = add(bundle, "/VMC/Ext/Root/Pos", root_message());
        for (int b = 0; !bad && b < CROWD_BONE_COUNT; b++) {
            float p[3] = {s->offset[b][0], s->offset[b][1], s->offset[b][2]};
            if (b == CROWD_BONE_HIPS && f->landmarks && f->frame == CROWD_FRAME_ENGINE) {
                /* world landmarks: the pelvis where it is, in Unity's frame (facing turned, vmc.h) */
                const float *l = f->landmarks;
                p[0] = -0.5f * (l[23 * 4] + l[24 * 4]);
                p[1] = 0.5f * (l[23 * 4 + 1] + l[24 * 4 + 1]);
                p[2] = -0.5f * (l[23 * 4 + 2] + l[24 * 4 + 2]);
            }
            bad = add(bundle, "/VMC/Ext/Bone/Pos", pose_message(bone_names[b], p, local[b]));
        }
    }
    for (int i = 0; !bad && fingers && (s->settings.send & VMC_SEND_FINGERS) && i < CROWD_FINGER_BONE_COUNT; i++)
        if (i % CROWD_HAND_BONE_COUNT != 0) /* the hands go with the body */
            bad = add(bundle, "/VMC/Ext/Bone/Pos", pose_message(finger_names[i], s->finger_offset[i], finger_local[i]));
    if (!bad && f->face && f->face->has_gaze && (s->settings.send & VMC_SEND_EYES)) {
        static const float left_eye[3] = {-0.04f, 0.03f, 0.075f}, right_eye[3] = {0.04f, 0.03f, 0.075f};
        float q[4];
        vmc_eye_rotation(f->face->gaze, q);
        bad = add(bundle, "/VMC/Ext/Bone/Pos", pose_message("LeftEye", left_eye, q));
        if (!bad) bad = add(bundle, "/VMC/Ext/Bone/Pos", pose_message("RightEye", right_eye, q));
    }
    if (!bad && f->face && (s->settings.send & VMC_SEND_FACE)) bad = add_blends(s, bundle, f->face);
    return finish_bundle(s, bundle, bad, f->t_s);
}

int vmc_send(vmc_sender *s, const float world[CROWD_BONE_COUNT][4], double t_s, const float *eye_opening) {
    vmc_face face = {0};
    if (eye_opening) { /* a timed blink may overshoot: VRM weights are in [0, 1] (clamped when sent) */
        face.has_blink = true;
        face.blink[0] = face.blink[1] = 1.0f - *eye_opening;
    }
    vmc_frame f = {.world = world, .t_s = t_s, .face = eye_opening ? &face : NULL};
    return vmc_send_frame(s, &f);
}

vmc_settings vmc_settings_defaults(void) { return (vmc_settings){.send = VMC_SEND_ALL, .blend = VMC_BLEND_VRM0}; }

void vmc_configure(vmc_sender *s, const vmc_settings *settings) {
    if (s && settings) s->settings = *settings;
}

int vmc_settings_check(const vmc_settings *s, const char *command, const char *vmc) {
    if (s->chosen && !vmc) return tool_error(TOOL_BAD_INPUT, "%s: %s goes with --vmc HOST:PORT", command, s->chosen);
    return TOOL_OK;
}

int vmc_send_blends(vmc_sender *s, const char *const *names, const float *values, unsigned count, double t_s) {
    lo_bundle bundle = lo_bundle_new(LO_TT_IMMEDIATE);
    if (!bundle) return tool_error(TOOL_FAILED, "out of memory");
    int bad = 0;
    for (unsigned k = 0; !bad && k < count; k++) bad = add(bundle, "/VMC/Ext/Blend/Val", blend_message(names[k], values[k]));
    if (!bad) bad = add(bundle, "/VMC/Ext/Blend/Apply", lo_message_new());
    return finish_bundle(s, bundle, bad, t_s);
}

int vmc_converter_open(vmc_sender **out, const crowd_limbs_desc *limbs) {
    *out = NULL;
    vmc_sender *s = tool_calloc(1, sizeof *s);
    if (!s) return TOOL_FAILED;
    s->settings = vmc_settings_defaults();
    int st = solve_bind(s, limbs);
    if (st != TOOL_OK) {
        vmc_close(s);
        return st;
    }
    *out = s;
    return TOOL_OK;
}

void vmc_rest_offset(const vmc_sender *s, int bone, float out[3]) {
    for (int c = 0; c < 3; c++) out[c] = s->offset[bone][c];
}

int vmc_bone_parent(int bone) { return (unsigned)bone < CROWD_BONE_COUNT ? parent_of[bone] : -1; }

void vmc_close(vmc_sender *s) {
    if (!s) return;
    if (s->address) lo_address_free(s->address);
    free(s);
}

static long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void vmc_pace(vmc_pacer *p, double t_s) {
    if (!p->started) {
        p->started = true;
        p->t0_s = t_s;
        p->start_ns = now_ns();
        return;
    }
    double ahead = t_s - p->t0_s;
    if (!(ahead > 0)) return;
    long long due = p->start_ns + (long long)(ahead * 1e9);
    struct timespec ts = {(time_t)(due / 1000000000LL), (long)(due % 1000000000LL)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR && !tool_interrupted) {
    }
}
