/* Instances: handles, adding and removing rows, per-instance fields, outputs and the tick. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "internal.h"
#include "random.h"

#define GEN_MASK 0xffffu
#define MARKED 0xfffffffeu /* next_free of a live slot picked for removal */

/* ---- handles ---- */
static crowd_instance make_handle(const crowd_engine *e, uint32_t slot) {
    uint64_t gen = e->slots[slot].generation & GEN_MASK;
    return (crowd_instance){((uint64_t)e->tag << 48) | (gen << 32) | slot};
}

const crowdi_slot *crowdi_slot_get(const crowd_engine *e, crowd_instance h) {
    if ((h.id >> 48) != e->tag) return NULL;
    uint32_t slot = (uint32_t)h.id;
    if (slot >= e->slot_count) return NULL;
    const crowdi_slot *s = &e->slots[slot];
    if (s->rig == UINT32_MAX || (s->generation & GEN_MASK) != ((h.id >> 32) & GEN_MASK)) return NULL;
    return s;
}

static crowd_result check_handles(const crowd_engine *e, const char *fn, const crowd_instance *h,
                                  uint32_t count) {
    CROWDI_CHECK(e, count == 0 || h, CROWD_ERR_NULL, "%s: handles is NULL with count %u", fn, count);
    for (uint32_t i = 0; i < count; i++)
        CROWDI_CHECK(e, crowdi_slot_get(e, h[i]), CROWD_ERR_HANDLE,
                     "%s: handles[%u] (0x%llx) is zero, stale or from another engine", fn, i,
                     (unsigned long long)h[i].id);
    return CROWD_OK;
}

/* ---- moving rows (handles follow) ---- */
static void move_row(crowd_engine *e, crowdi_rig *r, uint32_t from, uint32_t to) {
    if (from == to) return;
    for (uint32_t c = 0; c < r->column_count; c++) r->columns[c][to] = r->columns[c][from];
    r->handles[to] = r->handles[from];
    e->slots[(uint32_t)r->handles[to].id].row = to;
}

static void swap_rows(crowd_engine *e, crowdi_rig *r, uint32_t a, uint32_t b) {
    if (a == b) return;
    for (uint32_t c = 0; c < r->column_count; c++) {
        float t = r->columns[c][a];
        r->columns[c][a] = r->columns[c][b];
        r->columns[c][b] = t;
    }
    crowd_instance t = r->handles[a];
    r->handles[a] = r->handles[b];
    r->handles[b] = t;
    e->slots[(uint32_t)r->handles[a].id].row = a;
    e->slots[(uint32_t)r->handles[b].id].row = b;
}

/* ---- adding ---- */
static crowd_result reserve_slots(crowd_engine *e, uint32_t extra) {
    uint64_t need = (uint64_t)e->slot_count + extra;
    if (need <= e->slot_capacity) return CROWD_OK;
    if (need > 0xffff0000u) return CROWD_ERR_CAPACITY;
    uint64_t cap = e->slot_capacity ? e->slot_capacity : 64;
    while (cap < need) cap *= 2;
    if (cap > 0xffff0000u) cap = 0xffff0000u;
    crowdi_slot *slots = crowdi_alloc(e, sizeof *slots * (size_t)cap);
    if (!slots) return CROWD_ERR_OUT_OF_MEMORY;
    if (e->slot_count) memcpy(slots, e->slots, sizeof *slots * e->slot_count);
    crowdi_free(e, e->slots);
    e->slots = slots;
    e->slot_capacity = (uint32_t)cap;
    return CROWD_OK;
}

/* The start state of a new row: column defaults, then what is drawn per instance, by the
 * controllers in tick order (the first blink wait, then one phase per harmonic entry). */
static void init_row(const crowd_engine *e, crowdi_rig *r, uint32_t row, uint64_t id,
                     const crowd_add_desc *d) {
    r->view.rkey[row] = crowdi_instance_key(e->seed, id);
    r->view.draws[row] = 0;
    static const int order[CROWDI_CONTROLLER_COUNT] = CROWDI_TICK_ORDER;
    for (int k = 0; k < CROWDI_CONTROLLER_COUNT; k++) {
        const crowdi_controller *c = crowdi_controllers[order[k]];
        if (r->has[order[k]] && c->init_row) c->init_row(e, r, row, d);
    }
}

