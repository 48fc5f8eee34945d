/* The field table: every crowd_field's name, the controller whose columns hold it, its
 * component count, which indices it has, its value rule and whether callers may write it.
 * crowd_instances_set/get, crowd_rig_column and snapshot loading read their checks from it
 * (fields.c); the controller's field_column hook says where a field's values are. The engine's
 * own fields are rows here; a controller's are rows in its kernel header (CROWDI_<NAME>_FIELDS),
 * and every field is a value in crowd.h's crowd_field. */
#ifndef CROWDI_FIELDS_H
#define CROWDI_FIELDS_H

/* Which indices a field has: none (index ignored), one per parameter, per entry of its
 * controller (crowdi_controller.entry_count: the harmonic entries), per bone, per hand or per
 * finger bone (both hands'). */
enum { CROWDI_INDEX_NONE, CROWDI_INDEX_PARAMETER, CROWDI_INDEX_ENTRY, CROWDI_INDEX_BONE, CROWDI_INDEX_HAND,
       CROWDI_INDEX_FINGER_BONE };

/* Value rules (fields.c words and checks them; every rule includes "finite"). */
typedef enum crowdi_rule {
    CROWDI_RULE_FINITE,
    CROWDI_RULE_WEIGHT,       /* [0, 1] */
    CROWDI_RULE_SECONDS,      /* [0, 1e6] */
    CROWDI_RULE_FRACTION,     /* within +-1000 */
    CROWDI_RULE_PHASE,        /* [0, the entry's duration] */
    CROWDI_RULE_COORD,        /* within +-1e15 */
    CROWDI_RULE_LOOK_POS,     /* within +-1e18 */
    CROWDI_RULE_LOOK_VEL,     /* within +-1e24 */
    CROWDI_RULE_AT_MOST_ONE,  /* <= 1 */
    CROWDI_RULE_SWITCH,       /* 0 or 1 */
    CROWDI_RULE_MANUAL,       /* [0, 1] or -1 */
    CROWDI_RULE_OWN,          /* discrete values its controller's field_value hook checks and words */
    CROWDI_RULE_POSE,         /* coordinates within +-1e9, every 4th a visibility in [0, 1] */
    CROWDI_RULE_HAND,         /* 63 coordinates within +-1e9, then a presence in [0, 1] */
    CROWDI_RULE_QUAT,         /* finite, and the whole value a unit quaternion */
    CROWDI_RULE_MULTIPLIER,   /* [0, 100] */
    CROWDI_RULE_LOD_INTERVAL, /* 1, 2, 4 or 8 */
    CROWDI_RULE_LOD_ELAPSED,  /* [0, 16] */
    CROWDI_RULE_OUTPUT        /* written by the tick only */
} crowdi_rule;

#define CROWDI_CTL_NONE (-1)
/* X(FIELD, name, controller, width, indices, rule, writable): the engine's own fields (no
 * controller's: fields.c gives their columns). Every controller lists its fields in its kernel
 * header as CROWDI_<NAME>_FIELDS(X, ctl), rows of the same form with its CROWDI_CTL_<NAME> as
 * ctl, and its field_column hook gives their columns; fields.c's table takes those lists
 * through controllers.h's CROWDI_CONTROLLER_LIST. */
#define CROWDI_ENGINE_FIELDS(X)                                                                            \
    X(BASE, "base", CROWDI_CTL_NONE, 1, CROWDI_INDEX_PARAMETER, CROWDI_RULE_FINITE, true)                  \
    X(OUTPUT, "output", CROWDI_CTL_NONE, 1, CROWDI_INDEX_PARAMETER, CROWDI_RULE_OUTPUT, false)             \
    X(LOD_INTERVAL, "lod_interval", CROWDI_CTL_NONE, 1, CROWDI_INDEX_NONE, CROWDI_RULE_LOD_INTERVAL, true) \
    X(LOD_ELAPSED, "lod_elapsed", CROWDI_CTL_NONE, 1, CROWDI_INDEX_NONE, CROWDI_RULE_LOD_ELAPSED, true)

#endif
