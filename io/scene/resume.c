#include "resume.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checksum.h"
#include "diag.h"
#include "files.h"

/* ---- the scene's fingerprint ---- */
static uint64_t fp_u32(uint64_t h, uint32_t v) {
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16), (unsigned char)(v >> 24)};
    return fnv1a64_bytes(h, b, 4);
}
static uint64_t fp_u64(uint64_t h, uint64_t v) { return fp_u32(fp_u32(h, (uint32_t)v), (uint32_t)(v >> 32)); }
static uint64_t fp_floats(uint64_t h, const float *v, size_t n) {
    for (size_t k = 0; k < n; k++) h = fnv1a64_float(h, v[k]);
    return h;
}
static uint64_t fp_str(uint64_t h, const char *s) {
    size_t n = s ? strlen(s) : 0;
    h = fp_u32(h, s ? (uint32_t)n : 0xffffffffu);
    return fnv1a64_bytes(h, s ? s : "", n);
}

/* The desc of controller ctl in d, or NULL: crowd_rig_desc's controller pointers are in
 * crowd_controller order (crowd.h), from look to the level-of-detail settings. */
_Static_assert(offsetof(crowd_rig_desc, lod_interval) - offsetof(crowd_rig_desc, look) ==
                   CROWD_CONTROLLER_COUNT * sizeof(const void *),
               "crowd_rig_desc holds one desc pointer per crowd_controller, in order");
static const void *controller_desc(const crowd_rig_desc *d, crowd_controller ctl) {
    const void *p;
    memcpy(&p, (const char *)d + offsetof(crowd_rig_desc, look) + (size_t)ctl * sizeof p, sizeof p);
    return p;
}

/* Every setting of the controller's table (crowd_setting_info) as the desc holds it: a row
 * added to a table is in the fingerprint with no line here. */
static uint64_t fp_settings(uint64_t h, crowd_controller ctl, const void *desc) {
    uint32_t count = crowd_setting_count(ctl);
    for (uint32_t i = 0; i < count; i++) {
        crowd_setting s;
        if (crowd_setting_info(ctl, i, &s) != CROWD_OK) continue;
        const char *at = (const char *)desc + s.offset;
        if (s.type == CROWD_SETTING_FLOAT) {
            for (uint32_t k = 0; k < s.count; k++) {
                float f;
                memcpy(&f, at + k * sizeof f, sizeof f);
                h = fnv1a64_float(h, f);
            }
        } else if (s.type == CROWD_SETTING_ENUM) {
            int v; /* the crowd_* enums are int-sized (crowd.h) */
            memcpy(&v, at, sizeof v);
            h = fp_u32(h, (uint32_t)v);
        } else if (s.type == CROWD_SETTING_BOOL) {
            bool b;
            memcpy(&b, at, sizeof b);
            h = fp_u32(h, b);
        } else {
            uint64_t bits;
            memcpy(&bits, at, sizeof bits);
            h = fp_u64(h, bits);
        }
    }
    return h;
}