crowd_result crowd_instances_add(crowd_engine *e, const crowd_add_desc *d, crowd_instance *out_handles) {
    if (!e) return CROWD_ERR_NULL;
    const char *fn = "crowd_instances_add";
    CROWDI_CHECK(e, d, CROWD_ERR_NULL, "%s: desc is NULL", fn);
    uint32_t rig_index = crowdi_rig_index(e, d->rig);
    CROWDI_CHECK(e, rig_index != UINT32_MAX, CROWD_ERR_HANDLE, "%s: desc->rig is not a rig of this engine", fn);
    CROWDI_CHECK(e, (unsigned)d->blink_start < CROWD_BLINK_START_COUNT, CROWD_ERR_BAD_ENUM,
                 "%s: desc->blink_start (%d) is not a crowd_blink_start", fn, (int)d->blink_start);
    CROWDI_CHECK(e, (unsigned)d->harmonic_phase < CROWD_HARMONIC_PHASE_COUNT, CROWD_ERR_BAD_ENUM,
                 "%s: desc->harmonic_phase (%d) is not a crowd_harmonic_phase", fn, (int)d->harmonic_phase);
    crowdi_rig *r = e->rigs[rig_index];
    CROWDI_CHECK(e, d->count <= CROWDI_MAX_ROWS - r->count, CROWD_ERR_CAPACITY,
                 "%s: desc->count (%u) would take rig \"%s\" past %u instances", fn, d->count, r->name, CROWDI_MAX_ROWS);
    if (d->count == 0) return CROWD_OK;

    crowd_result res = reserve_slots(e, d->count);
    CROWDI_CHECK(e, res == CROWD_OK, res, "%s: no room for %u more instance handles", fn, d->count);
    uint32_t need = r->count + d->count;
    if (need > r->capacity) {
        uint64_t cap = r->capacity * 2ull;
        if (cap < need) cap = need;
        if (cap > CROWDI_MAX_ROWS) cap = CROWDI_MAX_ROWS;
        res = crowdi_rig_grow(e, r, (uint32_t)cap);
        CROWDI_CHECK(e, res == CROWD_OK, res, "%s: cannot grow rig \"%s\" to %u instances", fn, r->name, need);
    }
    /* column defaults for all new rows at once, column by column */
    for (uint32_t c = 0; c < r->column_count; c++) {
        uint32_t *col = (uint32_t *)(void *)r->columns[c], bits = r->init_bits[c];
        for (uint32_t row = r->count; row < need; row++) col[row] = bits;
    }
    for (uint32_t k = 0; k < d->count; k++) {
        uint32_t slot;
        if (e->free_slot != UINT32_MAX) {
            slot = e->free_slot;
            e->free_slot = e->slots[slot].next_free;
        } else {
            slot = e->slot_count++;
            e->slots[slot].generation = 1;
        }
        uint32_t row = r->count++;
        crowdi_slot *s = &e->slots[slot];
        s->id = e->next_instance_id++;
        s->rig = rig_index;
        s->row = row;
        s->next_free = UINT32_MAX;
        r->handles[row] = make_handle(e, slot);
        init_row(e, r, row, s->id, d);
        swap_rows(e, r, r->active, row); /* new instances run: keep paused rows last */
        r->active++;
        if (out_handles) out_handles[k] = make_handle(e, slot);
    }
    return CROWD_OK;
}

crowd_result crowd_reserve(crowd_engine *e, crowd_rig rig, uint32_t capacity) {
    if (!e) return CROWD_ERR_NULL;
    crowdi_rig *r = crowdi_rig_get(e, rig);
    CROWDI_CHECK(e, r, CROWD_ERR_HANDLE, "crowd_reserve: rig is not a rig of this engine");
    CROWDI_CHECK(e, capacity <= CROWDI_MAX_ROWS, CROWD_ERR_CAPACITY, "crowd_reserve: capacity (%u) exceeds %u",
                 capacity, CROWDI_MAX_ROWS);
    crowd_result res = crowdi_rig_grow(e, r, capacity);
    CROWDI_CHECK(e, res == CROWD_OK, res, "crowd_reserve: cannot reserve %u instances", capacity);
    return CROWD_OK;
}

crowd_result crowd_rig_bytes_per_instance(const crowd_engine *e, crowd_rig rig, size_t *out_bytes) {
    if (!e) return CROWD_ERR_NULL;
    const crowdi_rig *r = crowdi_rig_get(e, rig);
    CROWDI_CHECK(e, r, CROWD_ERR_HANDLE, "crowd_rig_bytes_per_instance: rig is not a rig of this engine");
    CROWDI_CHECK(e, out_bytes, CROWD_ERR_NULL, "crowd_rig_bytes_per_instance: out_bytes is NULL");
    *out_bytes = (size_t)r->column_count * 4 + sizeof(crowd_instance) + sizeof(crowdi_slot);
    return CROWD_OK;
}

/* ---- removing ---- */
/* A slot whose generation would wrap is retired (generation 0, never on the free list): a
 * handle names one instance for the engine's whole life. */
static void release_slot(crowd_engine *e, uint32_t slot) {
    crowdi_slot *s = &e->slots[slot];
    s->rig = UINT32_MAX;
    if (s->generation >= GEN_MASK) {
        s->generation = 0;
        s->next_free = UINT32_MAX;
        return;
    }
    s->generation++;
    s->next_free = e->free_slot;
    e->free_slot = slot;
}

crowd_result crowd_instances_remove(crowd_engine *e, const crowd_instance *h, uint32_t count) {
    if (!e) return CROWD_ERR_NULL;
    const char *fn = "crowd_instances_remove";
    crowd_result res = check_handles(e, fn, h, count);
    if (res != CROWD_OK) return res;
    for (uint32_t i = 0; i < count; i++) {
        crowdi_slot *s = &e->slots[(uint32_t)h[i].id];
        if (s->next_free == MARKED) {
            for (uint32_t j = 0; j < i; j++) e->slots[(uint32_t)h[j].id].next_free = UINT32_MAX;
            return crowdi_fail(e, CROWD_ERR_DUPLICATE_ID, "%s: handles[%u] repeats an earlier handle", fn, i);
        }
        s->next_free = MARKED;
    }
    for (uint32_t i = 0; i < count; i++) {
        uint32_t slot = (uint32_t)h[i].id;
        crowdi_rig *r = e->rigs[e->slots[slot].rig];
        uint32_t row = e->slots[slot].row;
        if (row < r->active) { /* fill from the last running row, then that from the last row */
            move_row(e, r, r->active - 1, row);
            move_row(e, r, r->count - 1, r->active - 1);
            r->active--;
        } else {
            move_row(e, r, r->count - 1, row);
        }
        r->count--;
        release_slot(e, slot);
    }
    return CROWD_OK;
}

