/* Snapshots: the whole engine state as bytes (format in crowd.h, section 10). One serializer
 * serves crowd_snapshot_size (counting) and crowd_snapshot_save (writing). Loading builds the
 * state in a scratch engine through the same code that creates rigs, checks it whole, and
 * only then swaps it in: a bad blob leaves the engine as it was. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define SNAP_MAGIC "CROWDSNP"
#define SNAP_VERSION 2u
#define SNAP_HEADER 32u /* magic 8, version 4, flags 4, payload size 8, checksum 8 */

/* ---- little-endian writer (counts only when p is NULL; with hashing, FNV-1a 64 of the
 * bytes into hash) ---- */
typedef struct { uint8_t *p; size_t n; bool hashing; uint64_t hash; } writer;

static void w_bytes(writer *w, const void *src, size_t n) {
    if (w->p && n) memcpy(w->p + w->n, src, n);
    if (w->hashing)
        for (size_t k = 0; k < n; k++) w->hash = (w->hash ^ ((const uint8_t *)src)[k]) * 0x100000001b3ull;
    w->n += n;
}
static void w_u32(writer *w, uint32_t v) {
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    w_bytes(w, b, 4);
}
static void w_u64(writer *w, uint64_t v) {
    w_u32(w, (uint32_t)v);
    w_u32(w, (uint32_t)(v >> 32));
}
static void w_f32(writer *w, float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    w_u32(w, u);
}
static void w_str(writer *w, const char *s) {
    uint32_t n = (uint32_t)strlen(s);
    w_u32(w, n);
    w_bytes(w, s, n);
}
/* n 4-byte values, little-endian */
static void w_words(writer *w, const void *src, size_t n) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    w_bytes(w, src, n * 4);
#else
    const uint32_t *u = src;
    for (size_t k = 0; k < n; k++) w_u32(w, u[k]);
#endif
}

/* ---- reader: any read past the end sets bad and yields zeros ---- */
typedef struct { const uint8_t *p; size_t n, off; int bad, oom; } reader;

