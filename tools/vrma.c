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

int vrma_open(vrma_writer *v, const char *path, const crowd_limbs_desc *limbs, uint32_t frames) {
    memset(v, 0, sizeof *v);
    v->path = path;
    v->cap = frames ? frames : 1;
    v->times = tool_calloc(v->cap, sizeof *v->times);
    v->rotations = tool_calloc((size_t)v->cap * CROWD_BONE_COUNT * 4, sizeof *v->rotations);
    v->hips = tool_calloc((size_t)v->cap * 3, sizeof *v->hips);
    v->blink = tool_calloc((size_t)v->cap * 6, sizeof *v->blink);
    if (!v->times || !v->rotations || !v->hips || !v->blink) {
        vrma_abort(v);
        return TOOL_FAILED;
    }
    int st = vmc_converter_open(&v->convert, limbs);
    if (st != TOOL_OK) vrma_abort(v);
    return st;
}

void vrma_frame(vrma_writer *v, double t_s, const float world[CROWD_BONE_COUNT][4], const float *landmarks,
                crowd_pose_frame frame, const vmc_face *face) {
    if (v->count >= v->cap) return;
    uint32_t k = v->count++;
    float local[CROWD_BONE_COUNT][4];
    vmc_convert(v->convert, world, local);
    v->times[k] = (float)t_s;
    for (int b = 0; b < CROWD_BONE_COUNT; b++) { /* Unity's frame -> glTF's: mirror x */
        float *q = &v->rotations[((size_t)k * CROWD_BONE_COUNT + b) * 4];
        q[0] = local[b][0], q[1] = -local[b][1], q[2] = -local[b][2], q[3] = local[b][3];
    }
    v->has_hips = landmarks && frame == CROWD_FRAME_ENGINE;
    if (v->has_hips) { /* the pelvis, turned to face +Z: (x, y, -z) */
        v->hips[k * 3] = 0.5f * (landmarks[23 * 4] + landmarks[24 * 4]);
        v->hips[k * 3 + 1] = 0.5f * (landmarks[23 * 4 + 1] + landmarks[24 * 4 + 1]);
        v->hips[k * 3 + 2] = -0.5f * (landmarks[23 * 4 + 2] + landmarks[24 * 4 + 2]);
    }
    v->has_blink = face && face->has_blink;
    if (v->has_blink)
        for (int e = 0; e < 2; e++) { /* a timed blink may overshoot: weights are in [0, 1] */
            float w = face->blink[e];
            v->blink[((size_t)e * v->cap + k) * 3] = w < 0.0f ? 0.0f : w > 1.0f ? 1.0f : w;
        }
}

void vrma_abort(vrma_writer *v) {
    vmc_close(v->convert);
    free(v->times);
    free(v->rotations);
    free(v->hips);
    free(v->blink);
    memset(v, 0, sizeof *v);
}

static void put_u32(unsigned char *p, uint32_t x) {
    p[0] = (unsigned char)x, p[1] = (unsigned char)(x >> 8), p[2] = (unsigned char)(x >> 16), p[3] = (unsigned char)(x >> 24);
}

/* The JSON chunk: nodes, the extension, accessors over the binary chunk laid out as times,
 * then each bone's rotations, then the hips' translations. */
