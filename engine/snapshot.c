/* Snapshots: the whole engine state as bytes (format in crowd.h, section 10). One serializer
 * serves crowd_snapshot_size (counting) and crowd_snapshot_save (writing). Loading builds the
 * state in a scratch engine through the same code that creates rigs, checks it whole, and
 * only then swaps it in: a bad blob leaves the engine as it was. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "serial.h"

#define SNAP_MAGIC "CROWDSNP"
#define SNAP_VERSION 6u
#define SNAP_OLDEST 2u /* version 2: the limbs settings had no outputs; 2 and 3: no arm_image_bend,
                          and tracked limbs rigs are refused (crowd.h, section 10); before 5: no
                          physics, lip sync, pose or expression controllers, no level of detail
                          (its settings and 3 columns); before 6: no finger joint limits (a
                          format 5 rig with fingers loads with joint_limits off, as it ran) */
#define SNAP_V4_CONTROLLERS 5u /* look, harmonic, blink, limbs, face */
#define SNAP_LOD 5u
#define LOD_COLUMNS 3u
#define SNAP_HEADER 32u /* magic 8, version 4, flags 4, payload size 8, checksum 8 */

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
static void write_rig_settings(crowdi_writer *w, const crowdi_rig *r) {
    crowdi_w_str(w, r->name);
    crowdi_w_u32(w, r->param_count);
    for (uint32_t p = 0; p < r->param_count; p++) {
        crowdi_w_str(w, r->param_ids[p]);
        crowdi_w_f32(w, r->params[p].min);
        crowdi_w_f32(w, r->params[p].max);
        crowdi_w_f32(w, r->param_default[p]);
        crowdi_w_u32(w, r->params[p].repeat);
    }
    uint32_t has = 0;
    for (int c = 0; c < CROWDI_CONTROLLER_COUNT; c++) has |= (uint32_t)r->has[c] << c;
    crowdi_w_u32(w, has);
    for (int c = 0; c < CROWDI_CONTROLLER_COUNT; c++)
        if (r->has[c]) crowdi_controllers[c]->write(w, r);
    crowdi_lod_write(w, r);
}

static void write_rig(crowdi_writer *w, const crowdi_rig *r) {
    write_rig_settings(w, r);
    crowdi_w_u32(w, r->count);
    crowdi_w_u32(w, r->running);
    crowdi_w_u32(w, r->column_count);
    for (uint32_t c = 0; c < r->column_count; c++) crowdi_w_words(w, r->columns[c], r->count);
    for (uint32_t row = 0; row < r->count; row++) crowdi_w_u64(w, r->handles[row].id);
}

static void write_payload(crowdi_writer *w, const crowd_engine *e) {
    crowdi_w_u64(w, e->seed);
    crowdi_w_u64(w, e->next_instance_id);
    crowdi_w_u32(w, e->tag);
    crowdi_w_u32(w, e->rig_count);
    for (uint32_t k = 0; k < e->rig_count; k++) write_rig(w, e->rigs[k]);
    crowdi_w_u32(w, e->slot_count);
    crowdi_w_u32(w, e->free_slot);
    for (uint32_t s = 0; s < e->slot_count; s++) {
        const crowdi_slot *sl = &e->slots[s];
        crowdi_w_u64(w, sl->id);
        crowdi_w_u32(w, sl->generation);
        crowdi_w_u32(w, sl->rig);
        crowdi_w_u32(w, sl->row);
        crowdi_w_u32(w, sl->next_free);
    }
}

crowd_result crowd_rig_settings_digest(const crowd_engine *e, crowd_rig rig, uint64_t *out_digest) {
    if (!e) return CROWD_ERR_NULL;
    const crowdi_rig *r = crowdi_rig_get(e, rig);
    CROWDI_CHECK(e, r, CROWD_ERR_HANDLE, "crowd_rig_settings_digest: rig is not a rig of this engine");
    CROWDI_CHECK(e, out_digest, CROWD_ERR_NULL, "crowd_rig_settings_digest: out_digest is NULL");
    crowdi_writer w = {NULL, 0, true, 0xcbf29ce484222325ull};
    write_rig_settings(&w, r);
    *out_digest = w.hash;
    return CROWD_OK;
}

