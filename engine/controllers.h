/* The controller list: every controller a rig can have, each one unit — its module
 * engine/<name>.c (a crowdi_controller crowdi_controller_<name>: its part of the rig, its
 * hooks, its settings table and its fields' columns) and its kernel header kernels/<name>.h
 * (its view of the rig and its stage cvk_<name>(view, dt, i0, i1)). Rig creation, storage,
 * snapshots, the field rules and the tick loop over these lists; the build takes each
 * module and kernel header from CROWDI_CONTROLLER_LIST (engine/CMakeLists.txt) and
 * crowd_controller_name its name.
 *
 * CROWDI_CONTROLLER_LIST is the order of a rig's columns and of its settings in a snapshot
 * (and the bit of its flag there), and crowd.h's crowd_controller order: new controllers go at
 * its end. CROWDI_TICK_LIST is the order the tick runs the stages in (SPEC §1), and the order
 * of a new row's per-instance draws. A new controller touches: its module (with its own enums'
 * names: names.h's CROWDI_ENUM_NAMES_DEFINE), its kernel header (with its fields' rows:
 * CROWDI_<NAME>_FIELDS(X, ctl), which fields.c's table takes through the list here), one row
 * in each list here, and crowd.h (its desc with its crowd_rig_desc pointer, its
 * crowd_controller value, its crowd_field values, its enums); then the bindings regenerated
 * (bindings/generate.py). Plain C: the kernels read this header too. */
#ifndef CROWDI_CONTROLLERS_H
#define CROWDI_CONTROLLERS_H

#define CROWDI_CONTROLLER_LIST(X) \
    X(LOOK, look)                 \
    X(HARMONIC, harmonic)         \
    X(BLINK, blink)               \
    X(LIMBS, limbs)               \
    X(FACE, face)                 \
    X(PHYSICS, physics)           \
    X(LIPSYNC, lipsync)           \
    X(POSE, pose)                 \
    X(EXPRESSION, expression)     \
    X(FINGERS, fingers)           \
    X(MOTION, motion)

#define CROWDI_TICK_LIST(X)   \
    X(MOTION, motion)         \
    X(POSE, pose)             \
    X(EXPRESSION, expression) \
    X(BLINK, blink)         \
    X(FACE, face)           \
    X(LIPSYNC, lipsync)     \
    X(HARMONIC, harmonic)   \
    X(LOOK, look)           \
    X(PHYSICS, physics)     \
    X(LIMBS, limbs)         \
    X(FINGERS, fingers)

enum {
#define CROWDI_X_ENUM(NAME, name) CROWDI_CTL_##NAME,
    CROWDI_CONTROLLER_LIST(CROWDI_X_ENUM)
#undef CROWDI_X_ENUM
    CROWDI_CONTROLLER_COUNT
};

/* The tick order as controller indices; every controller is in it once. */
#define CROWDI_X_TICK(NAME, name) CROWDI_CTL_##NAME,
#define CROWDI_TICK_ORDER {CROWDI_TICK_LIST(CROWDI_X_TICK)}
#define CROWDI_X_ONE(NAME, name) +1
#ifdef __cplusplus
static_assert(0 CROWDI_TICK_LIST(CROWDI_X_ONE) == CROWDI_CONTROLLER_COUNT, "CROWDI_TICK_LIST lists every controller");
#else
_Static_assert(0 CROWDI_TICK_LIST(CROWDI_X_ONE) == CROWDI_CONTROLLER_COUNT, "CROWDI_TICK_LIST lists every controller");
#endif

#endif