static uint64_t fp_rig(uint64_t h, const scene_rig *sr) {
    const crowd_rig_desc *d = &sr->rig_desc;
    h = fp_str(h, sr->name);
    h = fp_u32(h, d->parameter_count);
    for (uint32_t p = 0; p < d->parameter_count; p++) {
        const crowd_parameter_desc *pd = &d->parameters[p];
        h = fp_str(h, pd->id);
        h = fp_floats(h, (const float[]){pd->min, pd->max, pd->default_value}, 3);
        h = fp_u32(h, pd->repeat);
    }
    uint32_t present = 0;
    for (int ctl = 0; ctl < CROWD_CONTROLLER_COUNT; ctl++)
        if (controller_desc(d, (crowd_controller)ctl)) present |= 1u << ctl;
    h = fp_u32(h, present);
    for (int ctl = 0; ctl < CROWD_CONTROLLER_COUNT; ctl++) {
        const void *desc = controller_desc(d, (crowd_controller)ctl);
        if (desc) h = fp_settings(h, (crowd_controller)ctl, desc);
    }
    /* the entry lists and arrays, which are no settings (physics': its file, an input) */
    if (d->look) {
        const crowd_look_desc *l = d->look;
        h = fp_u32(h, l->parameter_count);
        for (uint32_t k = 0; k < l->parameter_count; k++) {
            h = fp_str(h, l->parameters[k].id);
            h = fp_u32(h, (uint32_t)l->parameters[k].axis);
            h = fp_floats(h, &l->parameters[k].factor, 1);
        }
    }
    if (d->harmonic) {
        const crowd_harmonic_desc *hd = d->harmonic;
        h = fp_u32(h, hd->channel_count);
        if (hd->channel_count) h = fp_floats(h, hd->channel_timescales, hd->channel_count);
        h = fp_u32(h, hd->parameter_count);
        for (uint32_t k = 0; k < hd->parameter_count; k++) {
            const crowd_harmonic_parameter_desc *hp = &hd->parameters[k];
            h = fp_str(h, hp->id);
            h = fp_u32(fp_u32(h, hp->channel), (uint32_t)hp->direction);
            h = fp_floats(h, (const float[]){hp->origin, hp->range, hp->duration}, 3);
        }
    }
    if (d->blink) {
        h = fp_u32(h, d->blink->parameter_count);
        for (uint32_t k = 0; k < d->blink->parameter_count; k++) h = fp_str(h, d->blink->parameters[k]);
    }
    if (d->limbs) {
        const crowd_limbs_desc *l = d->limbs;
        if (l->axis_fix == CROWD_AXIS_FIX_CUSTOM && l->custom_fix)
            h = fp_floats(h, &l->custom_fix[0].x, 4 * CROWD_BONE_COUNT);
        if (l->axis_fix == CROWD_AXIS_FIX_CALIBRATED && l->bind_landmarks && l->bind_rotations) {
            h = fp_floats(h, l->bind_landmarks, 4 * CROWD_LANDMARK_COUNT);
            h = fp_floats(h, &l->bind_rotations[0].x, 4 * CROWD_BONE_COUNT);
        }
    }
    if (d->face) {
        h = fp_u32(h, d->face->mapping_count);
        for (uint32_t k = 0; k < d->face->mapping_count; k++) {
            const crowd_face_mapping_desc *m = &d->face->mapping[k];
            h = fp_str(fp_u32(h, (uint32_t)m->source), m->id);
            h = fp_floats(h, (const float[]){m->gain, m->offset}, 2);
            h = fp_u32(h, (uint32_t)m->curve);
        }
    }
    if (d->lipsync) {
        h = fp_u32(h, d->lipsync->parameter_count);
        for (uint32_t k = 0; k < d->lipsync->parameter_count; k++) h = fp_str(h, d->lipsync->parameters[k]);
    }
    return h;
}

static uint64_t fp_group(uint64_t h, const scene_group *g) {
    h = fp_u32(fp_u32(h, g->rig), g->count);
    h = fp_floats(h, g->center, 3);
    h = fp_floats(h, &g->jitter, 1);
    h = fp_u32(h, g->key_count);
    for (uint32_t k = 0; k < g->key_count; k++) {
        h = fp_floats(h, &g->keys[k].t, 1);
        h = fp_u32(h, g->keys[k].active);
        h = fp_floats(h, g->keys[k].target, 3);
    }
    h = fp_u32(fp_u32(h, (uint32_t)g->harmonic_phase), (uint32_t)g->blink_start);
    h = fp_u32(h, g->clip != NULL);
    if (g->clip) {
        h = fp_u32(h, g->clip->row_count);
        h = fnv1a64_bytes(h, g->clip->t_s, sizeof *g->clip->t_s * g->clip->row_count);
        h = fp_floats(h, g->clip->landmarks, (size_t)g->clip->row_count * CLIP_FLOATS);
        h = fp_u32(fp_u32(h, (uint32_t)g->pose_offset), g->pose_loop);
    }
    /* the track's frames are its file's part; here whether there is one and how it plays */
    h = fp_u32(h, (uint32_t)(g->face != NULL) | (uint32_t)g->face_loop << 1);
    if (g->face) h = fp_u32(h, g->face->count);
    /* likewise a hand track (only when there is one: older scenes' parts stay as they were) */
    if (g->hands) h = fp_u32(fp_u32(fp_u32(h, g->hands->count), (uint32_t)g->hand_offset), g->hand_loop);
    return h;
}

