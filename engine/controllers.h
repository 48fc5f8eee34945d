/* The controller table: every controller a rig can have, each one module (engine/<name>.c)
 * reached through one crowdi_controller description. Rig creation, storage, snapshots and the
 * field rules loop over this table; the order is the order of a rig's columns and of its
 * settings in a snapshot (and the bit of its flag there), so new controllers go at the end.
 * The tick's order of stages is CROWDI_TICK_ORDER below.
 *
 * A new controller: its module engine/<name>.c (a crowdi_controller crowdi_controller_<name>)
 * and CMake source line; its stage kernels/<name>.h (cvk_<name>(view, dt, i0, i1), included
 * and listed in kernels/stages.h's cvk_tick) with its view settings and column enum in
 * kernels/kernel_table.h; a row here and in CROWDI_TICK_ORDER; its fields' rows in
 * fields.h; its desc and fields in crowd.h. */
#ifndef CROWDI_CONTROLLERS_H
#define CROWDI_CONTROLLERS_H

#define CROWDI_CONTROLLER_LIST(X) \
    X(LOOK, look)                 \
    X(HARMONIC, harmonic)         \
    X(BLINK, blink)               \
    X(LIMBS, limbs)               \
    X(FACE, face)

enum {
#define CROWDI_X_ENUM(NAME, name) CROWDI_CTL_##NAME,
    CROWDI_CONTROLLER_LIST(CROWDI_X_ENUM)
#undef CROWDI_X_ENUM
    CROWDI_CONTROLLER_COUNT
};

/* The order the tick runs the stages in (SPEC §1; kernels/stages.h's cvk_tick is the same
 * list): a new row's per-instance draws are made in this order too. */
#define CROWDI_TICK_ORDER {CROWDI_CTL_BLINK, CROWDI_CTL_FACE, CROWDI_CTL_HARMONIC, CROWDI_CTL_LOOK, CROWDI_CTL_LIMBS}

#endif
