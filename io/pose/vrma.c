#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "vrma.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

/* VRM's humanoid names of the engine's bones (crowd_bone order); the chest goes to spine, as in VMC. */
static const char *const vrm_names[CROWD_BONE_COUNT] = {
    "hips",         "spine",         "head",         "leftUpperArm", "leftLowerArm",
    "leftHand",     "rightUpperArm", "rightLowerArm", "rightHand",   "leftUpperLeg",
    "leftLowerLeg", "leftFoot",      "rightUpperLeg", "rightLowerLeg", "rightFoot"};

/* One keyframe's floats in the writer's array: its time, the 15 rotations, the hips, the blinks,
 * the mouth and the gaze. */
enum { AT_TIME = 0, AT_ROT = 1, AT_HIPS = 61, AT_BLINK = 64, AT_MOUTH = 66, AT_LOOK = 67, FRAME_FLOATS = 71,
       AT_FINGER = 71, FINGER_FRAME_FLOATS = 71 + 4 * CROWD_FINGER_BONE_COUNT };
#define MAX_TRACKS (CROWD_BONE_COUNT + CROWD_FINGER_BONE_COUNT + 5)

/* VRM 1.0's names of the hand bones (the field's index; the hands are the body's nodes) */
static const char *const vrm_finger_names[CROWD_FINGER_BONE_COUNT] = {
    "leftHand", "leftThumbMetacarpal", "leftThumbProximal", "leftThumbDistal", "leftIndexProximal",
    "leftIndexIntermediate", "leftIndexDistal", "leftMiddleProximal", "leftMiddleIntermediate", "leftMiddleDistal",
    "leftRingProximal", "leftRingIntermediate", "leftRingDistal", "leftLittleProximal", "leftLittleIntermediate",
    "leftLittleDistal", "rightHand", "rightThumbMetacarpal", "rightThumbProximal", "rightThumbDistal",
    "rightIndexProximal", "rightIndexIntermediate", "rightIndexDistal", "rightMiddleProximal",
    "rightMiddleIntermediate", "rightMiddleDistal", "rightRingProximal", "rightRingIntermediate", "rightRingDistal",
    "rightLittleProximal", "rightLittleIntermediate", "rightLittleDistal"};
static const int hand_parent[CROWD_HAND_BONE_COUNT] = {-1, 0, 1, 2, 0, 4, 5, 0, 7, 8, 0, 10, 11, 0, 13, 14};

/* The node of hand bone i (hand * 16 + bone): the hands are the body's; the 30 others follow it. */
static int finger_node(int i) {
    int h = i / CROWD_HAND_BONE_COUNT, b = i % CROWD_HAND_BONE_COUNT;
    if (b == 0) return h ? CROWD_BONE_RIGHT_HAND : CROWD_BONE_LEFT_HAND;
    return CROWD_BONE_COUNT + h * (CROWD_HAND_BONE_COUNT - 1) + b - 1;
}
/* The first node after the skeleton (expressions, lookAt). */
static int first_extra(const vrma_writer *v) { return CROWD_BONE_COUNT + (v->fingers ? CROWD_FINGER_BONE_COUNT - 2 : 0); }

int vrma_open(vrma_writer *v, const char *path, const crowd_limbs_desc *limbs, uint32_t frames) {
    memset(v, 0, sizeof *v);
    if (frames > VRMA_MAX_FRAMES)
        return tool_error(TOOL_BAD_INPUT, "--vrma: %u keyframes, more than the %u a file holds (%s)", frames, VRMA_MAX_FRAMES,
                          path);
    v->path = path;
    v->stride = FRAME_FLOATS;
    v->cap = frames ? frames : 1;
    v->data = tool_calloc((size_t)v->cap * FRAME_FLOATS, sizeof *v->data);
    if (!v->data) {
        vrma_abort(v);
        return TOOL_FAILED;
    }
    int st = vmc_converter_open(&v->convert, limbs);
    if (st != TOOL_OK) vrma_abort(v);
    return st;
}