uint32_t scene_part_count(const scene *s) { return s->rig_count + s->group_count + (uint32_t)s->inputs_count; }

uint64_t scene_part(const scene *s, uint32_t k) {
    if (k < s->rig_count) return fp_rig(FNV1A64_INIT, &s->rigs[k]);
    k -= s->rig_count;
    if (k < s->group_count) return fp_group(FNV1A64_INIT, &s->groups[k]);
    k -= s->group_count;
    const tool_input *in = tool_input_at(s->inputs_first + k);
    return in ? in->digest : 0;
}

uint64_t scene_fingerprint(const scene *s) {
    uint64_t h = fp_u64(FNV1A64_INIT, s->seed);
    h = fp_floats(h, &s->dt, 1);
    h = fp_u32(fp_u32(h, s->rig_count), s->group_count);
    uint32_t parts = scene_part_count(s);
    h = fp_u32(h, parts);
    for (uint32_t k = 0; k < parts; k++) h = fp_u64(h, scene_part(s, k));
    return h;
}

int scene_parts_differ(const char *path, const scene *s, uint32_t rigs, const uint64_t *saved, uint32_t count) {
    uint32_t parts = scene_part_count(s);
    if (rigs != s->rig_count || count != parts)
        return tool_error(TOOL_BAD_INPUT,
                          "%s: saved from another scene than %s (it had %u rigs and %u groups and input files together, "
                          "this one has %u and %u)",
                          path, s->path, rigs, count - rigs, s->rig_count, parts - s->rig_count);
    for (uint32_t k = 0; k < parts; k++) {
        if (saved[k] == scene_part(s, k)) continue;
        if (k < s->rig_count)
            return tool_error(TOOL_BAD_INPUT, "%s: saved from another scene than %s: rigs[%u] (\"%s\") changed since", path,
                              s->path, k, s->rigs[k].name);
        if (k < s->rig_count + s->group_count)
            return tool_error(TOOL_BAD_INPUT,
                              "%s: saved from another scene than %s: groups[%u] changed since (its instances, look keys, "
                              "phases, blink start, pose, face or hand track settings)",
                              path, s->path, k - s->rig_count);
        const tool_input *in = tool_input_at(s->inputs_first + (k - s->rig_count - s->group_count));
        return tool_error(TOOL_BAD_INPUT, "%s: saved from another scene than %s: the %s %s it reads changed since (or is "
                          "another file)", path, s->path, in ? in->what : "input", in ? in->path : "?");
    }
    return TOOL_OK;
}

/* ---- the header ---- */
static void put32(unsigned char *p, uint32_t v) {
    for (int k = 0; k < 4; k++) p[k] = (unsigned char)(v >> (8 * k));
}
static void put64(unsigned char *p, uint64_t v) {
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}
static uint32_t get32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t get64(const unsigned char *p) { return get32(p) | (uint64_t)get32(p + 4) << 32; }

static uint32_t float_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

int resume_fingerprint(const world *w, uint64_t *out) {
    uint64_t h = scene_fingerprint(w->scene);
    for (uint32_t r = 0; r < w->scene->rig_count; r++) {
        uint64_t d;
        crowd_result res = crowd_rig_settings_digest(w->engine, w->rigs[r].rig, &d);
        if (res != CROWD_OK) return tool_engine_error(TOOL_FAILED, w->engine, res, "crowd_rig_settings_digest");
        h = fp_u64(h, d);
    }
    *out = h;
    return TOOL_OK;
}

/* FNV-1a 64 of the header but its last 8 bytes, then of the payload: a header spliced onto
 * another run's payload does not match. */
static uint64_t file_checksum(const unsigned char *data, size_t head, size_t size) {
    return fnv1a64_bytes(fnv1a64_bytes(FNV1A64_INIT, data, head - 8), data + head, size - head);
}

static uint64_t header_bytes(uint32_t rigs, uint32_t instances, uint32_t parts) {
    return RESUME_FIXED + 4ull * rigs + 8ull * instances + 8ull * parts + 8;
}