crowd_result crowd_instances_pause(crowd_engine *e, const crowd_instance *h, uint32_t count, bool paused) {
    if (!e) return CROWD_ERR_NULL;
    crowd_result res = check_handles(e, "crowd_instances_pause", h, count);
    if (res != CROWD_OK) return res;
    for (uint32_t i = 0; i < count; i++) {
        const crowdi_slot *s = crowdi_slot_get(e, h[i]);
        crowdi_rig *r = e->rigs[s->rig];
        uint32_t row = s->row;
        if (paused && row < r->active) swap_rows(e, r, row, --r->active);
        else if (!paused && row >= r->active) swap_rows(e, r, row, r->active++);
    }
    return CROWD_OK;
}

crowd_result crowd_instance_paused(const crowd_engine *e, crowd_instance h, bool *out_paused) {
    if (!e) return CROWD_ERR_NULL;
    const crowdi_slot *s = crowdi_slot_get(e, h);
    CROWDI_CHECK(e, s, CROWD_ERR_HANDLE, "crowd_instance_paused: instance is zero, stale or from another engine");
    CROWDI_CHECK(e, out_paused, CROWD_ERR_NULL, "crowd_instance_paused: out_paused is NULL");
    *out_paused = s->row >= e->rigs[s->rig]->active;
    return CROWD_OK;
}

uint32_t crowd_rig_running_count(const crowd_engine *e, crowd_rig rig) {
    const crowdi_rig *r = crowdi_rig_get(e, rig);
    return r ? r->active : 0;
}

crowd_result crowd_instance_info(const crowd_engine *e, crowd_instance h, uint64_t *out_id,
                                 crowd_rig *out_rig, uint32_t *out_row) {
    if (!e) return CROWD_ERR_NULL;
    const crowdi_slot *s = crowdi_slot_get(e, h);
    CROWDI_CHECK(e, s, CROWD_ERR_HANDLE, "crowd_instance_info: instance (0x%llx) is zero, stale or from another engine",
                 (unsigned long long)h.id);
    if (out_id) *out_id = s->id;
    if (out_rig) *out_rig = crowdi_rig_handle(e, s->rig);
    if (out_row) *out_row = s->row;
    return CROWD_OK;
}

crowd_result crowd_instance_random(crowd_engine *e, crowd_instance h, uint32_t count, float *out) {
    if (!e) return CROWD_ERR_NULL;
    const crowdi_slot *s = crowdi_slot_get(e, h);
    CROWDI_CHECK(e, s, CROWD_ERR_HANDLE, "crowd_instance_random: instance is zero, stale or from another engine");
    CROWDI_CHECK(e, count == 0 || out, CROWD_ERR_NULL, "crowd_instance_random: out_values is NULL");
    crowdi_rig *r = e->rigs[s->rig];
    uint32_t *host_draws = (uint32_t *)(void *)r->columns[r->col_host_draws];
    uint32_t key = crowdi_host_key(r->view.rkey[s->row]);
    for (uint32_t k = 0; k < count; k++) out[k] = crowdi_draw(key, host_draws[s->row]++);
    return CROWD_OK;
}

/* ---- fields ---- */
static const struct {
    const char *name;
    uint32_t width;
    bool writable;
} field_info[CROWD_FIELD_COUNT] = {
    [CROWD_FIELD_BASE] = {"base", 1, true},
    [CROWD_FIELD_LOOK_TARGET] = {"look_target", 3, true},
    [CROWD_FIELD_LOOK_ACTIVE] = {"look_active", 1, true},
    [CROWD_FIELD_LOOK_CENTER] = {"look_center", 3, true},
    [CROWD_FIELD_LOOK_DAMPING] = {"look_damping", 1, true},
    [CROWD_FIELD_LOOK_WEIGHT] = {"look_weight", 1, true},
    [CROWD_FIELD_HARMONIC_WEIGHT] = {"harmonic_weight", 1, true},
    [CROWD_FIELD_BLINK_WEIGHT] = {"blink_weight", 1, true},
    [CROWD_FIELD_BLINK_MANUAL] = {"blink_manual", 1, true},
    [CROWD_FIELD_HARMONIC_PHASE] = {"harmonic_phase", 1, true},
    [CROWD_FIELD_HARMONIC_RANGE] = {"harmonic_range", 1, true},
    [CROWD_FIELD_LOOK_POSITION] = {"look_position", 3, true},
    [CROWD_FIELD_LOOK_VELOCITY] = {"look_velocity", 3, true},
    [CROWD_FIELD_BLINK_OPENING] = {"blink_opening", 1, true},
    [CROWD_FIELD_BLINK_PHASE] = {"blink_phase", 1, true},
    [CROWD_FIELD_BLINK_CLOCK] = {"blink_clock", 1, true},
    [CROWD_FIELD_BLINK_LAST] = {"blink_last", 1, true},
    [CROWD_FIELD_POSE] = {"pose", 4 * CROWD_LANDMARK_COUNT, true},
    [CROWD_FIELD_ROOT] = {"root", 4, true},
    [CROWD_FIELD_OUTPUT] = {"output", 1, false},
    [CROWD_FIELD_BONE_WORLD] = {"bone_world", 4, false},
    [CROWD_FIELD_BONE_LOCAL] = {"bone_local", 4, false},
};

uint32_t crowd_field_width(crowd_field f) { return (unsigned)f < CROWD_FIELD_COUNT ? field_info[f].width : 0; }
const char *crowd_field_name(crowd_field f) { return (unsigned)f < CROWD_FIELD_COUNT ? field_info[f].name : NULL; }