crowd_result crowd_snapshot_size(const crowd_engine *e, size_t *out_size) {
    if (!e) return CROWD_ERR_NULL;
    CROWDI_CHECK(e, out_size, CROWD_ERR_NULL, "crowd_snapshot_size: out_size is NULL");
    crowdi_writer w = {NULL, 0, false, 0};
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
    crowdi_writer w = {(uint8_t *)buffer + SNAP_HEADER, 0, false, 0};
    write_payload(&w, e);
    crowdi_writer h = {buffer, 0, false, 0};
    crowdi_w_bytes(&h, SNAP_MAGIC, 8);
    crowdi_w_u32(&h, SNAP_VERSION);
    crowdi_w_u32(&h, 0);
    crowdi_w_u64(&h, w.n);
    crowdi_w_u64(&h, payload_checksum(w.p, w.n));
    if (out_written) *out_written = size;
    return CROWD_OK;
}

/* ---- loading ---- */
#define LOAD_FAIL(code, ...) do { res = crowdi_fail(e, code, "crowd_snapshot_load: " __VA_ARGS__); goto done; } while (0)
#define LOAD_CHECK(cond, ...) do { if (!(cond)) LOAD_FAIL(CROWD_ERR_BAD_SNAPSHOT, __VA_ARGS__); } while (0)
/* an allocation failure is a resource failure, never a corrupt blob */
#define LOAD_MEMORY(ok, ...) do { if (!(ok)) LOAD_FAIL(CROWD_ERR_OUT_OF_MEMORY, "out of memory for " __VA_ARGS__); } while (0)