int vrma_set_fingers(vrma_writer *v, const crowd_fingers_desc *fingers) {
    float *grown = realloc(v->data, (size_t)v->cap * FINGER_FRAME_FLOATS * sizeof *grown);
    if (!grown) return tool_error(TOOL_FAILED, "--vrma: out of memory");
    v->data = grown;
    v->stride = FINGER_FRAME_FLOATS;
    int st = vmc_set_fingers(v->convert, fingers);
    if (st == TOOL_OK) v->fingers = true;
    return st;
}

static float unit_clamp(float w) { return w < 0.0f ? 0.0f : w > 1.0f ? 1.0f : w; }

int vrma_frame(vrma_writer *v, double t_s, const float world[CROWD_BONE_COUNT][4], const float *landmarks,
               crowd_pose_frame frame, const vmc_face *face) {
    if (v->count >= v->cap) {
        if (v->cap >= VRMA_MAX_FRAMES) { /* a stream past the bound: the file keeps the first ones */
            if (!v->full)
                tool_error(TOOL_OK, "--vrma: %u keyframes, the most a file holds: %s keeps those, later frames are left out",
                           VRMA_MAX_FRAMES, v->path);
            v->full = true;
            return TOOL_OK;
        }
        uint32_t cap = v->cap > VRMA_MAX_FRAMES / 2 ? VRMA_MAX_FRAMES : v->cap * 2;
        float *grown = realloc(v->data, (size_t)cap * v->stride * sizeof *grown);
        if (!grown) return tool_error(TOOL_FAILED, "--vrma: out of memory at %u keyframes", v->count);
        v->data = grown, v->cap = cap;
    }
    float *d = &v->data[(size_t)v->count++ * v->stride];
    memset(d, 0, v->stride * sizeof *d);
    float local[CROWD_BONE_COUNT][4];
    vmc_convert(v->convert, world, local);
    d[AT_TIME] = (float)t_s;
    for (int b = 0; b < CROWD_BONE_COUNT; b++) { /* Unity's frame -> glTF's: mirror x */
        float *q = &d[AT_ROT + b * 4];
        q[0] = local[b][0], q[1] = -local[b][1], q[2] = -local[b][2], q[3] = local[b][3];
    }
    v->has_hips = landmarks && frame == CROWD_FRAME_ENGINE;
    if (v->has_hips) { /* the pelvis, turned to face +Z: (x, y, -z) */
        d[AT_HIPS] = 0.5f * (landmarks[23 * 4] + landmarks[24 * 4]);
        d[AT_HIPS + 1] = 0.5f * (landmarks[23 * 4 + 1] + landmarks[24 * 4 + 1]);
        d[AT_HIPS + 2] = -0.5f * (landmarks[23 * 4 + 2] + landmarks[24 * 4 + 2]);
    }
    /* a face part once present stays (a stream's face may start late: 0 before) */
    v->has_blink |= face && face->has_blink;
    if (face && face->has_blink) /* a timed blink may overshoot: weights are in [0, 1] */
        d[AT_BLINK] = unit_clamp(face->blink[0]), d[AT_BLINK + 1] = unit_clamp(face->blink[1]);
    v->has_mouth |= face && (face->has_mouth || face->scores);
    if (face && (face->has_mouth || face->scores)) d[AT_MOUTH] = unit_clamp(face->has_mouth ? face->mouth : face->scores[CROWD_FACE_JAW_OPEN]);
    v->has_gaze |= face && face->has_gaze;
    if (face && face->has_gaze) { /* VMC's eye turn (Unity's frame) in glTF's: (x, -y, -z, w) */
        float q[4];
        vmc_eye_rotation(face->gaze, q);
        d[AT_LOOK] = q[0], d[AT_LOOK + 1] = -q[1], d[AT_LOOK + 2] = -q[2], d[AT_LOOK + 3] = q[3];
    }
    return TOOL_OK;
}