/* The column of component `comp` of the field, after check_field() said it exists. */
static float *field_column(const crowdi_rig *r, crowd_field f, uint32_t index, uint32_t comp) {
    float *const *look = r->view.look_col, *const *blink = r->view.blink_col;
    switch (f) {
    case CROWD_FIELD_BASE: return r->columns[r->col_base + index];
    case CROWD_FIELD_OUTPUT: return r->columns[r->col_out + index];
    case CROWD_FIELD_LOOK_TARGET: return look[CROWDI_LOOK_TARGET_X + comp];
    case CROWD_FIELD_LOOK_ACTIVE: return look[CROWDI_LOOK_ACTIVE];
    case CROWD_FIELD_LOOK_CENTER: return look[CROWDI_LOOK_CENTER_X + comp];
    case CROWD_FIELD_LOOK_DAMPING: return look[CROWDI_LOOK_DAMPING];
    case CROWD_FIELD_LOOK_WEIGHT: return look[CROWDI_LOOK_WEIGHT];
    case CROWD_FIELD_LOOK_POSITION: return look[CROWDI_LOOK_POS_X + comp];
    case CROWD_FIELD_LOOK_VELOCITY: return look[CROWDI_LOOK_VEL_X + comp];
    case CROWD_FIELD_HARMONIC_WEIGHT: return r->view.harm_weight;
    case CROWD_FIELD_HARMONIC_PHASE: return r->harm_T_ptrs[index];
    case CROWD_FIELD_HARMONIC_RANGE: return r->harm_NR_ptrs[index];
    case CROWD_FIELD_BLINK_WEIGHT: return blink[CROWDI_BLINK_WEIGHT];
    case CROWD_FIELD_BLINK_MANUAL: return blink[CROWDI_BLINK_MANUAL];
    case CROWD_FIELD_BLINK_OPENING: return blink[CROWDI_BLINK_OPENING];
    case CROWD_FIELD_BLINK_PHASE: return blink[CROWDI_BLINK_PHASE];
    case CROWD_FIELD_BLINK_CLOCK: return blink[CROWDI_BLINK_CLOCK];
    case CROWD_FIELD_BLINK_LAST: return blink[CROWDI_BLINK_LAST];
    case CROWD_FIELD_POSE: return r->columns[r->col_pose + comp];
    case CROWD_FIELD_ROOT: return r->columns[r->col_root + comp];
    case CROWD_FIELD_BONE_WORLD: return r->columns[r->col_world + 4 * index + comp];
    case CROWD_FIELD_BONE_LOCAL: return r->columns[r->col_local + 4 * index + comp];
    default: return NULL;
    }
}

/* Does the field exist for this rig and index? */
static crowd_result check_field(const crowd_engine *e, const char *fn, const crowdi_rig *r,
                                crowd_field f, uint32_t index) {
    switch (f) {
    case CROWD_FIELD_BASE:
    case CROWD_FIELD_OUTPUT:
        CROWDI_CHECK(e, index < r->param_count, CROWD_ERR_RANGE, "%s: index (%u) is not a parameter of rig \"%s\" (%u parameters)",
                     fn, index, r->name, r->param_count);
        return CROWD_OK;
    case CROWD_FIELD_LOOK_TARGET: case CROWD_FIELD_LOOK_ACTIVE: case CROWD_FIELD_LOOK_CENTER:
    case CROWD_FIELD_LOOK_DAMPING: case CROWD_FIELD_LOOK_WEIGHT: case CROWD_FIELD_LOOK_POSITION:
    case CROWD_FIELD_LOOK_VELOCITY:
        CROWDI_CHECK(e, r->has[CROWDI_CTL_LOOK], CROWD_ERR_NO_CONTROLLER, "%s: field %s: rig \"%s\" has no look controller",
                     fn, field_info[f].name, r->name);
        return CROWD_OK;
    case CROWD_FIELD_HARMONIC_PHASE: case CROWD_FIELD_HARMONIC_RANGE:
        CROWDI_CHECK(e, r->has[CROWDI_CTL_HARMONIC], CROWD_ERR_NO_CONTROLLER, "%s: field %s: rig \"%s\" has no harmonic controller",
                     fn, field_info[f].name, r->name);
        CROWDI_CHECK(e, index < r->harm_count, CROWD_ERR_RANGE, "%s: index (%u) is not a harmonic entry of rig \"%s\" (%u entries)",
                     fn, index, r->name, r->harm_count);
        return CROWD_OK;
    case CROWD_FIELD_HARMONIC_WEIGHT:
        CROWDI_CHECK(e, r->has[CROWDI_CTL_HARMONIC], CROWD_ERR_NO_CONTROLLER, "%s: field %s: rig \"%s\" has no harmonic controller",
                     fn, field_info[f].name, r->name);
        return CROWD_OK;
    case CROWD_FIELD_BLINK_WEIGHT: case CROWD_FIELD_BLINK_MANUAL: case CROWD_FIELD_BLINK_OPENING:
    case CROWD_FIELD_BLINK_PHASE: case CROWD_FIELD_BLINK_CLOCK: case CROWD_FIELD_BLINK_LAST:
        CROWDI_CHECK(e, r->has[CROWDI_CTL_BLINK], CROWD_ERR_NO_CONTROLLER, "%s: field %s: rig \"%s\" has no blink controller",
                     fn, field_info[f].name, r->name);
        return CROWD_OK;
    case CROWD_FIELD_POSE: case CROWD_FIELD_ROOT: case CROWD_FIELD_BONE_WORLD: case CROWD_FIELD_BONE_LOCAL:
        CROWDI_CHECK(e, r->has[CROWDI_CTL_LIMBS], CROWD_ERR_NO_CONTROLLER, "%s: field %s: rig \"%s\" has no limbs",
                     fn, field_info[f].name, r->name);
        CROWDI_CHECK(e, index < CROWD_BONE_COUNT || (f != CROWD_FIELD_BONE_WORLD && f != CROWD_FIELD_BONE_LOCAL),
                     CROWD_ERR_RANGE, "%s: index (%u) is not a crowd_bone", fn, index);
        return CROWD_OK;
    default:
        return crowdi_fail(e, CROWD_ERR_BAD_ENUM, "%s: field (%d) is not a crowd_field", fn, (int)f);
    }
}

