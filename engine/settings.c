/* The controllers' settings tables at work (settings.h): defaults, checks, snapshot bytes and
 * crowd_setting_info. */
#include "settings.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "serial.h"

static float get_float(const void *base, size_t offset, uint32_t k) {
    float f;
    memcpy(&f, (const char *)base + offset + sizeof f * k, sizeof f);
    return f;
}

/* ENUM members are enums (int-sized), BOOL members bool */
static int get_int(const crowdi_setting *row, const void *desc) {
    const char *p = (const char *)desc + row->info.offset;
    if (row->info.type == CROWD_SETTING_BOOL) {
        bool b;
        memcpy(&b, p, sizeof b);
        return b;
    }
    int v;
    memcpy(&v, p, sizeof v);
    return v;
}

uint32_t crowdi_setting_u32(const crowdi_setting *row, const void *desc) { return (uint32_t)get_int(row, desc); }

void crowdi_settings_defaults(const crowdi_setting *rows, uint32_t count, void *desc) {
    for (uint32_t k = 0; k < count; k++) {
        const crowd_setting *s = &rows[k].info;
        char *p = (char *)desc + s->offset;
        switch (s->type) {
        case CROWD_SETTING_FLOAT: {
            const float f = (float)s->default_value;
            for (uint32_t c = 0; c < s->count; c++) memcpy(p + sizeof f * c, &f, sizeof f);
            break;
        }
        case CROWD_SETTING_ENUM: {
            const int v = (int)s->default_value;
            memcpy(p, &v, sizeof v);
            break;
        }
        case CROWD_SETTING_BOOL: {
            const bool b = s->default_value != 0;
            memcpy(p, &b, sizeof b);
            break;
        }
        default: {
            const uint64_t u = (uint64_t)s->default_value;
            memcpy(p, &u, sizeof u);
            break;
        }
        }
    }
}

/* "[0, 1e6]", "(0, 3600]", "> 0" */
static void describe_bounds(const crowd_setting *s, char *buf, size_t n) {
    if (s->max == INFINITY)
        snprintf(buf, n, "%s %g", s->min_open ? ">" : ">=", s->min);
    else
        snprintf(buf, n, "in %s%g, %g%s", s->min_open ? "(" : "[", s->min, s->max, s->max_open ? ")" : "]");
}

crowd_result crowdi_settings_check(crowd_engine *engine, int ctl, const crowdi_setting *rows, uint32_t count,
                                   const void *desc) {
    /* "desc->blink->mean" for a controller's rows, "desc->lod_interval" for the rig's own (ctl -1) */
    char who[40] = "";
    if (ctl >= 0) snprintf(who, sizeof who, "%s->", crowd_controller_name((crowd_controller)ctl));
    for (uint32_t k = 0; k < count; k++) {
        const crowd_setting *s = &rows[k].info;
        if (s->type == CROWD_SETTING_ENUM) {
            const int v = get_int(&rows[k], desc);
            char names[160] = "";
            for (int n = 0; n <= (int)s->max; n++)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", n ? ", " : "", s->value_names[n]);
            CROWDI_RIG_CHECK(v >= 0 && v <= (int)s->max, CROWD_ERR_BAD_ENUM, "desc->%s%s (%d) is not one of %s", who,
                             s->name, v, names);
        } else if (s->type == CROWD_SETTING_BITS64) {
            uint64_t u;
            memcpy(&u, (const char *)desc + s->offset, sizeof u);
            CROWDI_RIG_CHECK(s->max >= 63 || u >> ((int)s->max + 1) == 0, CROWD_ERR_RANGE,
                             "desc->%s%s (0x%llx) has bits at or above %d", who, s->name, (unsigned long long)u,
                             (int)s->max + 1);
        } else if (s->type == CROWD_SETTING_FLOAT) {
            for (uint32_t c = 0; c < s->count; c++) {
                const float v = get_float(desc, s->offset, c);
                char at[16] = "", bounds[64];
                if (s->count > 1) snprintf(at, sizeof at, "[%u]", c);
                const bool infinite_ok = s->max == INFINITY && !s->max_open; /* only NaN is not a value */
                CROWDI_RIG_CHECK(infinite_ok ? v == v : crowdi_finite(v), CROWD_ERR_NOT_FINITE, "desc->%s%s%s is not finite",
                                 who, s->name, at);
                const bool above = s->min_open ? v > s->min : v >= s->min;
                const bool below = s->max_open ? v < s->max : v <= s->max;
                describe_bounds(s, bounds, sizeof bounds);
                CROWDI_RIG_CHECK(above && below, CROWD_ERR_RANGE, "desc->%s%s%s (%g) must be %s%s%s", who, s->name, at,
                                 (double)v, bounds, s->unit[0] ? " " : "", s->unit);
            }
        }
    }
    return CROWD_OK;
}