int vrma_frame_fingers(vrma_writer *v, double t_s, const float world[CROWD_BONE_COUNT][4],
                       const float fingers[CROWD_FINGER_BONE_COUNT][4], const float *landmarks, crowd_pose_frame frame,
                       const vmc_face *face) {
    uint32_t before = v->count;
    int st = vrma_frame(v, t_s, world, landmarks, frame, face);
    if (st != TOOL_OK || !v->fingers || v->count == before) return st;
    float *d = &v->data[(size_t)(v->count - 1) * v->stride], local[CROWD_FINGER_BONE_COUNT][4];
    vmc_convert_fingers(v->convert, world, fingers, local);
    for (int i = 0; i < CROWD_FINGER_BONE_COUNT; i++) { /* Unity's frame -> glTF's, as the body's */
        int b = i % CROWD_HAND_BONE_COUNT;
        float *q = b ? &d[AT_FINGER + i * 4] : &d[AT_ROT + finger_node(i) * 4]; /* the hands: the refined ones */
        q[0] = local[i][0], q[1] = -local[i][1], q[2] = -local[i][2], q[3] = local[i][3];
    }
    return TOOL_OK;
}

void vrma_abort(vrma_writer *v) {
    vmc_close(v->convert);
    free(v->data);
    memset(v, 0, sizeof *v);
}

/* The animated tracks in file order: each a node's rotation (4 floats) or translation (3; an
 * expression's weight is its x, the rest 0). */
typedef struct track {
    int node, at, width; /* width 1: a weight written as (w, 0, 0) */
    bool rotation;
} track;

static int tracks_of(const vrma_writer *v, track t[MAX_TRACKS], int *nodes) {
    int n = 0, node = first_extra(v);
    for (int b = 0; b < CROWD_BONE_COUNT; b++) t[n++] = (track){b, AT_ROT + b * 4, 4, true};
    for (int i = 0; v->fingers && i < CROWD_FINGER_BONE_COUNT; i++)
        if (i % CROWD_HAND_BONE_COUNT) t[n++] = (track){finger_node(i), AT_FINGER + i * 4, 4, true};
    if (v->has_hips) t[n++] = (track){0, AT_HIPS, 3, false};
    if (v->has_blink) t[n++] = (track){node++, AT_BLINK, 1, false}, t[n++] = (track){node++, AT_BLINK + 1, 1, false};
    if (v->has_mouth) t[n++] = (track){node++, AT_MOUTH, 1, false};
    if (v->has_gaze) t[n++] = (track){node++, AT_LOOK, 4, true};
    *nodes = node;
    return n;
}

static size_t track_bytes(const track *t, uint32_t n) { return (size_t)n * (t->width == 4 ? 16 : 12); }

static void put_u32(unsigned char *p, uint32_t x) {
    p[0] = (unsigned char)x, p[1] = (unsigned char)(x >> 8), p[2] = (unsigned char)(x >> 16), p[3] = (unsigned char)(x >> 24);
}

/* The JSON chunk: nodes, the extension, accessors over the binary chunk laid out as times, then
 * each track's values. */
