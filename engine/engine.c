/* The engine: creation, the SIMD target, and rigs with their validation (the controllers'
 * parts through the controller table). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- SIMD targets ---- */
static const char *const simd_names[CROWD_SIMD_COUNT] = {"auto", "scalar", "sse2", "avx2", "avx512", "wasm128"};

const char *crowd_simd_name(crowd_simd simd) {
    return (unsigned)simd < CROWD_SIMD_COUNT ? simd_names[simd] : NULL;
}

uint32_t crowd_simd_width(crowd_simd simd) {
    static const uint32_t widths[CROWD_SIMD_COUNT] = {0, 1, 4, 8, 16, 4};
    return (unsigned)simd < CROWD_SIMD_COUNT ? widths[simd] : 0;
}

bool crowd_simd_supported(crowd_simd simd) {
    return simd > CROWD_SIMD_AUTO && simd < CROWD_SIMD_COUNT && crowdi_kernels_for((int)simd) != NULL;
}

crowd_simd crowd_simd_target(const crowd_engine *engine) { return engine ? engine->simd : CROWD_SIMD_AUTO; }
uint32_t crowd_engine_threads(const crowd_engine *engine) { return engine ? engine->threads : 0; }

/* ---- engine ---- */
crowd_result crowd_engine_create(const crowd_engine_desc *desc, crowd_engine **out_engine) {
    CROWDI_CHECK(NULL, desc, CROWD_ERR_NULL, "crowd_engine_create: desc is NULL");
    CROWDI_CHECK(NULL, out_engine, CROWD_ERR_NULL, "crowd_engine_create: out_engine is NULL");
    crowd_engine probe = {.core.logger = desc->logger};
    CROWDI_CHECK(&probe, (unsigned)desc->simd < CROWD_SIMD_COUNT, CROWD_ERR_BAD_ENUM,
                 "crowd_engine_create: desc->simd (%d) is not a crowd_simd value", (int)desc->simd);
    CROWDI_CHECK(&probe, desc->threads <= 256, CROWD_ERR_RANGE,
                 "crowd_engine_create: desc->threads (%u) exceeds 256", desc->threads);
    CROWDI_CHECK(&probe, !desc->allocator.alloc == !desc->allocator.free, CROWD_ERR_RANGE,
                 "crowd_engine_create: desc->allocator needs both alloc and free, or neither");
    CROWDI_CHECK(&probe, desc->first_instance_id <= (1ull << 62), CROWD_ERR_RANGE,
                 "crowd_engine_create: desc->first_instance_id (%llu) exceeds 2^62",
                 (unsigned long long)desc->first_instance_id);

    crowd_simd simd = desc->simd;
    if (simd == CROWD_SIMD_AUTO) {
        const char *env = getenv("CROWD_SIMD");
        if (env && *env && strcmp(env, "auto") != 0) {
            for (int t = CROWD_SIMD_SCALAR; t < CROWD_SIMD_COUNT; t++)
                if (strcmp(env, simd_names[t]) == 0) simd = (crowd_simd)t;
            CROWDI_CHECK(&probe, simd != CROWD_SIMD_AUTO, CROWD_ERR_RANGE,
                         "crowd_engine_create: environment CROWD_SIMD=%s is not one of auto, scalar, sse2, avx2, avx512", env);
        } else {
            simd = (crowd_simd)crowdi_best_target();
        }
    }
    const crowdi_kernels *kernels = crowdi_kernels_for((int)simd);
    CROWDI_CHECK(&probe, kernels, CROWD_ERR_UNSUPPORTED,
                 "crowd_engine_create: simd target %s is not built into this library or the CPU lacks it",
                 simd_names[simd]);

    crowd_engine *e;
    e = crowdi_alloc_with(&desc->allocator, sizeof *e);
    CROWDI_CHECK(&probe, e, CROWD_ERR_OUT_OF_MEMORY, "crowd_engine_create: out of memory");
    memset(e, 0, sizeof *e);
    e->core.allocator = desc->allocator;
    e->core.logger = desc->logger;
    e->seed = desc->seed;
    e->initial_capacity = desc->initial_capacity;
    e->next_instance_id = desc->first_instance_id;
    e->simd = simd;
    e->kernels = kernels;
    e->tail_kernels = crowdi_kernels_for(CROWD_SIMD_SCALAR);
    /* a tag no other live engine holds: handles of another live engine differ in it */
    e->tag = crowdi_tag_new();
    e->free_slot = UINT32_MAX;
    e->threads = desc->threads ? desc->threads : 1;
    crowd_result res = e->tag ? crowdi_pool_start(e, e->threads, &e->pool) : CROWD_ERR_CAPACITY;
    if (res != CROWD_OK) {
        if (e->tag) crowdi_tag_release(e->tag);
        crowd_allocator al = e->core.allocator;
        crowdi_free_with(&al, e);
        if (res == CROWD_ERR_CAPACITY)
            return crowdi_fail(&probe, res, "crowd_engine_create: %u engines are live, the most there can be", CROWDI_TAG_COUNT - 1);
        if (res == CROWD_ERR_THREAD)
            return crowdi_fail(&probe, res, "crowd_engine_create: the system could not start %u threads", desc->threads - 1);
        return crowdi_fail(&probe, res, "crowd_engine_create: out of memory for the pool of %u threads", desc->threads);
    }
    *out_engine = e;
    return CROWD_OK;
}