/* Is v an acceptable value for component comp of the field? */
/* The rule of a field's values as a closed interval [lo, hi], finiteness included, with its
 * wording for messages; false for the fields whose values are discrete. The one place the
 * rules live: crowd_instances_set and snapshot loading both come here. */
static bool value_interval(const crowdi_rig *r, crowd_field f, uint32_t index, uint32_t comp, float *lo, float *hi,
                           const char **want) {
    *lo = -FLT_MAX, *hi = FLT_MAX, *want = "finite";
    switch (f) {
    case CROWD_FIELD_LOOK_ACTIVE: case CROWD_FIELD_BLINK_MANUAL: case CROWD_FIELD_BLINK_PHASE: return false;
    case CROWD_FIELD_LOOK_DAMPING: *lo = 0, *hi = CROWDI_MAX_SECONDS, *want = "in [0, 1e6]"; break;
    case CROWD_FIELD_HARMONIC_RANGE: *lo = -CROWDI_MAX_FRACTION, *hi = CROWDI_MAX_FRACTION, *want = "within +-1000"; break;
    case CROWD_FIELD_LOOK_WEIGHT: case CROWD_FIELD_HARMONIC_WEIGHT: case CROWD_FIELD_BLINK_WEIGHT:
        *lo = 0, *hi = 1, *want = "in [0, 1]";
        break;
    case CROWD_FIELD_HARMONIC_PHASE: *lo = 0, *hi = r->harm[index].duration, *want = "in [0, duration]"; break;
    case CROWD_FIELD_POSE:
        if (comp % 4 == 3) *lo = 0, *hi = 1, *want = "a visibility in [0, 1]";
        else *lo = -CROWDI_MAX_LANDMARK, *hi = CROWDI_MAX_LANDMARK, *want = "a coordinate within +-1e9";
        break;
    case CROWD_FIELD_LOOK_TARGET: case CROWD_FIELD_LOOK_CENTER:
        *lo = -CROWDI_MAX_COORD, *hi = CROWDI_MAX_COORD, *want = "within +-1e15 (SmoothDamp squares distances)";
        break;
    case CROWD_FIELD_LOOK_POSITION:
        *lo = -CROWDI_LOOK_MAX_POSITION, *hi = CROWDI_LOOK_MAX_POSITION, *want = "within +-1e18";
        break;
    case CROWD_FIELD_LOOK_VELOCITY:
        *lo = -CROWDI_LOOK_MAX_VELOCITY, *hi = CROWDI_LOOK_MAX_VELOCITY, *want = "within +-1e24";
        break;
    case CROWD_FIELD_BLINK_OPENING: *hi = 1, *want = "<= 1"; break;
    default: break;
    }
    return true;
}

static crowd_result check_value(const crowd_engine *e, const char *fn, const crowdi_rig *r, crowd_field f,
                                uint32_t index, uint32_t i, uint32_t comp, float v) {
    const char *name = field_info[f].name;
    CROWDI_CHECK(e, crowdi_finite(v), CROWD_ERR_NOT_FINITE, "%s: values[%u] (%s of instance %u) is not finite",
                 fn, i * field_info[f].width + comp, name, i);
    float lo, hi;
    const char *want;
    bool ok;
    if (value_interval(r, f, index, comp, &lo, &hi, &want)) {
        ok = v >= lo && v <= hi;
    } else if (f == CROWD_FIELD_LOOK_ACTIVE) {
        ok = v == 0.0f || v == 1.0f, want = "0 or 1";
    } else if (f == CROWD_FIELD_BLINK_MANUAL) {
        ok = v == -1.0f || (v >= 0 && v <= 1), want = "in [0, 1], or -1 for automatic";
    } else { /* blink phase */
        ok = v == 0.0f || v == 1.0f || v == 2.0f || (v == 3.0f && r->blink_model == CROWDI_BLINK_TIMED);
        want = r->blink_model == CROWDI_BLINK_TIMED ? "0, 1, 2 or 3" : "0, 1 or 2";
    }
    CROWDI_CHECK(e, ok, CROWD_ERR_RANGE, "%s: values[%u] (%s of instance %u%s) is %g, must be %s", fn,
                 i * field_info[f].width + comp, name, i,
                 f != CROWD_FIELD_POSE ? "" : comp % 4 == 3 ? ", a landmark's visibility" : ", a landmark coordinate",
                 (double)v, want);
    return CROWD_OK;
}

/* Checks that need the whole value: rotations must be unit quaternions. */
static crowd_result check_whole(const crowd_engine *e, const char *fn, crowd_field f, uint32_t i, const float *v) {
    if (f != CROWD_FIELD_ROOT && f != CROWD_FIELD_BONE_WORLD && f != CROWD_FIELD_BONE_LOCAL) return CROWD_OK;
    float n = v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3];
    CROWDI_CHECK(e, n >= 1.0f - 1e-4f && n <= 1.0f + 1e-4f, CROWD_ERR_RANGE,
                 "%s: values[%u..%u] (%s of instance %u) is not a unit quaternion (squared length %g)", fn, i * 4,
                 i * 4 + 3, field_info[f].name, i, (double)n);
    return CROWD_OK;
}