static char *gltf_json(const vrma_writer *v, size_t *len) {
    char *text = NULL;
    FILE *j = open_memstream(&text, len);
    if (!j) return NULL;
    uint32_t n = v->count;
    track t[MAX_TRACKS];
    int nodes, count = tracks_of(v, t, &nodes);
    size_t total = (size_t)n * 4;
    for (int k = 0; k < count; k++) total += track_bytes(&t[k], n);
    fprintf(j, "{\"asset\":{\"version\":\"2.0\",\"generator\":\"crowd\"},\"extensionsUsed\":[\"VRMC_vrm_animation\"],");
    fprintf(j, "\"scene\":0,\"scenes\":[{\"nodes\":[0");
    for (int k = first_extra(v); k < nodes; k++) fprintf(j, ",%d", k);
    fprintf(j, "]}],\"nodes\":[");
    for (int b = 0; b < CROWD_BONE_COUNT; b++) {
        float o[3];
        vmc_rest_offset(v->convert, b, o);
        fprintf(j, "%s{\"name\":\"%s\",\"translation\":[%.9g,%.9g,%.9g]", b ? "," : "", vrm_names[b], -o[0], o[1], o[2]);
        int children = 0;
        for (int c = 0; c < CROWD_BONE_COUNT; c++)
            if (vmc_bone_parent(c) == b) fprintf(j, "%s%d", children++ ? "," : ",\"children\":[", c);
        for (int i = 0; v->fingers && i < CROWD_FINGER_BONE_COUNT; i++) /* a hand's fingers */
            if (i % CROWD_HAND_BONE_COUNT && hand_parent[i % CROWD_HAND_BONE_COUNT] == 0 &&
                finger_node(i - i % CROWD_HAND_BONE_COUNT) == b)
                fprintf(j, "%s%d", children++ ? "," : ",\"children\":[", finger_node(i));
        fprintf(j, "%s}", children ? "]" : "");
    }
    for (int i = 0; v->fingers && i < CROWD_FINGER_BONE_COUNT; i++) { /* nodes 15.. in this order */
        if (i % CROWD_HAND_BONE_COUNT == 0) continue;
        float o[3];
        vmc_finger_offset(v->convert, i, o);
        fprintf(j, ",{\"name\":\"%s\",\"translation\":[%.9g,%.9g,%.9g]", vrm_finger_names[i], -o[0], o[1], o[2]);
        int b = i % CROWD_HAND_BONE_COUNT;
        if (b % 3) fprintf(j, ",\"children\":[%d]", finger_node(i + 1)); /* not a distal bone */
        fprintf(j, "}");
    }
    /* expression and lookAt nodes, in the order tracks_of numbers them */
    const char *preset[3];
    int presets = 0;
    if (v->has_blink) preset[presets++] = "blinkLeft", preset[presets++] = "blinkRight";
    if (v->has_mouth) preset[presets++] = "aa";
    for (int e = 0; e < presets; e++) fprintf(j, ",{\"name\":\"%s\"}", preset[e]);
    if (v->has_gaze) fprintf(j, ",{\"name\":\"lookAt\"}");
    fprintf(j, "],\"extensions\":{\"VRMC_vrm_animation\":{\"specVersion\":\"1.0\",\"humanoid\":{\"humanBones\":{");
    for (int b = 0; b < CROWD_BONE_COUNT; b++) fprintf(j, "%s\"%s\":{\"node\":%d}", b ? "," : "", vrm_names[b], b);
    for (int i = 0; v->fingers && i < CROWD_FINGER_BONE_COUNT; i++)
        if (i % CROWD_HAND_BONE_COUNT) fprintf(j, ",\"%s\":{\"node\":%d}", vrm_finger_names[i], finger_node(i));
    fprintf(j, "}}");
    if (presets) {
        fprintf(j, ",\"expressions\":{\"preset\":{");
        for (int e = 0; e < presets; e++) fprintf(j, "%s\"%s\":{\"node\":%d}", e ? "," : "", preset[e], first_extra(v) + e);
        fprintf(j, "}}");
    }
    if (v->has_gaze) fprintf(j, ",\"lookAt\":{\"node\":%d}", first_extra(v) + presets);
    fprintf(j, "}},\"buffers\":[{\"byteLength\":%zu}],\"bufferViews\":[", total);
    fprintf(j, "{\"buffer\":0,\"byteOffset\":0,\"byteLength\":%zu}", (size_t)n * 4);
    size_t offset = (size_t)n * 4;
    for (int k = 0; k < count; k++) {
        fprintf(j, ",{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu}", offset, track_bytes(&t[k], n));
        offset += track_bytes(&t[k], n);
    }
    float lo = n ? v->data[AT_TIME] : 0, hi = n ? v->data[(size_t)(n - 1) * v->stride + AT_TIME] : 0;
    fprintf(j, "],\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":%u,\"type\":\"SCALAR\",\"min\":[%.9g],"
               "\"max\":[%.9g]}", n, lo, hi);
    for (int k = 0; k < count; k++)
        fprintf(j, ",{\"bufferView\":%d,\"componentType\":5126,\"count\":%u,\"type\":\"%s\"}", 1 + k, n,
                t[k].width == 4 ? "VEC4" : "VEC3");
    fprintf(j, "],\"animations\":[{\"name\":\"crowd\",\"samplers\":[");
    for (int k = 0; k < count; k++)
        fprintf(j, "%s{\"input\":0,\"output\":%d,\"interpolation\":\"LINEAR\"}", k ? "," : "", 1 + k);
    fprintf(j, "],\"channels\":[");
    for (int k = 0; k < count; k++)
        fprintf(j, "%s{\"sampler\":%d,\"target\":{\"node\":%d,\"path\":\"%s\"}}", k ? "," : "", k, t[k].node,
                t[k].rotation ? "rotation" : "translation");
    fprintf(j, "]}]}");
    if (fclose(j) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* A float of the binary chunk, little-endian. */
static void put_float(FILE *f, float x) {
    uint32_t u;
    memcpy(&u, &x, 4);
    unsigned char b[4];
    put_u32(b, u);
    fwrite(b, 1, 4, f);
}

int vrma_finish(vrma_writer *v) {
    size_t json_len = 0;
    char *json = gltf_json(v, &json_len);
    if (!json) {
        vrma_abort(v);
        return tool_error(TOOL_FAILED, "vrma: out of memory");
    }
    uint32_t n = v->count;
    track t[MAX_TRACKS];
    int nodes, count = tracks_of(v, t, &nodes);
    size_t bin_len = (size_t)n * 4;
    for (int k = 0; k < count; k++) bin_len += track_bytes(&t[k], n);
    size_t json_pad = (4 - json_len % 4) % 4, bin_pad = (4 - bin_len % 4) % 4;
    size_t total = 12 + 8 + json_len + json_pad + 8 + bin_len + bin_pad;
    tool_output out;
    int st = tool_output_open(&out, v->path, "--vrma");
    if (st != TOOL_OK) {
        free(json);
        vrma_abort(v);
        return st;
    }
    unsigned char h[12];
    put_u32(h, 0x46546C67u); /* "glTF" */
    put_u32(h + 4, 2);
    put_u32(h + 8, (uint32_t)total);
    fwrite(h, 1, 12, out.f);
    put_u32(h, (uint32_t)(json_len + json_pad));
    put_u32(h + 4, 0x4E4F534Au); /* "JSON" */
    fwrite(h, 1, 8, out.f);
    fwrite(json, 1, json_len, out.f);
    for (size_t k = 0; k < json_pad; k++) fputc(' ', out.f);
    put_u32(h, (uint32_t)(bin_len + bin_pad));
    put_u32(h + 4, 0x004E4942u); /* "BIN" */
    fwrite(h, 1, 8, out.f);
    for (uint32_t i = 0; i < n; i++) put_float(out.f, v->data[(size_t)i * v->stride + AT_TIME]);
    for (int k = 0; k < count; k++)
        for (uint32_t i = 0; i < n; i++) {
            const float *d = &v->data[(size_t)i * v->stride + t[k].at];
            for (int c = 0; c < (t[k].width == 1 ? 3 : t[k].width); c++) put_float(out.f, c < t[k].width ? d[c] : 0.0f);
        }
    for (size_t k = 0; k < bin_pad; k++) fputc(0, out.f);
    free(json);
    st = tool_output_commit(&out, "--vrma");
    vrma_abort(v);
    return st;
}