void crowd_engine_destroy(crowd_engine *engine) {
    if (!engine) return;
    crowdi_pool_stop(engine->pool);
    for (uint32_t r = 0; r < engine->rig_count; r++) crowdi_rig_free(engine, engine->rigs[r]);
    crowdi_free(engine, engine->rigs);
    crowdi_free(engine, engine->slots);
    crowdi_tag_release(engine->tag);
    crowd_allocator al = engine->core.allocator;
    crowdi_free_with(&al, engine);
}

/* ---- rig validation ---- */
#define RIG_FAIL(code, ...) return crowdi_fail(engine, code, "crowd_rig_create: " __VA_ARGS__)

/* Checks the desc; ids (filled here, counts checked first) indexes its parameter ids. */
static crowd_result validate_rig(crowd_engine *engine, const crowd_rig_desc *desc, crowdi_ids *ids) {
    CROWDI_RIG_CHECK(desc->parameter_count == 0 || desc->parameters, CROWD_ERR_NULL,
              "desc->parameters is NULL with parameter_count %u", desc->parameter_count);
    CROWDI_RIG_CHECK(desc->parameter_count <= CROWD_MAX_PARAMETERS, CROWD_ERR_CAPACITY,
              "desc->parameter_count (%u) exceeds %u", desc->parameter_count, CROWD_MAX_PARAMETERS);
    crowd_result res;
    for (int c = 0; c < CROWDI_CONTROLLER_COUNT; c++) /* entry counts first */
        if (crowdi_controllers[c]->present(desc) && (res = crowdi_controllers[c]->validate(engine, desc, NULL)) != CROWD_OK)
            return res;
    for (uint32_t p = 0; p < desc->parameter_count; p++) {
        CROWDI_RIG_CHECK(desc->parameters[p].id != NULL, CROWD_ERR_NULL, "desc->parameters[%u].id is NULL", p);
        CROWDI_RIG_CHECK(desc->parameters[p].id[0] != 0, CROWD_ERR_RANGE, "desc->parameters[%u].id is empty", p);
    }
    if (crowdi_ids_create(engine, desc, ids) != CROWD_OK) RIG_FAIL(CROWD_ERR_OUT_OF_MEMORY, "out of memory for the id index");
    for (uint32_t p = 0; p < desc->parameter_count; p++) {
        const crowd_parameter_desc *pd = &desc->parameters[p];
        CROWDI_RIG_CHECK(pd->id != NULL, CROWD_ERR_NULL, "desc->parameters[%u].id is NULL", p);
        CROWDI_RIG_CHECK(pd->id[0] != 0, CROWD_ERR_RANGE, "desc->parameters[%u].id is empty", p);
        CROWDI_RIG_CHECK(crowdi_finite(pd->min), CROWD_ERR_NOT_FINITE, "desc->parameters[%u].min (\"%s\") is not finite", p, pd->id);
        CROWDI_RIG_CHECK(crowdi_finite(pd->max), CROWD_ERR_NOT_FINITE, "desc->parameters[%u].max (\"%s\") is not finite", p, pd->id);
        CROWDI_RIG_CHECK(crowdi_finite(pd->default_value), CROWD_ERR_NOT_FINITE,
                  "desc->parameters[%u].default_value (\"%s\") is not finite", p, pd->id);
        CROWDI_RIG_CHECK(pd->min <= pd->max, CROWD_ERR_RANGE, "desc->parameters[%u].min (%g) > max (%g) (\"%s\")",
                  p, (double)pd->min, (double)pd->max, pd->id);
        CROWDI_RIG_CHECK(!pd->repeat || pd->max > pd->min, CROWD_ERR_RANGE,
                  "desc->parameters[%u].repeat needs max > min (\"%s\")", p, pd->id);
        CROWDI_RIG_CHECK(fabsf(pd->min) <= CROWDI_MAX_VALUE && fabsf(pd->max) <= CROWDI_MAX_VALUE, CROWD_ERR_RANGE,
                  "desc->parameters[%u]: min and max must be within +-1e18 (\"%s\")", p, pd->id);
        int q = crowdi_ids_insert(ids, pd->id, p);
        CROWDI_RIG_CHECK(q < 0, CROWD_ERR_DUPLICATE_ID, "desc->parameters[%u].id \"%s\" repeats desc->parameters[%d].id", p,
                  pd->id, q);
    }
    for (int c = 0; c < CROWDI_CONTROLLER_COUNT; c++)
        if (crowdi_controllers[c]->present(desc) && (res = crowdi_controllers[c]->validate(engine, desc, ids)) != CROWD_OK)
            return res;
    return crowdi_lod_validate(engine, desc);
}