int resume_save(const world *w, uint32_t frame, const char *path) {
    const scene *s = w->scene;
    size_t snap = 0;
    crowd_result res = crowd_snapshot_size(w->engine, &snap);
    if (res != CROWD_OK) return tool_engine_error(TOOL_FAILED, w->engine, res, "crowd_snapshot_size");
    uint32_t parts = scene_part_count(s);
    uint64_t head = header_bytes(s->rig_count, w->instance_count, parts);
    if (head > UINT32_MAX || snap > SIZE_MAX - head)
        return tool_error(TOOL_FAILED, "%s: the snapshot is too large", path);
    uint64_t fingerprint;
    int fst = resume_fingerprint(w, &fingerprint);
    if (fst != TOOL_OK) return fst;
    unsigned char *buf = tool_malloc((size_t)head + snap);
    if (!buf) return TOOL_FAILED;
    memcpy(buf, RESUME_MAGIC, 8);
    put32(buf + 8, RESUME_VERSION);
    put32(buf + 12, (uint32_t)head);
    put32(buf + 16, frame);
    put32(buf + 20, float_bits(s->dt));
    put64(buf + 24, s->seed);
    put64(buf + 32, fingerprint);
    put32(buf + 40, s->rig_count);
    put32(buf + 44, w->instance_count);
    put32(buf + 48, w->first);
    put32(buf + 52, parts);
    unsigned char *p = buf + RESUME_FIXED;
    for (uint32_t r = 0; r < s->rig_count; r++, p += 4) put32(p, w->rigs[r].rig.id);
    for (uint32_t i = 0; i < w->instance_count; i++, p += 8) put64(p, w->handles[i].id);
    for (uint32_t k = 0; k < parts; k++, p += 8) put64(p, scene_part(s, k));
    res = crowd_snapshot_save(w->engine, buf + head, snap, NULL);
    if (res != CROWD_OK) {
        free(buf);
        return tool_engine_error(TOOL_FAILED, w->engine, res, "crowd_snapshot_save");
    }
    put64(p, file_checksum(buf, (size_t)head, (size_t)head + snap));

    tool_output out;
    int st = tool_output_open(&out, path, "snapshot");
    if (st == TOOL_OK) {
        if (fwrite(buf, 1, (size_t)head + snap, out.f) != (size_t)head + snap) {
            tool_output_abort(&out);
            st = tool_error(TOOL_FAILED, "%s: cannot write the snapshot (disk full?)", path);
        } else {
            st = tool_output_commit(&out, "snapshot");
        }
    }
    free(buf);
    return st;
}