/* Every stored row of the rig obeys the rules crowd_instances_set applies (snapshot loading). */
crowd_result crowdi_check_rows(const crowd_engine *e, const char *fn, const crowdi_rig *r) {
    static const crowd_field fields[] = {
        CROWD_FIELD_LOOK_TARGET, CROWD_FIELD_LOOK_ACTIVE, CROWD_FIELD_LOOK_CENTER, CROWD_FIELD_LOOK_DAMPING,
        CROWD_FIELD_LOOK_WEIGHT, CROWD_FIELD_HARMONIC_WEIGHT, CROWD_FIELD_BLINK_WEIGHT, CROWD_FIELD_BLINK_MANUAL,
        CROWD_FIELD_HARMONIC_PHASE, CROWD_FIELD_HARMONIC_RANGE, CROWD_FIELD_LOOK_POSITION, CROWD_FIELD_LOOK_VELOCITY,
        CROWD_FIELD_BLINK_OPENING, CROWD_FIELD_BLINK_PHASE, CROWD_FIELD_BLINK_CLOCK, CROWD_FIELD_BLINK_LAST,
        CROWD_FIELD_BASE, CROWD_FIELD_POSE, CROWD_FIELD_ROOT};
    crowd_result res;
    for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++) {
        crowd_field f = fields[k];
        bool has = f == CROWD_FIELD_BASE || (r->has[CROWDI_CTL_LOOK] && f <= CROWD_FIELD_LOOK_WEIGHT && f >= CROWD_FIELD_LOOK_TARGET) ||
                   (r->has[CROWDI_CTL_LOOK] && (f == CROWD_FIELD_LOOK_POSITION || f == CROWD_FIELD_LOOK_VELOCITY)) ||
                   (r->has[CROWDI_CTL_HARMONIC] && (f == CROWD_FIELD_HARMONIC_WEIGHT || f == CROWD_FIELD_HARMONIC_PHASE ||
                                    f == CROWD_FIELD_HARMONIC_RANGE)) ||
                   (r->has[CROWDI_CTL_BLINK] && (f == CROWD_FIELD_BLINK_WEIGHT || f == CROWD_FIELD_BLINK_MANUAL ||
                                     (f >= CROWD_FIELD_BLINK_OPENING && f <= CROWD_FIELD_BLINK_LAST))) ||
                   (r->has[CROWDI_CTL_LIMBS] && (f == CROWD_FIELD_POSE || f == CROWD_FIELD_ROOT));
        if (!has) continue;
        uint32_t indices = f == CROWD_FIELD_BASE ? r->param_count
                           : (f == CROWD_FIELD_HARMONIC_PHASE || f == CROWD_FIELD_HARMONIC_RANGE) ? r->harm_count : 1;
        for (uint32_t index = 0; index < indices; index++)
            for (uint32_t c = 0; c < field_info[f].width; c++) {
                const float *col = field_column(r, f, index, c);
                float lo, hi;
                const char *want;
                if (value_interval(r, f, index, c, &lo, &hi, &want)) {
                    /* a plain interval: one tight loop, check_value only to word a failure */
                    for (uint32_t row = 0; row < r->count; row++)
                        if (!(col[row] >= lo && col[row] <= hi)) return check_value(e, fn, r, f, index, row, c, col[row]);
                } else {
                    for (uint32_t row = 0; row < r->count; row++)
                        if ((res = check_value(e, fn, r, f, index, row, c, col[row])) != CROWD_OK) return res;
                }
            }
        if (f == CROWD_FIELD_ROOT)
            for (uint32_t row = 0; row < r->count; row++) {
                float q[4];
                for (uint32_t c = 0; c < 4; c++) q[c] = field_column(r, f, 0, c)[row];
                if ((res = check_whole(e, fn, f, row, q)) != CROWD_OK) return res;
            }
    }
    /* stored bone rotations are read back by the tick (held bones, parents): unit ones only */
    if (r->has[CROWDI_CTL_LIMBS])
        for (int f = CROWD_FIELD_BONE_WORLD; f <= CROWD_FIELD_BONE_LOCAL; f++)
            for (uint32_t b = 0; b < CROWD_BONE_COUNT; b++)
                for (uint32_t row = 0; row < r->count; row++) {
                    float q[4];
                    for (uint32_t c = 0; c < 4; c++) q[c] = field_column(r, (crowd_field)f, b, c)[row];
                    if ((res = check_whole(e, fn, (crowd_field)f, row, q)) != CROWD_OK) return res;
                }
    return CROWD_OK;
}

static crowd_result set_fields(crowd_engine *e, const char *fn, crowd_field f, uint32_t index,
                               const crowd_instance *h, uint32_t count, const float *values) {
    CROWDI_CHECK(e, (unsigned)f < CROWD_FIELD_COUNT, CROWD_ERR_BAD_ENUM, "%s: field (%d) is not a crowd_field", fn, (int)f);
    CROWDI_CHECK(e, field_info[f].writable, CROWD_ERR_RANGE, "%s: field %s is read only", fn, field_info[f].name);
    crowd_result res = check_handles(e, fn, h, count);
    if (res != CROWD_OK) return res;
    CROWDI_CHECK(e, count == 0 || values, CROWD_ERR_NULL, "%s: values is NULL", fn);
    uint32_t w = field_info[f].width;
    for (uint32_t i = 0; i < count; i++) {
        const crowdi_rig *r = e->rigs[crowdi_slot_get(e, h[i])->rig];
        if ((res = check_field(e, fn, r, f, index)) != CROWD_OK) return res;
        for (uint32_t c = 0; c < w; c++)
            if ((res = check_value(e, fn, r, f, index, i, c, values[i * w + c])) != CROWD_OK) return res;
        if ((res = check_whole(e, fn, f, i, values + (size_t)i * w)) != CROWD_OK) return res;
    }
    for (uint32_t i = 0; i < count; i++) {
        const crowdi_slot *s = crowdi_slot_get(e, h[i]);
        const crowdi_rig *r = e->rigs[s->rig];
        for (uint32_t c = 0; c < w; c++) field_column(r, f, index, c)[s->row] = values[i * w + c];
    }
    return CROWD_OK;
}