static crowd_result build_rig(crowd_engine *engine, const crowd_rig_desc *desc, const crowdi_ids *ids, crowdi_rig *r) {
    uint32_t P = desc->parameter_count;
    r->name = crowdi_strdup(engine, desc->name ? desc->name : "");
    r->param_count = P;
    r->params = crowdi_alloc(engine, sizeof *r->params * P);
    r->param_ids = crowdi_alloc(engine, sizeof *r->param_ids * P);
    if (r->param_ids) memset(r->param_ids, 0, sizeof *r->param_ids * P); /* freed entry by entry */
    r->param_default = crowdi_alloc(engine, sizeof *r->param_default * P);
    if (!r->name || !r->params || !r->param_ids || !r->param_default) return CROWD_ERR_OUT_OF_MEMORY;
    for (uint32_t p = 0; p < P; p++) {
        const crowd_parameter_desc *pd = &desc->parameters[p];
        r->params[p] = (crowdi_param){pd->min, pd->max, pd->max - pd->min, pd->repeat ? 1u : 0u};
        r->param_default[p] = pd->default_value;
        if (!(r->param_ids[p] = crowdi_strdup(engine, pd->id))) return CROWD_ERR_OUT_OF_MEMORY;
    }
    crowdi_lod_build(r, desc);
    crowd_result res;
    for (int c = 0; c < CROWDI_CONTROLLER_COUNT; c++) {
        if (!(r->has[c] = crowdi_controllers[c]->present(desc))) continue;
        if (!(r->controller[c] = crowdi_alloc(engine, crowdi_controllers[c]->size))) return CROWD_ERR_OUT_OF_MEMORY;
        memset(r->controller[c], 0, crowdi_controllers[c]->size);
        if ((res = crowdi_controllers[c]->build(engine, desc, ids, r)) != CROWD_OK) return res;
    }
    res = crowdi_rig_layout(engine, r);
    if (res != CROWD_OK) return res;
    if (engine->initial_capacity) return crowdi_rig_grow(engine, r, engine->initial_capacity);
    return CROWD_OK;
}