/* A string from the blob as a NUL-terminated copy in scratch memory. */
static char *crowdi_r_str(crowdi_reader *r, crowd_engine *scratch) {
    uint32_t n = crowdi_r_u32(r);
    const uint8_t *b = crowdi_r_take(r, n);
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
static crowd_result read_rig(crowd_engine *e, crowd_engine *tmp, crowdi_reader *rd, uint32_t k, uint32_t version) {
    crowd_result res = CROWD_OK;
    /* scratch owned here, freed at done */
    char *name = NULL, **ids = NULL;
    crowd_parameter_desc *params = NULL;
    void *scratch[CROWDI_CONTROLLER_COUNT] = {0};
    uint32_t P = 0;

    name = crowdi_r_str(rd, tmp);
    LOAD_MEMORY(!rd->oom, "rigs[%u].name", k);
    P = crowdi_r_u32(rd);
    LOAD_CHECK(!rd->bad && P <= (1u << 16) && (size_t)P * 20 <= rd->n - rd->off, "rigs[%u]: parameter count %u is corrupt", k, P);
    ids = crowdi_alloc(tmp, sizeof *ids * (P ? P : 1));
    if (ids) memset(ids, 0, sizeof *ids * (P ? P : 1)); /* freed entry by entry at done */
    params = crowdi_alloc(tmp, sizeof *params * (P ? P : 1));
    LOAD_MEMORY(ids && params, "rigs[%u]: %u parameters", k, P);
    for (uint32_t p = 0; p < P; p++) {
        ids[p] = crowdi_r_str(rd, tmp);
        LOAD_MEMORY(!rd->oom, "rigs[%u].parameters[%u].id", k, p);
        float mn = crowdi_r_f32(rd);
        float mx = crowdi_r_f32(rd);
        float def = crowdi_r_f32(rd);
        uint32_t rep = crowdi_r_u32(rd);
        LOAD_CHECK(!rd->bad && rep <= 1, "rigs[%u].parameters[%u] is corrupt", k, p);
        params[p] = (crowd_parameter_desc){ids[p], mn, mx, def, rep == 1};
    }
    uint32_t has = crowdi_r_u32(rd);
    LOAD_CHECK(!rd->bad && has < (1u << (version < 5 ? SNAP_V4_CONTROLLERS : CROWDI_CONTROLLER_COUNT)),
               "rigs[%u]: controller flags are corrupt", k);
    crowd_rig_desc desc = {.name = name, .parameters = params, .parameter_count = P};
    const crowdi_loading ld = {k, P, (const char *const *)ids, version};
    for (int c = 0; c < CROWDI_CONTROLLER_COUNT; c++)
        if ((has >> c & 1) && (res = crowdi_controllers[c]->read(e, tmp, rd, &ld, &desc, &scratch[c])) != CROWD_OK) goto done;
    if (version >= SNAP_LOD) crowdi_lod_read(rd, &desc);
    LOAD_CHECK(!rd->bad && name, "rigs[%u] is truncated", k);
    crowd_rig rig;
    res = crowd_rig_create(tmp, &desc, &rig);
    if (res != CROWD_OK)
        LOAD_FAIL(res == CROWD_ERR_OUT_OF_MEMORY ? res : CROWD_ERR_BAD_SNAPSHOT, "rigs[%u]: %s", k, crowd_last_error(tmp));
done:
    crowdi_free(tmp, name);
    if (ids)
        for (uint32_t p = 0; p < P; p++) crowdi_free(tmp, ids[p]);
    crowdi_free(tmp, ids);
    crowdi_free(tmp, params);
    for (int c = 0; c < CROWDI_CONTROLLER_COUNT; c++) crowdi_free(tmp, scratch[c]);
    return res;
}

static int compare_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static bool finite_bits(uint32_t u) { return (u & 0x7f800000u) != 0x7f800000u; }

/* Reads a rig's rows and checks every value is one the tick may meet. */
static crowd_result read_rows(crowd_engine *e, crowd_engine *tmp, crowdi_reader *rd, uint32_t k, uint32_t version) {
    crowd_result res = CROWD_OK;
    crowdi_rig *r = tmp->rigs[k];
    uint32_t count = crowdi_r_u32(rd);
    uint32_t active = crowdi_r_u32(rd);
    uint32_t columns = crowdi_r_u32(rd);
    /* before level of detail the rows lack its columns, the rig's last: they keep their start */
    const uint32_t want = r->column_count - (version < SNAP_LOD ? LOD_COLUMNS : 0);
    LOAD_CHECK(!rd->bad && columns == want, "rigs[%u]: %u columns, the rig has %u", k, columns, want);
    LOAD_CHECK(count <= CROWDI_MAX_ROWS && active <= count, "rigs[%u]: row counts (%u running of %u) are corrupt", k, active, count);
    LOAD_CHECK((size_t)count * (4 * (size_t)columns + 8) <= rd->n - rd->off, "rigs[%u]: %u rows do not fit in the blob", k, count);
    if (count) {
        res = crowdi_rig_grow(tmp, r, count);
        if (res != CROWD_OK) LOAD_FAIL(res, "rigs[%u]: cannot hold %u rows", k, count);
    }
    for (uint32_t c = 0; c < columns; c++) crowdi_r_words(rd, r->columns[c], count);
    for (uint32_t c = columns; c < r->column_count; c++) /* the counter's phase: after the slots */
        for (uint32_t row = 0; row < count; row++) ((uint32_t *)(void *)r->columns[c])[row] = r->init_bits[c];
    for (uint32_t row = 0; row < count; row++) r->handles[row].id = crowdi_r_u64(rd);
    LOAD_CHECK(!rd->bad, "rigs[%u] rows are truncated", k);
    r->count = count;
    r->running = active;
    crowdi_rig_find_uniform(r); /* settings every row holds at their start value stay unread */
    /* outputs: no field rule covers them, finite is their rule */
    for (uint32_t c = r->col_out; c < r->col_out + r->param_count; c++) {
        const uint32_t *u = (const uint32_t *)(const void *)r->columns[c];
        for (uint32_t row = 0; row < count; row++)
            LOAD_CHECK(finite_bits(u[row]), "rigs[%u]: column %u row %u is not finite", k, c, row);
    }
    for (int c = 0; c < CROWDI_CONTROLLER_COUNT; c++)
        if (r->has[c] && crowdi_controllers[c]->check_rows && (res = crowdi_controllers[c]->check_rows(e, r, k)) != CROWD_OK)
            goto done;
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
    crowdi_reader hd = {data, size, 0, 0, 0};
    const uint8_t *magic = crowdi_r_take(&hd, 8);
    LOAD_CHECK(magic && memcmp(magic, SNAP_MAGIC, 8) == 0, "not a crowd snapshot (bad magic, or fewer than 8 bytes)");
    uint32_t version = crowdi_r_u32(&hd);
    uint32_t flags = crowdi_r_u32(&hd);
    uint64_t payload = crowdi_r_u64(&hd);
    uint64_t sum = crowdi_r_u64(&hd);
    LOAD_CHECK(!hd.bad, "truncated header (%zu bytes)", size);
    LOAD_CHECK(version >= SNAP_OLDEST && version <= SNAP_VERSION, "format version %u, this library reads versions %u to %u",
               version, SNAP_OLDEST, SNAP_VERSION);
    LOAD_CHECK(flags == 0, "unknown flags 0x%x (this library writes and reads 0)", flags);
    LOAD_CHECK(payload == size - SNAP_HEADER, "the header says %llu bytes of payload, the blob has %zu (truncated or oversized)",
               (unsigned long long)payload, size - SNAP_HEADER);
    const uint8_t *body = (const uint8_t *)data + SNAP_HEADER;
    LOAD_CHECK(payload_checksum(body, (size_t)payload) == sum, "checksum mismatch: the blob is corrupted");

    crowd_engine_desc desc = {.simd = e->simd, .allocator = e->core.allocator, .logger = {0}};
    res = crowd_engine_create(&desc, &tmp);
    if (res != CROWD_OK) LOAD_FAIL(res, "cannot make a scratch engine");
    crowdi_reader rd = {body, (size_t)payload, 0, 0, 0};
    tmp->seed = crowdi_r_u64(&rd);
    tmp->next_instance_id = crowdi_r_u64(&rd);
    /* the saved handles' tag: tmp keeps its own (released with it), e takes this one */
    uint32_t tag = crowdi_r_u32(&rd);
    uint32_t rigs = crowdi_r_u32(&rd);
    LOAD_CHECK(!rd.bad && tag && tag <= 0xffffu, "engine header is corrupt");
    LOAD_CHECK(rigs <= CROWDI_MAX_RIGS && rigs <= rd.n - rd.off, "rig count %u is corrupt", rigs);
    for (uint32_t k = 0; k < rigs; k++) {
        if ((res = read_rig(e, tmp, &rd, k, version)) != CROWD_OK) goto done;
        if ((res = read_rows(e, tmp, &rd, k, version)) != CROWD_OK) goto done;
    }
    uint32_t slots = crowdi_r_u32(&rd);
    uint32_t free_slot = crowdi_r_u32(&rd);
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
        sl->id = crowdi_r_u64(&rd);
        sl->generation = crowdi_r_u32(&rd);
        sl->rig = crowdi_r_u32(&rd);
        sl->row = crowdi_r_u32(&rd);
        sl->next_free = crowdi_r_u32(&rd);
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
    if (version < SNAP_LOD) /* each row's phase counter from its instance id, as when it was added */
        for (uint32_t k = 0; k < rigs; k++) {
            crowdi_rig *r = tmp->rigs[k];
            uint32_t *counter = (uint32_t *)(void *)r->columns[r->col_lod_counter];
            for (uint32_t row = 0; row < r->count; row++)
                counter[row] = crowdi_lod_phase(tmp->slots[(uint32_t)r->handles[row].id].id);
        }

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