static crowd_result get_fields(const crowd_engine *e, const char *fn, crowd_field f, uint32_t index,
                               const crowd_instance *h, uint32_t count, float *values) {
    CROWDI_CHECK(e, (unsigned)f < CROWD_FIELD_COUNT, CROWD_ERR_BAD_ENUM, "%s: field (%d) is not a crowd_field", fn, (int)f);
    crowd_result res = check_handles(e, fn, h, count);
    if (res != CROWD_OK) return res;
    CROWDI_CHECK(e, count == 0 || values, CROWD_ERR_NULL, "%s: values is NULL", fn);
    for (uint32_t i = 0; i < count; i++)
        if ((res = check_field(e, fn, e->rigs[crowdi_slot_get(e, h[i])->rig], f, index)) != CROWD_OK) return res;
    uint32_t w = field_info[f].width;
    for (uint32_t i = 0; i < count; i++) {
        const crowdi_slot *s = crowdi_slot_get(e, h[i]);
        for (uint32_t c = 0; c < w; c++) values[i * w + c] = field_column(e->rigs[s->rig], f, index, c)[s->row];
    }
    return CROWD_OK;
}

crowd_result crowd_instances_set(crowd_engine *e, crowd_field f, uint32_t index, const crowd_instance *h,
                                 uint32_t count, const float *values) {
    if (!e) return CROWD_ERR_NULL;
    return set_fields(e, "crowd_instances_set", f, index, h, count, values);
}

crowd_result crowd_instances_get(const crowd_engine *e, crowd_field f, uint32_t index, const crowd_instance *h,
                                 uint32_t count, float *values) {
    if (!e) return CROWD_ERR_NULL;
    return get_fields(e, "crowd_instances_get", f, index, h, count, values);
}

crowd_result crowd_set(crowd_engine *e, crowd_instance h, crowd_field f, uint32_t index, const float *values) {
    if (!e) return CROWD_ERR_NULL;
    return set_fields(e, "crowd_set", f, index, &h, 1, values);
}

crowd_result crowd_get(const crowd_engine *e, crowd_instance h, crowd_field f, uint32_t index, float *values) {
    if (!e) return CROWD_ERR_NULL;
    return get_fields(e, "crowd_get", f, index, &h, 1, values);
}

crowd_result crowd_set_look_target(crowd_engine *e, crowd_instance h, float x, float y, float z, bool active) {
    if (!e) return CROWD_ERR_NULL;
    const char *fn = "crowd_set_look_target";
    const float target[3] = {x, y, z}, on = active ? 1.0f : 0.0f;
    crowd_result res = check_handles(e, fn, &h, 1);
    if (res != CROWD_OK) return res;
    /* validate both fields before writing either */
    const crowdi_rig *r = e->rigs[crowdi_slot_get(e, h)->rig];
    if ((res = check_field(e, fn, r, CROWD_FIELD_LOOK_TARGET, 0)) != CROWD_OK) return res;
    for (uint32_t c = 0; c < 3; c++)
        if ((res = check_value(e, fn, r, CROWD_FIELD_LOOK_TARGET, 0, 0, c, target[c])) != CROWD_OK) return res;
    set_fields(e, fn, CROWD_FIELD_LOOK_TARGET, 0, &h, 1, target);
    return set_fields(e, fn, CROWD_FIELD_LOOK_ACTIVE, 0, &h, 1, &on);
}

crowd_result crowd_blink_now(crowd_engine *e, const crowd_instance *h, uint32_t count) {
    if (!e) return CROWD_ERR_NULL;
    const char *fn = "crowd_blink_now";
    crowd_result res = check_handles(e, fn, h, count);
    if (res != CROWD_OK) return res;
    for (uint32_t i = 0; i < count; i++)
        if ((res = check_field(e, fn, e->rigs[crowdi_slot_get(e, h[i])->rig], CROWD_FIELD_BLINK_CLOCK, 0)) != CROWD_OK)
            return res;
    for (uint32_t i = 0; i < count; i++) {
        const crowdi_slot *s = crowdi_slot_get(e, h[i]);
        float *const *blink = e->rigs[s->rig]->view.blink_col;
        if (blink[CROWDI_BLINK_PHASE][s->row] == 0.0f) blink[CROWDI_BLINK_CLOCK][s->row] = 0.0f;
    }
    return CROWD_OK;
}

/* ---- outputs ---- */
crowd_result crowd_rig_column(crowd_engine *e, crowd_rig rig, crowd_field f, uint32_t index, uint32_t component,
                              float **out_values, uint32_t *out_count) {
    if (!e) return CROWD_ERR_NULL;
    const char *fn = "crowd_rig_column";
    const crowdi_rig *r = crowdi_rig_get(e, rig);
    CROWDI_CHECK(e, r, CROWD_ERR_HANDLE, "%s: rig is not a rig of this engine", fn);
    CROWDI_CHECK(e, out_values && out_count, CROWD_ERR_NULL, "%s: out_values or out_count is NULL", fn);
    CROWDI_CHECK(e, (unsigned)f < CROWD_FIELD_COUNT, CROWD_ERR_BAD_ENUM, "%s: field (%d) is not a crowd_field", fn, (int)f);
    crowd_result res = check_field(e, fn, r, f, index);
    if (res != CROWD_OK) return res;
    CROWDI_CHECK(e, component < field_info[f].width, CROWD_ERR_RANGE, "%s: component (%u) of field %s must be < %u",
                 fn, component, field_info[f].name, field_info[f].width);
    *out_values = field_column(r, f, index, component);
    *out_count = r->count;
    return CROWD_OK;
}