static crowd_result create_rig(crowd_engine *engine, const crowd_rig_desc *desc, const crowdi_ids *ids, crowd_rig *out_rig);

crowd_result crowd_rig_create(crowd_engine *engine, const crowd_rig_desc *desc, crowd_rig *out_rig) {
    if (!engine) return CROWD_ERR_NULL;
    CROWDI_RIG_CHECK(desc, CROWD_ERR_NULL, "desc is NULL");
    CROWDI_RIG_CHECK(out_rig, CROWD_ERR_NULL, "out_rig is NULL");
    CROWDI_RIG_CHECK(engine->rig_count < CROWDI_MAX_RIGS, CROWD_ERR_CAPACITY, "an engine holds at most %u rigs", CROWDI_MAX_RIGS);
    crowdi_ids ids = {0};
    crowd_result res = validate_rig(engine, desc, &ids);
    if (res == CROWD_OK) res = create_rig(engine, desc, &ids, out_rig);
    crowdi_free(engine, ids.slots);
    return res;
}

static crowd_result create_rig(crowd_engine *engine, const crowd_rig_desc *desc, const crowdi_ids *ids, crowd_rig *out_rig) {
    crowd_result res;
    if (engine->rig_count == engine->rig_capacity) {
        uint32_t cap = engine->rig_capacity ? engine->rig_capacity * 2 : 8;
        crowdi_rig **rigs = crowdi_alloc(engine, sizeof *rigs * cap);
        CROWDI_RIG_CHECK(rigs, CROWD_ERR_OUT_OF_MEMORY, "out of memory");
        if (engine->rig_count) memcpy(rigs, engine->rigs, sizeof *rigs * engine->rig_count);
        crowdi_free(engine, engine->rigs);
        engine->rigs = rigs;
        engine->rig_capacity = cap;
    }
    crowdi_rig *r = crowdi_alloc(engine, sizeof *r);
    CROWDI_RIG_CHECK(r, CROWD_ERR_OUT_OF_MEMORY, "out of memory");
    memset(r, 0, sizeof *r);
    res = build_rig(engine, desc, ids, r);
    if (res != CROWD_OK) {
        crowdi_rig_free(engine, r);
        RIG_FAIL(res, "out of memory");
    }
    engine->rigs[engine->rig_count] = r;
    *out_rig = crowdi_rig_handle(engine, engine->rig_count++);
    return CROWD_OK;
}

crowd_result crowd_rig_parameter_index(const crowd_engine *engine, crowd_rig rig, const char *id,
                                       uint32_t *out_index) {
    if (!engine) return CROWD_ERR_NULL;
    const crowdi_rig *r = crowdi_rig_get(engine, rig);
    CROWDI_CHECK(engine, r, CROWD_ERR_HANDLE, "crowd_rig_parameter_index: rig is not a rig of this engine");
    CROWDI_CHECK(engine, id, CROWD_ERR_NULL, "crowd_rig_parameter_index: id is NULL");
    CROWDI_CHECK(engine, out_index, CROWD_ERR_NULL, "crowd_rig_parameter_index: out_index is NULL");
    for (uint32_t p = 0; p < r->param_count; p++)
        if (strcmp(r->param_ids[p], id) == 0) {
            *out_index = p;
            return CROWD_OK;
        }
    return crowdi_fail(engine, CROWD_ERR_UNKNOWN_ID, "crowd_rig_parameter_index: id \"%s\" is not a parameter of rig \"%s\"",
                       id, r->name);
}

uint32_t crowd_rig_parameter_count(const crowd_engine *engine, crowd_rig rig) {
    const crowdi_rig *r = crowdi_rig_get(engine, rig);
    return r ? r->param_count : 0;
}

uint32_t crowd_rig_instance_count(const crowd_engine *engine, crowd_rig rig) {
    const crowdi_rig *r = crowdi_rig_get(engine, rig);
    return r ? r->count : 0;
}