int resume_load_bytes(world *w, const char *path, const unsigned char *data, size_t size, uint32_t *out_frame) {
    const scene *s = w->scene;
    if (size < 8 || memcmp(data, RESUME_MAGIC, 8) != 0)
        return tool_error(TOOL_BAD_INPUT, "%s: not a crowd run snapshot (crowd run --snapshot-at writes them)", path);
    if (size < RESUME_FIXED + 8) return tool_error(TOOL_BAD_INPUT, "%s: the file is truncated (%zu bytes)", path, size);
    uint32_t version = get32(data + 8), head = get32(data + 12);
    if (version != RESUME_VERSION)
        return tool_error(TOOL_BAD_INPUT, "%s: run snapshot version %u, this crowd reads version %u", path, version,
                          RESUME_VERSION);
    uint32_t rigs = get32(data + 40), instances = get32(data + 44), first = get32(data + 48), parts = get32(data + 52);
    if (head != header_bytes(rigs, instances, parts) || head > size)
        return tool_error(TOOL_BAD_INPUT, "%s: the header is corrupt or the file is truncated", path);
    if (get64(data + head - 8) != file_checksum(data, head, size))
        return tool_error(TOOL_BAD_INPUT, "%s: the file's checksum does not match: the file is corrupt", path);
    uint32_t frame = get32(data + 16);
    uint64_t seed = get64(data + 24);
    float dt;
    uint32_t dt_bits = get32(data + 20);
    memcpy(&dt, &dt_bits, 4);
    if (seed != s->seed)
        return tool_error(TOOL_BAD_INPUT, "%s: saved from a run with seed %llu, this run has seed %llu (--seed)", path,
                          (unsigned long long)seed, (unsigned long long)s->seed);
    if (dt_bits != float_bits(s->dt))
        return tool_error(TOOL_BAD_INPUT, "%s: saved from a run with dt %.9g, this run has dt %.9g (--dt)", path, (double)dt,
                          (double)s->dt);
    uint64_t fingerprint;
    int st = resume_fingerprint(w, &fingerprint);
    if (st != TOOL_OK) return st;
    if (first != w->first || instances != w->instance_count)
        return tool_error(TOOL_BAD_INPUT,
                          "%s: holds instances %u to %u, this run expected %u to %u here (a snapshot file swapped or "
                          "named twice?)",
                          path, first, first + instances - 1, w->first, w->first + w->instance_count - 1);
    if (get64(data + 32) != fingerprint) {
        uint64_t *saved = tool_calloc((size_t)parts + 1, sizeof *saved);
        if (!saved) return TOOL_FAILED;
        const unsigned char *q = data + RESUME_FIXED + 4ull * rigs + 8ull * instances;
        for (uint32_t k = 0; k < parts; k++) saved[k] = get64(q + 8ull * k);
        st = scene_parts_differ(path, s, rigs, saved, parts);
        free(saved);
        if (st != TOOL_OK) return st;
        return tool_error(TOOL_BAD_INPUT, "%s: saved from another scene than %s (a rig's engine settings differ)", path,
                          s->path);
    }
    /* the settings each rig of the payload must have: those of this scene's fresh rigs */
    uint64_t *digests = tool_calloc(rigs + 1, sizeof *digests);
    if (!digests) return TOOL_FAILED;
    for (uint32_t r = 0; r < rigs && st == TOOL_OK; r++)
        if (crowd_rig_settings_digest(w->engine, w->rigs[r].rig, &digests[r]) != CROWD_OK) st = TOOL_FAILED;
    crowd_result res = st == TOOL_OK ? crowd_snapshot_load(w->engine, data + head, size - head) : CROWD_OK;
    if (res != CROWD_OK) {
        free(digests);
        char what[1200];
        snprintf(what, sizeof what, "%s: the engine snapshot", path);
        /* a resource failure while loading is not bad input */
        return tool_engine_error(res == CROWD_ERR_OUT_OF_MEMORY ? TOOL_FAILED : TOOL_BAD_INPUT, w->engine, res, what);
    }
    crowd_rig *rig_handles = tool_calloc(rigs + 1, sizeof *rig_handles);
    crowd_instance *handles = tool_calloc((size_t)instances + 1, sizeof *handles);
    if (st == TOOL_OK && !(rig_handles && handles)) st = TOOL_FAILED;
    if (st == TOOL_OK) {
        const unsigned char *p = data + RESUME_FIXED;
        for (uint32_t r = 0; r < rigs; r++, p += 4) rig_handles[r].id = get32(p);
        for (uint32_t i = 0; i < instances; i++, p += 8) handles[i].id = get64(p);
        for (uint32_t r = 0; r < rigs && st == TOOL_OK; r++) {
            uint64_t d = 0;
            if (crowd_rig_settings_digest(w->engine, rig_handles[r], &d) != CROWD_OK || d != digests[r])
                st = tool_error(TOOL_BAD_INPUT,
                                "%s: rig %u (\"%s\") of the engine snapshot is not the scene's: its settings differ "
                                "(another scene's payload, or a corrupt file)",
                                path, r, s->rigs[r].name);
        }
        if (st == TOOL_OK) st = world_adopt(w, rig_handles, handles, path);
    }
    free(digests);
    free(rig_handles);
    free(handles);
    if (st == TOOL_OK) *out_frame = frame;
    return st;
}

int resume_load(world *w, const char *path, uint32_t *out_frame) {
    char *data;
    size_t size;
    int st = tool_read_file(path, "run snapshot", &data, &size);
    if (st == TOOL_OK) st = resume_load_bytes(w, path, (const unsigned char *)data, size, out_frame);
    free(data);
    return st;
}
