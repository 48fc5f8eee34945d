/* crowd_physics.h — a Cubism physics rig (.physics3.json) as plain data.
 *
 * The physics controller (issue 26) will take this description once per rig, as the engine
 * takes crowd_rig_desc; the tools fill it from a .physics3.json (tools/physics3.c), and the
 * per-object yardstick in bench/ steps it the framework's way. It lives here, beside crowd.h,
 * so that all three reach it without bench/ or the engine depending on tools/. It holds no
 * pointers into a file and allocates nothing: whoever fills it owns the arrays.
 *
 * The numbers are the file's, read as double and kept as double (the framework keeps JS
 * doubles; a float32 consumer rounds each once). Ids are parameter ids, resolved against a rig's
 * parameters by the consumer.
 *
 * What the Cubism Framework (CubismPhysics, 5-r.4) does with each field:
 *   - a sub-rig ("PhysicsSettings" entry) sums its inputs into one translation (X, Y) and one
 *     angle (Angle), each input normalised into the sub-rig's Position / Angle normalisation
 *     around the parameter range's MIDPOINT and scaled by weight / 100 (negated unless reflect);
 *   - the translation is rotated by -angle, moves particle 0, and the chain of particles
 *     1 .. count-1 swings as a pendulum (mobility, delay, acceleration, radius; `position` of
 *     the file is read but the framework starts the chain at (0, sum of the radii));
 *   - an output reads particle vertex (1 .. count-1): Angle = the direction of
 *     particle[v] - particle[v-1] relative to the parent segment (or to -gravity for v = 1),
 *     times `scale`; X and Y outputs are always 0 in the framework (it reads `Scale` only into
 *     the angle scale), clamped to the parameter's range, blended by weight / 100;
 *   - `fps` > 0 (Meta.Fps) steps the pendulum at 1/fps and interpolates; 0 steps once per call;
 *   - `gravity` / `wind` (Meta.EffectiveForces) are read but the framework's create() leaves the
 *     pendulum on its Options (gravity (0, -1), wind (0, 0)); a consumer chooses.
 */
#ifndef CROWD_PHYSICS_H
#define CROWD_PHYSICS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Limits a reader refuses beyond (SPEC §6: documented maxima, checked before allocating). */
#define CROWD_PHYSICS_MAX_SUBRIGS 1024u
#define CROWD_PHYSICS_MAX_INPUTS 64u    /* per sub-rig */
#define CROWD_PHYSICS_MAX_OUTPUTS 64u   /* per sub-rig */
#define CROWD_PHYSICS_MAX_PARTICLES 64u /* per sub-rig */
#define CROWD_PHYSICS_MAX_FPS 1000.0

/* An input's or output's kind: the physics3 "Type" "X", "Y" or "Angle". */
typedef enum crowd_physics_type {
    CROWD_PHYSICS_X = 0,
    CROWD_PHYSICS_Y = 1,
    CROWD_PHYSICS_ANGLE = 2
} crowd_physics_type;

typedef struct crowd_physics_input {
    const char *parameter; /* Source.Id */
    double weight;         /* Weight, in percent (0 .. 100) */
    crowd_physics_type type;
    int reflect; /* Reflect: 1 keeps the normalised value's sign, 0 negates it (as the framework) */
} crowd_physics_input;

typedef struct crowd_physics_output {
    const char *parameter; /* Destination.Id */
    uint32_t vertex;       /* VertexIndex: 1 .. the sub-rig's particle_count - 1 */
    double scale;          /* Scale (the angle scale) */
    double weight;         /* Weight, in percent (0 .. 100) */
    crowd_physics_type type;
    int reflect;
} crowd_physics_output;

typedef struct crowd_physics_particle {
    double mobility, delay, acceleration, radius;
    double position[2]; /* Position (x, y): read, unused by the framework's stepping */
} crowd_physics_particle;

typedef struct crowd_physics_range {
    double minimum, default_value, maximum;
} crowd_physics_range;

/* One "PhysicsSettings" entry: its inputs, outputs and particles are the ranges
 * [first, first + count) of the rig's arrays. */
typedef struct crowd_physics_subrig {
    uint32_t input_first, input_count;
    uint32_t output_first, output_count;
    uint32_t particle_first, particle_count; /* >= 2 when it has outputs */
    crowd_physics_range position, angle;     /* Normalization.Position / .Angle */
} crowd_physics_subrig;

typedef struct crowd_physics_desc {
    uint32_t subrig_count, input_count, output_count, particle_count;
    const crowd_physics_subrig *subrigs;
    const crowd_physics_input *inputs;
    const crowd_physics_output *outputs;
    const crowd_physics_particle *particles;
    double fps;        /* Meta.Fps; 0 when absent (one step per call) */
    double gravity[2]; /* Meta.EffectiveForces.Gravity (0, 0 when absent) */
    double wind[2];    /* Meta.EffectiveForces.Wind */
} crowd_physics_desc;

#ifdef __cplusplus
}
#endif

#endif