static const uint8_t *r_take(reader *r, size_t n) {
    if (r->bad || n > r->n - r->off) {
        r->bad = 1;
        return NULL;
    }
    const uint8_t *at = r->p + r->off;
    r->off += n;
    return at;
}
static uint32_t r_u32(reader *r) {
    const uint8_t *b = r_take(r, 4);
    return b ? (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24 : 0;
}
static uint64_t r_u64(reader *r) {
    uint64_t lo = r_u32(r);
    uint64_t hi = r_u32(r);
    return lo | hi << 32;
}
static float r_f32(reader *r) {
    uint32_t u = r_u32(r);
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static void r_words(reader *r, void *dst, size_t n) {
    const uint8_t *b = r_take(r, n * 4);
    if (!b || n == 0) return;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(dst, b, n * 4);
#else
    uint32_t *u = dst;
    for (size_t k = 0; k < n; k++)
        u[k] = (uint32_t)b[4 * k] | (uint32_t)b[4 * k + 1] << 8 | (uint32_t)b[4 * k + 2] << 16 | (uint32_t)b[4 * k + 3] << 24;
#endif
}

/* The payload checksum: FNV-1a 64 over little-endian 64-bit words in four interleaved lanes
 * (word i goes to lane i mod 4; a last partial word is zero-padded), the lanes then folded in
 * order by the same step. Four independent multiply chains keep it near memory speed. */
#define FNV_BASIS 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

static uint64_t load_le64(const uint8_t *p) {
    uint64_t w = 0;
    for (int k = 7; k >= 0; k--) w = w << 8 | p[k];
    return w;
}

static uint64_t payload_checksum(const uint8_t *p, size_t n) {
    uint64_t h[4] = {FNV_BASIS, FNV_BASIS ^ 1, FNV_BASIS ^ 2, FNV_BASIS ^ 3};
    size_t words = n / 8, i = 0;
    for (; i + 4 <= words; i += 4)
        for (int k = 0; k < 4; k++) h[k] = (h[k] ^ load_le64(p + 8 * (i + (size_t)k))) * FNV_PRIME;
    for (; i < words; i++) h[i % 4] = (h[i % 4] ^ load_le64(p + 8 * i)) * FNV_PRIME;
    if (n % 8) {
        uint8_t last[8] = {0};
        memcpy(last, p + 8 * words, n % 8);
        h[words % 4] = (h[words % 4] ^ load_le64(last)) * FNV_PRIME;
    }
    uint64_t r = FNV_BASIS;
    for (int k = 0; k < 4; k++) r = (r ^ h[k]) * FNV_PRIME;
    return r;
}

/* ---- the payload ---- */
/* A rig's settings: everything crowd_rig_create took from the desc. */
static void write_rig_settings(writer *w, const crowdi_rig *r) {
    w_str(w, r->name);
    w_u32(w, r->param_count);
    for (uint32_t p = 0; p < r->param_count; p++) {
        w_str(w, r->param_ids[p]);
        w_f32(w, r->params[p].min);
        w_f32(w, r->params[p].max);
        w_f32(w, r->param_default[p]);
        w_u32(w, r->params[p].repeat);
    }
    w_u32(w, (uint32_t)r->has_look | (uint32_t)r->has_harm << 1 | (uint32_t)r->has_blink << 2 | (uint32_t)r->has_limbs << 3 |
                 (uint32_t)r->has_face << 4);
    if (r->has_look) {
        w_u32(w, r->look_blend);
        w_f32(w, r->look_damping);
        w_f32(w, r->look_max_speed);
        w_u32(w, r->look_count);
        for (uint32_t k = 0; k < r->look_count; k++) {
            w_u32(w, r->look[k].param);
            w_u32(w, r->look[k].axis);
            w_f32(w, r->look[k].factor);
        }
    }
    if (r->has_harm) {
        w_u32(w, r->harm_blend);
        w_u32(w, r->channel_count);
        for (uint32_t c = 0; c < r->channel_count; c++) w_f32(w, r->timescales[c]);
        w_u32(w, r->harm_count);
        for (uint32_t k = 0; k < r->harm_count; k++) {
            const crowdi_harm_entry *e = &r->harm[k];
            w_u32(w, e->param);
            w_u32(w, e->channel);
            w_u32(w, e->direction);
            w_f32(w, e->origin);
            w_f32(w, e->duration);
            w_f32(w, r->harm_range[k]);
        }
    }
    if (r->has_blink) {
        w_u32(w, r->blink_model);
        w_u32(w, r->blink_blend);
        w_f32(w, r->blink_mean);
        w_f32(w, r->blink_max_deviation);
        w_f32(w, r->blink_timescale);
        w_u32(w, r->blink_count);
        for (uint32_t k = 0; k < r->blink_count; k++) w_u32(w, r->blink_param[k]);
    }
    if (r->has_limbs) {
        const crowd_limbs_desc *d = &r->limbs_desc;
        w_u32(w, (uint32_t)d->frame);
        w_u32(w, (uint32_t)d->axis_fix);
        w_u32(w, (uint32_t)d->fallback);
        for (int l = 0; l < CROWD_LIMB_COUNT; l++) w_f32(w, d->fallback_sign[l]);
        w_f32(w, d->visibility_threshold);
        w_f32(w, d->hold_half_life);
        w_f32(w, d->reacquire_half_life);
        w_f32(w, d->bend_min);
        w_f32(w, d->bend_full);
        w_u32(w, d->smoothing ? 1u : 0u);
        w_f32(w, d->min_cutoff);
        w_f32(w, d->beta);
        w_f32(w, d->d_cutoff);
        if (d->axis_fix == CROWD_AXIS_FIX_CUSTOM) w_words(w, d->custom_fix, 4 * CROWD_BONE_COUNT);
        if (d->axis_fix == CROWD_AXIS_FIX_CALIBRATED) {
            w_words(w, d->bind_landmarks, 4 * CROWDI_LANDMARKS);
            w_words(w, d->bind_rotations, 4 * CROWD_BONE_COUNT);
        }
    }
    if (r->has_face) {
        const crowdi_face *f = &r->face;
        w_u32(w, f->blend);
        w_f32(w, f->threshold);
        w_f32(w, f->half_life);
        w_u64(w, f->smoothed_mask);
        w_f32(w, f->min_cutoff);
        w_f32(w, f->beta);
        w_f32(w, f->d_cutoff);
        w_u32(w, f->mapping_count);
        for (uint32_t k = 0; k < f->mapping_count; k++) {
            w_u32(w, f->mapping[k].source);
            w_u32(w, f->mapping[k].param);
            w_f32(w, f->mapping[k].gain);
            w_f32(w, f->mapping[k].offset);
            w_u32(w, f->mapping[k].curve);
        }
    }
}

static void write_rig(writer *w, const crowdi_rig *r) {
    write_rig_settings(w, r);
    w_u32(w, r->count);
    w_u32(w, r->active);
    w_u32(w, r->column_count);
    for (uint32_t c = 0; c < r->column_count; c++) w_words(w, r->columns[c], r->count);
    for (uint32_t row = 0; row < r->count; row++) w_u64(w, r->handles[row].id);
}

static void write_payload(writer *w, const crowd_engine *e) {
    w_u64(w, e->seed);
    w_u64(w, e->next_instance_id);
    w_u32(w, e->tag);
    w_u32(w, e->rig_count);
    for (uint32_t k = 0; k < e->rig_count; k++) write_rig(w, e->rigs[k]);
    w_u32(w, e->slot_count);
    w_u32(w, e->free_slot);
    for (uint32_t s = 0; s < e->slot_count; s++) {
        const crowdi_slot *sl = &e->slots[s];
        w_u64(w, sl->id);
        w_u32(w, sl->generation);
        w_u32(w, sl->rig);
        w_u32(w, sl->row);
        w_u32(w, sl->next_free);
    }
}

crowd_result crowd_rig_settings_digest(const crowd_engine *e, crowd_rig rig, uint64_t *out_digest) {
    if (!e) return CROWD_ERR_NULL;
    const crowdi_rig *r = crowdi_rig_get(e, rig);
    CROWDI_CHECK(e, r, CROWD_ERR_HANDLE, "crowd_rig_settings_digest: rig is not a rig of this engine");
    CROWDI_CHECK(e, out_digest, CROWD_ERR_NULL, "crowd_rig_settings_digest: out_digest is NULL");
    writer w = {NULL, 0, true, 0xcbf29ce484222325ull};
    write_rig_settings(&w, r);
    *out_digest = w.hash;
    return CROWD_OK;
}

crowd_result crowd_snapshot_size(const crowd_engine *e, size_t *out_size) {
    if (!e) return CROWD_ERR_NULL;
    CROWDI_CHECK(e, out_size, CROWD_ERR_NULL, "crowd_snapshot_size: out_size is NULL");
    writer w = {NULL, 0, false, 0};
    write_payload(&w, e);
    *out_size = SNAP_HEADER + w.n;
    return CROWD_OK;
}

crowd_result crowd_snapshot_save(const crowd_engine *e, void *buffer, size_t capacity, size_t *out_written) {
    if (!e) return CROWD_ERR_NULL;
    const char *fn = "crowd_snapshot_save";
    CROWDI_CHECK(e, buffer, CROWD_ERR_NULL, "%s: buffer is NULL", fn);
    size_t size;
    crowd_snapshot_size(e, &size);
    CROWDI_CHECK(e, capacity >= size, CROWD_ERR_CAPACITY, "%s: capacity (%zu bytes) < snapshot size (%zu bytes)", fn,
                 capacity, size);
    writer w = {(uint8_t *)buffer + SNAP_HEADER, 0, false, 0};
    write_payload(&w, e);
    writer h = {buffer, 0, false, 0};
    w_bytes(&h, SNAP_MAGIC, 8);
    w_u32(&h, SNAP_VERSION);
    w_u32(&h, 0);
    w_u64(&h, w.n);
    w_u64(&h, payload_checksum(w.p, w.n));
    if (out_written) *out_written = size;
    return CROWD_OK;
}

/* ---- loading ---- */
#define LOAD_FAIL(code, ...) do { res = crowdi_fail(e, code, "crowd_snapshot_load: " __VA_ARGS__); goto done; } while (0)
#define LOAD_CHECK(cond, ...) do { if (!(cond)) LOAD_FAIL(CROWD_ERR_BAD_SNAPSHOT, __VA_ARGS__); } while (0)
/* an allocation failure is a resource failure, never a corrupt blob */
#define LOAD_MEMORY(ok, ...) do { if (!(ok)) LOAD_FAIL(CROWD_ERR_OUT_OF_MEMORY, "out of memory for " __VA_ARGS__); } while (0)

/* A string from the blob as a NUL-terminated copy in scratch memory. */
static char *r_str(reader *r, crowd_engine *scratch) {
    uint32_t n = r_u32(r);
    const uint8_t *b = r_take(r, n);
    if (!b) return NULL;
    char *s = crowdi_alloc(scratch, (size_t)n + 1);
    if (!s) {
        r->bad = r->oom = 1;
        return NULL;
    }
    memcpy(s, b, n);
    s[n] = 0;
    return s;
}

/* Reads one rig's settings into a desc and creates it in tmp (validation included). */
static crowd_result read_rig(crowd_engine *e, crowd_engine *tmp, reader *rd, uint32_t k) {
    crowd_result res = CROWD_OK;
    /* scratch owned here, freed at done */
    char *name = NULL, **ids = NULL;
    crowd_parameter_desc *params = NULL;
    crowd_look_parameter_desc *look_params = NULL;
    crowd_harmonic_parameter_desc *harm_params = NULL;
    const char **blink_ids = NULL;
    crowd_face_mapping_desc *face_mapping = NULL;
    float *bind_lm = NULL;
    crowd_quat *quats = NULL;
    uint32_t P = 0;

    name = r_str(rd, tmp);
    LOAD_MEMORY(!rd->oom, "rigs[%u].name", k);
    P = r_u32(rd);
    LOAD_CHECK(!rd->bad && P <= (1u << 16) && (size_t)P * 20 <= rd->n - rd->off, "rigs[%u]: parameter count %u is corrupt", k, P);
    ids = crowdi_alloc(tmp, sizeof *ids * (P ? P : 1));
    if (ids) memset(ids, 0, sizeof *ids * (P ? P : 1)); /* freed entry by entry at done */
    params = crowdi_alloc(tmp, sizeof *params * (P ? P : 1));
    LOAD_MEMORY(ids && params, "rigs[%u]: %u parameters", k, P);
    for (uint32_t p = 0; p < P; p++) {
        ids[p] = r_str(rd, tmp);
        LOAD_MEMORY(!rd->oom, "rigs[%u].parameters[%u].id", k, p);
        float mn = r_f32(rd);
        float mx = r_f32(rd);
        float def = r_f32(rd);
        uint32_t rep = r_u32(rd);
        LOAD_CHECK(!rd->bad && rep <= 1, "rigs[%u].parameters[%u] is corrupt", k, p);
        params[p] = (crowd_parameter_desc){ids[p], mn, mx, def, rep == 1};
    }
    uint32_t has = r_u32(rd);
    LOAD_CHECK(!rd->bad && has < 32, "rigs[%u]: controller flags are corrupt", k);
    crowd_look_desc look;
    crowd_harmonic_desc harm;
    crowd_blink_desc blink;
    crowd_limbs_desc limbs;
    crowd_face_desc face;
    float timescales[CROWD_MAX_CHANNELS];
    crowd_rig_desc desc = {.name = name, .parameters = params, .parameter_count = P};
    /* entry counts are bounded by the bytes left before anything is allocated for them */
#define ENTRY_INDEX(v) ((v) < P ? ids[(v)] : "")
    if (has & 1) {
        /* one read per statement: the order of evaluation inside an initializer is unspecified */
        look = (crowd_look_desc){0};
        look.blend = (crowd_blend)r_u32(rd);
        look.damping = r_f32(rd);
        look.max_speed = r_f32(rd);
        uint32_t n = r_u32(rd);
        LOAD_CHECK(!rd->bad && (size_t)n * 12 <= rd->n - rd->off, "rigs[%u].look is corrupt", k);
        look_params = crowdi_alloc(tmp, sizeof *look_params * (n ? n : 1));
        LOAD_MEMORY(look_params, "rigs[%u].look", k);
        for (uint32_t j = 0; j < n; j++) {
            uint32_t p = r_u32(rd);
            uint32_t axis = r_u32(rd);
            float factor = r_f32(rd);
            look_params[j] = (crowd_look_parameter_desc){ENTRY_INDEX(p), (crowd_axis)axis, factor};
        }
        look.parameters = look_params;
        look.parameter_count = n;
        desc.look = &look;
    }
    if (has & 2) {
        harm = (crowd_harmonic_desc){.blend = (crowd_blend)r_u32(rd)};
        uint32_t channels = r_u32(rd);
        LOAD_CHECK(!rd->bad && channels >= 1 && channels <= CROWD_MAX_CHANNELS, "rigs[%u].harmonic channels are corrupt", k);
        for (uint32_t c = 0; c < channels; c++) timescales[c] = r_f32(rd);
        uint32_t n = r_u32(rd);
        LOAD_CHECK(!rd->bad && (size_t)n * 24 <= rd->n - rd->off, "rigs[%u].harmonic is corrupt", k);
        harm_params = crowdi_alloc(tmp, sizeof *harm_params * (n ? n : 1));
        LOAD_MEMORY(harm_params, "rigs[%u].harmonic", k);
        for (uint32_t j = 0; j < n; j++) {
            uint32_t p = r_u32(rd);
            uint32_t ch = r_u32(rd);
            uint32_t dir = r_u32(rd);
            float origin = r_f32(rd);
            float duration = r_f32(rd);
            float range = r_f32(rd);
            harm_params[j] = (crowd_harmonic_parameter_desc){ENTRY_INDEX(p), ch, (crowd_direction)dir, origin, range, duration};
        }
        harm.parameters = harm_params;
        harm.parameter_count = n;
        harm.channel_timescales = timescales;
        harm.channel_count = channels;
        desc.harmonic = &harm;
    }
    if (has & 4) {
        blink = (crowd_blink_desc){0};
        blink.model = (crowd_blink_model)r_u32(rd);
        blink.blend = (crowd_blend)r_u32(rd);
        blink.mean = r_f32(rd);
        blink.max_deviation = r_f32(rd);
        blink.timescale = r_f32(rd);
        uint32_t n = r_u32(rd);
        LOAD_CHECK(!rd->bad && (size_t)n * 4 <= rd->n - rd->off, "rigs[%u].blink is corrupt", k);
        blink_ids = crowdi_alloc(tmp, sizeof *blink_ids * (n ? n : 1));
        LOAD_MEMORY(blink_ids, "rigs[%u].blink", k);
        for (uint32_t j = 0; j < n; j++) {
            uint32_t p = r_u32(rd);
            blink_ids[j] = ENTRY_INDEX(p);
        }
        blink.parameters = blink_ids;
        blink.parameter_count = n;
        desc.blink = &blink;
    }
    if (has & 8) {
        limbs = (crowd_limbs_desc){0};
        limbs.frame = (crowd_pose_frame)r_u32(rd);
        limbs.axis_fix = (crowd_axis_fix)r_u32(rd);
        limbs.fallback = (crowd_limb_fallback)r_u32(rd);
        for (int l = 0; l < CROWD_LIMB_COUNT; l++) limbs.fallback_sign[l] = r_f32(rd);
        limbs.visibility_threshold = r_f32(rd);
        limbs.hold_half_life = r_f32(rd);
        limbs.reacquire_half_life = r_f32(rd);
        limbs.bend_min = r_f32(rd);
        limbs.bend_full = r_f32(rd);
        limbs.smoothing = r_u32(rd) != 0;
        limbs.min_cutoff = r_f32(rd);
        limbs.beta = r_f32(rd);
        limbs.d_cutoff = r_f32(rd);
        quats = crowdi_alloc(tmp, sizeof *quats * CROWD_BONE_COUNT);
        bind_lm = crowdi_alloc(tmp, sizeof *bind_lm * 4 * CROWDI_LANDMARKS);
        LOAD_MEMORY(quats && bind_lm, "rigs[%u].limbs", k);
        if (limbs.axis_fix == CROWD_AXIS_FIX_CUSTOM) {
            r_words(rd, quats, 4 * CROWD_BONE_COUNT);
            limbs.custom_fix = quats;
        }
        if (limbs.axis_fix == CROWD_AXIS_FIX_CALIBRATED) {
            r_words(rd, bind_lm, 4 * CROWDI_LANDMARKS);
            r_words(rd, quats, 4 * CROWD_BONE_COUNT);
            limbs.bind_landmarks = bind_lm;
            limbs.bind_rotations = quats;
        }
        desc.limbs = &limbs;
    }
    if (has & 16) {
        face = (crowd_face_desc){0};
        face.blend = (crowd_blend)r_u32(rd);
        face.presence_threshold = r_f32(rd);
        face.handoff_half_life = r_f32(rd);
        face.smoothed_sources = r_u64(rd);
        face.min_cutoff = r_f32(rd);
        face.beta = r_f32(rd);
        face.d_cutoff = r_f32(rd);
        uint32_t n = r_u32(rd);
        LOAD_CHECK(!rd->bad && (size_t)n * 20 <= rd->n - rd->off, "rigs[%u].face is corrupt", k);
        face_mapping = crowdi_alloc(tmp, sizeof *face_mapping * (n ? n : 1));
        LOAD_MEMORY(face_mapping, "rigs[%u].face", k);
        for (uint32_t j = 0; j < n; j++) {
            uint32_t source = r_u32(rd);
            uint32_t p = r_u32(rd);
            float gain = r_f32(rd);
            float offset = r_f32(rd);
            uint32_t curve = r_u32(rd);
            face_mapping[j] = (crowd_face_mapping_desc){(crowd_face_source)source, ENTRY_INDEX(p), gain, offset,
                                                        (crowd_face_curve)curve};
        }
        face.mapping = face_mapping;
        face.mapping_count = n;
        desc.face = &face;
    }
#undef ENTRY_INDEX
    LOAD_CHECK(!rd->bad && name, "rigs[%u] is truncated", k);
    crowd_rig rig;
    res = crowd_rig_create(tmp, &desc, &rig);
    if (res != CROWD_OK)
        LOAD_FAIL(res == CROWD_ERR_OUT_OF_MEMORY ? res : CROWD_ERR_BAD_SNAPSHOT, "rigs[%u]: %s", k, crowd_last_error(tmp));
done:
    crowdi_free(tmp, name);
    if (ids)
        for (uint32_t p = 0; p < P; p++) crowdi_free(tmp, ids[p]);
    void *scratch[] = {ids, params, look_params, harm_params, (void *)blink_ids, bind_lm, quats, face_mapping};
    for (size_t j = 0; j < sizeof scratch / sizeof scratch[0]; j++) crowdi_free(tmp, scratch[j]);
    return res;
}

static int compare_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static bool finite_bits(uint32_t u) { return (u & 0x7f800000u) != 0x7f800000u; }

/* Reads a rig's rows and checks every value is one the tick may meet. */
static crowd_result read_rows(crowd_engine *e, crowd_engine *tmp, reader *rd, uint32_t k) {
    crowd_result res = CROWD_OK;
    crowdi_rig *r = tmp->rigs[k];
    uint32_t count = r_u32(rd);
    uint32_t active = r_u32(rd);
    uint32_t columns = r_u32(rd);
    LOAD_CHECK(!rd->bad && columns == r->column_count, "rigs[%u]: %u columns, the rig has %u", k, columns, r->column_count);
    LOAD_CHECK(count <= CROWDI_MAX_ROWS && active <= count, "rigs[%u]: row counts (%u running of %u) are corrupt", k, active, count);
    LOAD_CHECK((size_t)count * (4 * (size_t)columns + 8) <= rd->n - rd->off, "rigs[%u]: %u rows do not fit in the blob", k, count);
    if (count) {
        res = crowdi_rig_grow(tmp, r, count);
        if (res != CROWD_OK) LOAD_FAIL(res, "rigs[%u]: cannot hold %u rows", k, count);
    }
    for (uint32_t c = 0; c < columns; c++) r_words(rd, r->columns[c], count);
    for (uint32_t row = 0; row < count; row++) r->handles[row].id = r_u64(rd);
    LOAD_CHECK(!rd->bad, "rigs[%u] rows are truncated", k);
    r->count = count;
    r->active = active;
    /* columns no field rule covers (outputs, the limbs' sides, One Euro state): finite is
     * their rule */
    const bool limbs = r->has_limbs, side = limbs && crowdi_limbs_have_side(&r->limbs),
               track = limbs && crowdi_limbs_track(&r->limbs);
    const uint32_t spans[4][2] = {
        {r->col_face + CROWDI_FACE_COL_FILTER, r->has_face && r->face.smoothed_count ? 3u * r->face.smoothed_count + 1u : 0u},
        {r->col_out, r->param_count},
        {r->col_side, side ? 3u * CROWD_LIMB_COUNT : 0u},
        {r->col_filter, limbs && r->limbs.limb_smoothing ? 3u * 3u * CROWDI_LANDMARKS + 1u : 0u}};
    for (int sp = 0; sp < 4; sp++)
        for (uint32_t c = spans[sp][0]; c < spans[sp][0] + spans[sp][1]; c++) {
            const uint32_t *u = (const uint32_t *)(const void *)r->columns[c];
            for (uint32_t row = 0; row < count; row++)
                LOAD_CHECK(finite_bits(u[row]), "rigs[%u]: column %u row %u is not finite", k, c, row);
        }
    /* the tick multiplies sides by unit vectors, eases from src and reads r: sides at most
     * unit (2 allows rounding), src unit, r -1 or in [0, 1] */
    for (uint32_t row = 0; side && row < count; row++)
        for (uint32_t l = 0; l < CROWD_LIMB_COUNT; l++) {
            const float *x = r->columns[r->col_side + 3 * l], *y = r->columns[r->col_side + 3 * l + 1],
                        *z = r->columns[r->col_side + 3 * l + 2];
            float n2 = x[row] * x[row] + y[row] * y[row] + z[row] * z[row];
            LOAD_CHECK(n2 <= 2.0f, "rigs[%u]: limb %u's side of row %u is longer than unit", k, l, row);
        }
    for (uint32_t row = 0; track && row < count; row++)
        for (uint32_t b = 0; b < CROWDI_BONES; b++) {
            float rb = r->columns[r->col_track + b][row];
            LOAD_CHECK(rb == -1.0f || (rb >= 0.0f && rb <= 1.0f), "rigs[%u]: bone %s's progress of row %u (%g) is corrupt", k,
                       crowd_bone_name((crowd_bone)b), row, (double)rb);
            float n2 = 0.0f;
            for (uint32_t c = 0; c < 4; c++) {
                float q = r->columns[r->col_src + 4 * b + c][row];
                LOAD_CHECK(crowdi_finite(q), "rigs[%u]: bone %s's ease source of row %u is not finite", k,
                           crowd_bone_name((crowd_bone)b), row);
                n2 += q * q;
            }
            LOAD_CHECK(n2 >= 1.0f - 1e-4f && n2 <= 1.0f + 1e-4f, "rigs[%u]: bone %s's ease source of row %u is not unit", k,
                       crowd_bone_name((crowd_bone)b), row);
        }
    /* every input and state column obeys what crowd_instances_set accepts (values[i] in the
     * message is row i) */
    res = crowdi_check_rows(tmp, "crowd_snapshot_load", r);
    if (res != CROWD_OK) LOAD_FAIL(CROWD_ERR_BAD_SNAPSHOT, "rigs[%u]: %s", k, crowd_last_error(tmp));
done:
    return res;
}

crowd_result crowd_snapshot_load(crowd_engine *e, const void *data, size_t size) {
    if (!e) return CROWD_ERR_NULL;
    crowd_result res = CROWD_OK;
    crowd_engine *tmp = NULL;
    CROWDI_CHECK(e, data, CROWD_ERR_NULL, "crowd_snapshot_load: data is NULL");
    reader hd = {data, size, 0, 0, 0};
    const uint8_t *magic = r_take(&hd, 8);
    LOAD_CHECK(magic && memcmp(magic, SNAP_MAGIC, 8) == 0, "not a crowd snapshot (bad magic, or fewer than 8 bytes)");
    uint32_t version = r_u32(&hd);
    uint32_t flags = r_u32(&hd);
    uint64_t payload = r_u64(&hd);
    uint64_t sum = r_u64(&hd);
    LOAD_CHECK(!hd.bad, "truncated header (%zu bytes)", size);
    LOAD_CHECK(version == SNAP_VERSION, "format version %u, this library reads version %u", version, SNAP_VERSION);
    LOAD_CHECK(flags == 0, "unknown flags 0x%x (this library writes and reads 0)", flags);
    LOAD_CHECK(payload == size - SNAP_HEADER, "the header says %llu bytes of payload, the blob has %zu (truncated or oversized)",
               (unsigned long long)payload, size - SNAP_HEADER);
    const uint8_t *body = (const uint8_t *)data + SNAP_HEADER;
    LOAD_CHECK(payload_checksum(body, (size_t)payload) == sum, "checksum mismatch: the blob is corrupted");

    crowd_engine_desc desc = {.simd = e->simd, .allocator = e->allocator, .logger = {0}};
    res = crowd_engine_create(&desc, &tmp);
    if (res != CROWD_OK) LOAD_FAIL(res, "cannot make a scratch engine");
    reader rd = {body, (size_t)payload, 0, 0, 0};
    tmp->seed = r_u64(&rd);
    tmp->next_instance_id = r_u64(&rd);
    /* the saved handles' tag: tmp keeps its own (released with it), e takes this one */
    uint32_t tag = r_u32(&rd);
    uint32_t rigs = r_u32(&rd);
    LOAD_CHECK(!rd.bad && tag && tag <= 0xffffu, "engine header is corrupt");
    LOAD_CHECK(rigs <= CROWDI_MAX_RIGS && rigs <= rd.n - rd.off, "rig count %u is corrupt", rigs);
    for (uint32_t k = 0; k < rigs; k++) {
        if ((res = read_rig(e, tmp, &rd, k)) != CROWD_OK) goto done;
        if ((res = read_rows(e, tmp, &rd, k)) != CROWD_OK) goto done;
    }
    uint32_t slots = r_u32(&rd);
    uint32_t free_slot = r_u32(&rd);
    LOAD_CHECK(!rd.bad && slots <= 0xffff0000u && (size_t)slots * 24 == rd.n - rd.off,
               "slot table (%u slots) does not match the bytes left", slots);
    if (slots) {
        tmp->slots = crowdi_alloc(tmp, sizeof *tmp->slots * slots);
        if (!tmp->slots) LOAD_FAIL(CROWD_ERR_OUT_OF_MEMORY, "out of memory for %u slots", slots);
    }
    tmp->slot_count = tmp->slot_capacity = slots;
    tmp->free_slot = free_slot;
    uint64_t live = 0, retired = 0;
    for (uint32_t s = 0; s < slots; s++) {
        crowdi_slot *sl = &tmp->slots[s];
        sl->id = r_u64(&rd);
        sl->generation = r_u32(&rd);
        sl->rig = r_u32(&rd);
        sl->row = r_u32(&rd);
        sl->next_free = r_u32(&rd);
        LOAD_CHECK(sl->generation <= 0xffffu && (sl->generation >= 1 || sl->rig == UINT32_MAX),
                   "slots[%u]: generation is corrupt", s);
        if (sl->rig == UINT32_MAX) {
            retired += sl->generation == 0;
            continue;
        }
        LOAD_CHECK(sl->rig < rigs && sl->row < tmp->rigs[sl->rig]->count && sl->id < tmp->next_instance_id,
                   "slots[%u] points outside the rigs", s);
        crowd_instance h = {((uint64_t)tag << 48) | ((uint64_t)sl->generation << 32) | s};
        LOAD_CHECK(tmp->rigs[sl->rig]->handles[sl->row].id == h.id, "slots[%u] and rig %u row %u disagree", s, sl->rig, sl->row);
        live++;
    }
    uint64_t rows = 0;
    for (uint32_t k = 0; k < rigs; k++) rows += tmp->rigs[k]->count;
    LOAD_CHECK(live == rows, "%llu live slots for %llu rows", (unsigned long long)live, (unsigned long long)rows);
    if (live > 1) { /* instance ids are never reused: no two live slots share one */
        uint64_t dup_id = 0;
        int dup = 0;
        if (tmp->next_instance_id <= 64 * (uint64_t)slots + 4096) { /* a bitmap of every id so far */
            size_t words = (size_t)(tmp->next_instance_id + 63) / 64;
            uint64_t *seen = crowdi_alloc(tmp, sizeof *seen * words);
            if (!seen) LOAD_FAIL(CROWD_ERR_OUT_OF_MEMORY, "out of memory");
            memset(seen, 0, sizeof *seen * words);
            for (uint32_t sl = 0; sl < slots && !dup; sl++) {
                if (tmp->slots[sl].rig == UINT32_MAX) continue;
                uint64_t id = tmp->slots[sl].id, bit = 1ull << (id % 64);
                dup = (seen[id / 64] & bit) != 0, dup_id = id;
                seen[id / 64] |= bit;
            }
            crowdi_free(tmp, seen);
        } else { /* ids spread thin after long churn: sort them */
            uint64_t *ids = crowdi_alloc(tmp, sizeof *ids * (size_t)live);
            if (!ids) LOAD_FAIL(CROWD_ERR_OUT_OF_MEMORY, "out of memory");
            size_t n = 0;
            for (uint32_t sl = 0; sl < slots; sl++)
                if (tmp->slots[sl].rig != UINT32_MAX) ids[n++] = tmp->slots[sl].id;
            qsort(ids, n, sizeof *ids, compare_u64);
            for (size_t j = 1; j < n && !dup; j++) dup = ids[j] == ids[j - 1], dup_id = ids[j];
            crowdi_free(tmp, ids);
        }
        LOAD_CHECK(!dup, "two live slots share instance id %llu", (unsigned long long)dup_id);
    }
    /* the free list visits exactly the free slots */
    uint64_t free_count = 0;
    for (uint32_t s = free_slot; s != UINT32_MAX; s = tmp->slots[s].next_free) {
        LOAD_CHECK(s < slots && tmp->slots[s].rig == UINT32_MAX && tmp->slots[s].generation && free_count < slots,
                   "the free slot list is corrupt");
        free_count++;
    }
    LOAD_CHECK(free_count + live + retired == slots, "the free slot list misses slots");

    /* all checked: swap the state in, and let tmp free the old one */
#define SWAP(field) do { __typeof__(e->field) t_ = e->field; e->field = tmp->field; tmp->field = t_; } while (0)
    SWAP(seed);
    SWAP(next_instance_id);
    SWAP(rigs);
    SWAP(rig_count);
    SWAP(rig_capacity);
    SWAP(slots);
    SWAP(slot_count);
    SWAP(slot_capacity);
    SWAP(free_slot);
#undef SWAP
    if (tag != e->tag) { /* the saved handles stay valid here: e shares the saving engine's tag */
        crowdi_tag_ref(tag);
        crowdi_tag_release(e->tag);
        e->tag = tag;
    }
done:
    crowd_engine_destroy(tmp);
    return res;
}
