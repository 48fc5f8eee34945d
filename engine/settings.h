/* Settings described once: each controller's table of its desc's plain settings (crowd.h's
 * crowd_setting, plus where the rig keeps each value). From the table come crowd_rig_create's
 * checks of them (settings.c, the field named in the message), their snapshot bytes and so the
 * settings digest, the desc defaults and crowd_setting_info.
 *
 * A new setting is one row in its controller's table (engine/<name>.c), in snapshot order, e.g.
 *   CROWDI_FLOAT_SETTING(crowd_blink_desc, crowdi_blink_view, max_deviation, max_deviation, 2.0, 0,
 *                        false, 1e6, false, "s", "the wait is drawn within +-max_deviation of mean")
 * (desc type, the controller's part type, where the part keeps the value, the desc member,
 * default, min, min open, max, max open, unit, doc), plus its member in the desc in crowd.h
 * and where the part keeps it. A row's place is its place in the snapshot: a row added at the
 * end of a table changes the snapshot bytes of every rig with that controller (a format version
 * bump, with the old version read with the default). */
#ifndef CROWDI_SETTINGS_H
#define CROWDI_SETTINGS_H

#include <math.h>
#include <stddef.h>

#include "crowd.h"
#include "names.h"

typedef struct crowdi_setting {
    crowd_setting info;
    size_t kept; /* where the rig keeps the value: an offset into the controller's part (kept as
                    a uint32_t or an enum for ENUM, bool, float, uint64_t for BITS64) */
} crowdi_setting;

#define CROWDI_FLOAT_SETTING(desc_t, part_t, kept_member, member, def, lo, lo_open, hi, hi_open, unit, doc)            \
    {{#member, CROWD_SETTING_FLOAT, offsetof(desc_t, member), sizeof(((desc_t *)0)->member) / sizeof(float), (def), (lo), \
      (hi), (lo_open), (hi_open), (unit), (doc), NULL},                                                                    \
     offsetof(part_t, kept_member)}
/* an enum whose names are names.h's crowdi_<stem>_names */
#define CROWDI_ENUM_SETTING(desc_t, part_t, kept_member, member, def, stem, count, doc)                                  \
    {{#member, CROWD_SETTING_ENUM, offsetof(desc_t, member), 1, (def), 0, (count) - 1, false, false, "", (doc),            \
      crowdi_##stem##_names},                                                                                              \
     offsetof(part_t, kept_member)}
#define CROWDI_BOOL_SETTING(desc_t, part_t, kept_member, member, def, doc)                                               \
    {{#member, CROWD_SETTING_BOOL, offsetof(desc_t, member), 1, (def), 0, 1, false, false, "", (doc), NULL},               \
     offsetof(part_t, kept_member)}
#define CROWDI_BITS64_SETTING(desc_t, part_t, kept_member, member, bits, doc)                                            \
    {{#member, CROWD_SETTING_BITS64, offsetof(desc_t, member), 1, 0, 0, (bits) - 1, false, false, "", (doc), NULL},        \
     offsetof(part_t, kept_member)}

typedef struct crowdi_writer crowdi_writer;
typedef struct crowdi_reader crowdi_reader;
struct crowd_engine;

/* The table's defaults into a desc (its other members untouched). */
void crowdi_settings_defaults(const crowdi_setting *rows, uint32_t count, void *desc);
/* crowd_rig_create's checks of rows [0, count) of the desc of controller `ctl` ("desc->blink->
 * mean (-1) must be in [0, 1e6] s"): CROWD_ERR_NOT_FINITE, CROWD_ERR_RANGE, CROWD_ERR_BAD_ENUM. */
crowd_result crowdi_settings_check(struct crowd_engine *engine, int ctl, const crowdi_setting *rows, uint32_t count,
                                   const void *desc);
/* Snapshots: rows [first, end) as the part keeps them, and back into a desc. */
void crowdi_settings_write(crowdi_writer *w, const crowdi_setting *rows, uint32_t first, uint32_t end, const void *part);
void crowdi_settings_read(crowdi_reader *rd, const crowdi_setting *rows, uint32_t first, uint32_t end, void *desc);
/* The value of a desc's ENUM or BOOL setting as the part keeps it. */
uint32_t crowdi_setting_u32(const crowdi_setting *row, const void *desc);

#endif