void crowdi_settings_write(crowdi_writer *w, const crowdi_setting *rows, uint32_t first, uint32_t end, const void *part) {
    for (uint32_t k = first; k < end; k++) {
        const crowdi_setting *row = &rows[k];
        const char *p = (const char *)part + row->kept;
        switch (row->info.type) {
        case CROWD_SETTING_FLOAT:
            for (uint32_t c = 0; c < row->info.count; c++) crowdi_w_f32(w, get_float(part, row->kept, c));
            break;
        case CROWD_SETTING_BITS64: {
            uint64_t u;
            memcpy(&u, p, sizeof u);
            crowdi_w_u64(w, u);
            break;
        }
        case CROWD_SETTING_BOOL: {
            bool b;
            memcpy(&b, p, sizeof b);
            crowdi_w_u32(w, b ? 1u : 0u);
            break;
        }
        default: { /* ENUM: kept as a uint32_t (or an enum) */
            uint32_t u;
            memcpy(&u, p, sizeof u);
            crowdi_w_u32(w, u);
            break;
        }
        }
    }
}

void crowdi_settings_read(crowdi_reader *rd, const crowdi_setting *rows, uint32_t first, uint32_t end, void *desc) {
    for (uint32_t k = first; k < end; k++) {
        const crowd_setting *s = &rows[k].info;
        char *p = (char *)desc + s->offset;
        switch (s->type) {
        case CROWD_SETTING_FLOAT:
            for (uint32_t c = 0; c < s->count; c++) {
                const float f = crowdi_r_f32(rd); /* one read per statement: reads are ordered */
                memcpy(p + sizeof f * c, &f, sizeof f);
            }
            break;
        case CROWD_SETTING_BITS64: {
            const uint64_t u = crowdi_r_u64(rd);
            memcpy(p, &u, sizeof u);
            break;
        }
        case CROWD_SETTING_BOOL: {
            const bool b = crowdi_r_u32(rd) != 0;
            memcpy(p, &b, sizeof b);
            break;
        }
        default: { /* an enum: validation refuses a value beyond it */
            const int v = (int)crowdi_r_u32(rd);
            memcpy(p, &v, sizeof v);
            break;
        }
        }
    }
}

/* ---- crowd_setting_info ---- */
_Static_assert((int)CROWD_CONTROLLER_COUNT == (int)CROWDI_CONTROLLER_COUNT, "crowd.h's crowd_controller lists every controller");
#define CROWDI_X_CHECK_ORDER(NAME, name) _Static_assert((int)CROWD_CONTROLLER_##NAME == (int)CROWDI_CTL_##NAME, #name " in the same place");
CROWDI_CONTROLLER_LIST(CROWDI_X_CHECK_ORDER)
#undef CROWDI_X_CHECK_ORDER

uint32_t crowd_setting_count(crowd_controller controller) {
    return (unsigned)controller < CROWDI_CONTROLLER_COUNT ? crowdi_controllers[controller]->setting_count : 0;
}

crowd_result crowd_setting_info(crowd_controller controller, uint32_t index, crowd_setting *out) {
    if (!out) return CROWD_ERR_NULL;
    if ((unsigned)controller >= CROWDI_CONTROLLER_COUNT) return CROWD_ERR_BAD_ENUM;
    const crowdi_controller *c = crowdi_controllers[controller];
    if (index >= c->setting_count) return CROWD_ERR_RANGE;
    *out = c->setting_rows[index].info;
    return CROWD_OK;
}