crowd_result crowd_rig_columns(crowd_engine *e, crowd_rig rig, crowd_field f, uint32_t index, float **out_columns,
                               uint32_t *out_count) {
    if (!e) return CROWD_ERR_NULL;
    float *first;
    crowd_result res = crowd_rig_column(e, rig, f, index, 0, out_columns ? &first : NULL, out_count);
    if (res != CROWD_OK) return res;
    const crowdi_rig *r = crowdi_rig_get(e, rig);
    for (uint32_t c = 0; c < field_info[f].width; c++) out_columns[c] = field_column(r, f, index, c);
    return CROWD_OK;
}

crowd_result crowd_rig_handles(const crowd_engine *e, crowd_rig rig, const crowd_instance **out_handles,
                               uint32_t *out_count) {
    if (!e) return CROWD_ERR_NULL;
    const crowdi_rig *r = crowdi_rig_get(e, rig);
    CROWDI_CHECK(e, r, CROWD_ERR_HANDLE, "crowd_rig_handles: rig is not a rig of this engine");
    CROWDI_CHECK(e, out_handles && out_count, CROWD_ERR_NULL, "crowd_rig_handles: out_handles or out_count is NULL");
    *out_handles = r->count ? r->handles : NULL;
    *out_count = r->count;
    return CROWD_OK;
}

crowd_result crowd_get_outputs(const crowd_engine *e, crowd_instance h, float *out, uint32_t capacity) {
    if (!e) return CROWD_ERR_NULL;
    const char *fn = "crowd_get_outputs";
    const crowdi_slot *s = crowdi_slot_get(e, h);
    CROWDI_CHECK(e, s, CROWD_ERR_HANDLE, "%s: instance is zero, stale or from another engine", fn);
    const crowdi_rig *r = e->rigs[s->rig];
    CROWDI_CHECK(e, r->param_count == 0 || out, CROWD_ERR_NULL, "%s: out_values is NULL", fn);
    CROWDI_CHECK(e, capacity >= r->param_count, CROWD_ERR_RANGE, "%s: capacity (%u) < parameter count (%u)", fn,
                 capacity, r->param_count);
    for (uint32_t p = 0; p < r->param_count; p++) out[p] = r->columns[r->col_out + p][s->row];
    return CROWD_OK;
}

/* ---- the tick ---- */
static crowd_result check_dt(const crowd_engine *e, const char *fn, float dt) {
    CROWDI_CHECK(e, crowdi_finite(dt), CROWD_ERR_NOT_FINITE, "%s: dt is not finite", fn);
    CROWDI_CHECK(e, dt >= 0 && dt <= 1, CROWD_ERR_RANGE, "%s: dt (%g) must be in [0, 1] seconds", fn, (double)dt);
    return CROWD_OK;
}

/* Whole blocks on the engine's target, the rest through the width-1 build of the same code. */
static void tick_rows(const crowd_engine *e, const crowdi_rig *r, float dt, uint32_t first, uint32_t count) {
    uint32_t bulk = count - count % e->kernels->width;
    if (bulk) e->kernels->tick(&r->view, dt, first, bulk);
    if (count > bulk) e->tail_kernels->tick(&r->view, dt, first + bulk, count - bulk);
}

/* Slice t of `slices` of every rig's running rows: contiguous, starting on a 16-row boundary. */
void crowdi_tick_slice(const crowd_engine *e, float dt, uint32_t slice, uint32_t slices) {
    for (uint32_t k = 0; k < e->rig_count; k++) {
        const crowdi_rig *r = e->rigs[k];
        uint32_t per = (r->active + slices - 1) / slices;
        per = (per + CROWDI_LANES - 1) / CROWDI_LANES * CROWDI_LANES;
        uint64_t first = (uint64_t)per * slice;
        if (first >= r->active) continue;
        uint32_t count = r->active - (uint32_t)first < per ? r->active - (uint32_t)first : per;
        tick_rows(e, r, dt, (uint32_t)first, count);
    }
}

crowd_result crowd_tick(crowd_engine *e, float dt) {
    if (!e) return CROWD_ERR_NULL;
    crowd_result res = check_dt(e, "crowd_tick", dt);
    if (res != CROWD_OK) return res;
    if (e->pool) crowdi_pool_run(e, dt);
    else crowdi_tick_slice(e, dt, 0, 1);
    return CROWD_OK;
}

/* Calls may run concurrently: errors go through crowdi_fail_concurrent. */
crowd_result crowd_tick_range(crowd_engine *e, float dt, crowd_rig rig, uint32_t first, uint32_t count) {
    if (!e) return CROWD_ERR_NULL;
    const char *fn = "crowd_tick_range";
    if (!crowdi_finite(dt)) return crowdi_fail_concurrent(e, CROWD_ERR_NOT_FINITE, "%s: dt is not finite", fn);
    if (!(dt >= 0 && dt <= 1))
        return crowdi_fail_concurrent(e, CROWD_ERR_RANGE, "%s: dt (%g) must be in [0, 1] seconds", fn, (double)dt);
    const crowdi_rig *r = crowdi_rig_get(e, rig);
    if (!r) return crowdi_fail_concurrent(e, CROWD_ERR_HANDLE, "%s: rig is not a rig of this engine", fn);
    if (!(first <= r->count && count <= r->count - first))
        return crowdi_fail_concurrent(e, CROWD_ERR_RANGE, "%s: rows [%u, %u + %u) exceed the rig's %u instances", fn,
                                      first, first, count, r->count);
    /* paused rows (from crowd_rig_running_count() on) are left as they are */
    uint32_t end = first + count < r->active ? first + count : r->active;
    if (first < end) tick_rows(e, r, dt, first, end - first);
    return CROWD_OK;
}