static char *gltf_json(const vrma_writer *v, size_t *len) {
    char *text = NULL;
    FILE *j = open_memstream(&text, len);
    if (!j) return NULL;
    uint32_t n = v->count;
    size_t times_bytes = (size_t)n * 4, rot_bytes = (size_t)n * 16, hips_bytes = v->has_hips ? (size_t)n * 12 : 0;
    size_t blink_bytes = v->has_blink ? (size_t)n * 12 : 0;
    size_t total = times_bytes + CROWD_BONE_COUNT * rot_bytes + hips_bytes + 2 * blink_bytes;
    int blink_node = CROWD_BONE_COUNT; /* blinkLeft, then blinkRight */
    fprintf(j, "{\"asset\":{\"version\":\"2.0\",\"generator\":\"crowd\"},\"extensionsUsed\":[\"VRMC_vrm_animation\"],");
    fprintf(j, "\"scene\":0,\"scenes\":[{\"nodes\":[0%s]}],\"nodes\":[", v->has_blink ? ",15,16" : "");
    for (int b = 0; b < CROWD_BONE_COUNT; b++) {
        float o[3];
        vmc_rest_offset(v->convert, b, o);
        fprintf(j, "%s{\"name\":\"%s\",\"translation\":[%.9g,%.9g,%.9g]", b ? "," : "", vrm_names[b], -o[0], o[1], o[2]);
        int children = 0;
        for (int c = 0; c < CROWD_BONE_COUNT; c++)
            if (vmc_bone_parent(c) == b) fprintf(j, "%s%d", children++ ? "," : ",\"children\":[", c);
        fprintf(j, "%s}", children ? "]" : "");
    }
    if (v->has_blink) fprintf(j, ",{\"name\":\"blinkLeft\"},{\"name\":\"blinkRight\"}");
    fprintf(j, "],\"extensions\":{\"VRMC_vrm_animation\":{\"specVersion\":\"1.0\",\"humanoid\":{\"humanBones\":{");
    for (int b = 0; b < CROWD_BONE_COUNT; b++) fprintf(j, "%s\"%s\":{\"node\":%d}", b ? "," : "", vrm_names[b], b);
    fprintf(j, "}}");
    if (v->has_blink)
        fprintf(j, ",\"expressions\":{\"preset\":{\"blinkLeft\":{\"node\":%d},\"blinkRight\":{\"node\":%d}}}", blink_node,
                blink_node + 1);
    fprintf(j, "}},\"buffers\":[{\"byteLength\":%zu}],\"bufferViews\":[", total);
    fprintf(j, "{\"buffer\":0,\"byteOffset\":0,\"byteLength\":%zu}", times_bytes);
    for (int b = 0; b < CROWD_BONE_COUNT; b++)
        fprintf(j, ",{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu}", times_bytes + b * rot_bytes, rot_bytes);
    if (v->has_hips)
        fprintf(j, ",{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu}", times_bytes + CROWD_BONE_COUNT * rot_bytes,
                hips_bytes);
    for (int e = 0; v->has_blink && e < 2; e++)
        fprintf(j, ",{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu}",
                times_bytes + CROWD_BONE_COUNT * rot_bytes + hips_bytes + e * blink_bytes, blink_bytes);
    float lo = n ? v->times[0] : 0, hi = n ? v->times[n - 1] : 0;
    fprintf(j, "],\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":%u,\"type\":\"SCALAR\",\"min\":[%.9g],"
               "\"max\":[%.9g]}", n, lo, hi);
    for (int b = 0; b < CROWD_BONE_COUNT; b++)
        fprintf(j, ",{\"bufferView\":%d,\"componentType\":5126,\"count\":%u,\"type\":\"VEC4\"}", 1 + b, n);
    if (v->has_hips)
        fprintf(j, ",{\"bufferView\":%d,\"componentType\":5126,\"count\":%u,\"type\":\"VEC3\"}", 1 + CROWD_BONE_COUNT, n);
    /* the blinks' accessors and samplers follow the hips' (or the bones' without hips) */
    int blink_view = 1 + CROWD_BONE_COUNT + (v->has_hips ? 1 : 0);
    for (int e = 0; v->has_blink && e < 2; e++)
        fprintf(j, ",{\"bufferView\":%d,\"componentType\":5126,\"count\":%u,\"type\":\"VEC3\"}", blink_view + e, n);
    fprintf(j, "],\"animations\":[{\"name\":\"crowd\",\"samplers\":[");
    for (int b = 0; b < CROWD_BONE_COUNT; b++)
        fprintf(j, "%s{\"input\":0,\"output\":%d,\"interpolation\":\"LINEAR\"}", b ? "," : "", 1 + b);
    if (v->has_hips) fprintf(j, ",{\"input\":0,\"output\":%d,\"interpolation\":\"LINEAR\"}", 1 + CROWD_BONE_COUNT);
    for (int e = 0; v->has_blink && e < 2; e++)
        fprintf(j, ",{\"input\":0,\"output\":%d,\"interpolation\":\"LINEAR\"}", blink_view + e);
    fprintf(j, "],\"channels\":[");
    for (int b = 0; b < CROWD_BONE_COUNT; b++)
        fprintf(j, "%s{\"sampler\":%d,\"target\":{\"node\":%d,\"path\":\"rotation\"}}", b ? "," : "", b, b);
    if (v->has_hips) fprintf(j, ",{\"sampler\":%d,\"target\":{\"node\":0,\"path\":\"translation\"}}", CROWD_BONE_COUNT);
    for (int e = 0; v->has_blink && e < 2; e++)
        fprintf(j, ",{\"sampler\":%d,\"target\":{\"node\":%d,\"path\":\"translation\"}}",
                CROWD_BONE_COUNT + (v->has_hips ? 1 : 0) + e, blink_node + e);
    fprintf(j, "]}]}");
    if (fclose(j) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* The floats of the binary chunk, little-endian. */
static void put_floats(FILE *f, const float *x, size_t count, size_t stride, size_t offset, size_t width) {
    for (size_t i = 0; i < count; i++)
        for (size_t c = 0; c < width; c++) {
            uint32_t u;
            memcpy(&u, &x[i * stride + offset + c], 4);
            unsigned char b[4];
            put_u32(b, u);
            fwrite(b, 1, 4, f);
        }
}

int vrma_finish(vrma_writer *v) {
    size_t json_len = 0;
    char *json = gltf_json(v, &json_len);
    if (!json) {
        vrma_abort(v);
        return tool_error(TOOL_FAILED, "vrma: out of memory");
    }
    uint32_t n = v->count;
    size_t bin_len = (size_t)n * 4 + CROWD_BONE_COUNT * (size_t)n * 16 + (v->has_hips ? (size_t)n * 12 : 0) +
                     (v->has_blink ? 2 * (size_t)n * 12 : 0);
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
    put_floats(out.f, v->times, n, 1, 0, 1);
    for (int b = 0; b < CROWD_BONE_COUNT; b++) put_floats(out.f, v->rotations, n, CROWD_BONE_COUNT * 4, (size_t)b * 4, 4);
    if (v->has_hips) put_floats(out.f, v->hips, n, 3, 0, 3);
    for (int e = 0; v->has_blink && e < 2; e++) put_floats(out.f, v->blink + (size_t)e * v->cap * 3, n, 3, 0, 3);
    for (size_t k = 0; k < bin_pad; k++) fputc(0, out.f);
    free(json);
    st = tool_output_commit(&out, "--vrma");
    vrma_abort(v);
    return st;
}
