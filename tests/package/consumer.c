/* Builds against the installed header and library, ticks one avatar. */
#include <crowd.h>
#include <stdio.h>

int main(void) {
    crowd_engine *engine = NULL;
    if (crowd_engine_create(&(crowd_engine_desc){.seed = 1}, &engine) != CROWD_OK) return 1;
    crowd_parameter_desc param = {"ParamBreath", 0, 1, 0, false};
    crowd_harmonic_parameter_desc breath = crowd_harmonic_parameter_defaults("ParamBreath");
    crowd_harmonic_desc harmonic = crowd_harmonic_defaults();
    harmonic.parameters = &breath;
    harmonic.parameter_count = 1;
    crowd_rig rig;
    crowd_rig_desc desc = {.parameters = &param, .parameter_count = 1, .harmonic = &harmonic};
    crowd_instance avatar;
    if (crowd_rig_create(engine, &desc, &rig) != CROWD_OK ||
        crowd_instances_add(engine, &(crowd_add_desc){.rig = rig, .count = 1}, &avatar) != CROWD_OK ||
        crowd_tick(engine, 0.75f) != CROWD_OK)
        return 1;
    float out;
    crowd_get_outputs(engine, avatar, &out, 1);
    crowd_engine_destroy(engine);
    /* a quarter period of a centric breath on [0, 1] (origin 0.5, range 0.5): the top */
    printf("breath after a quarter period: %g\n", out);
    return out > 0.999f && out <= 1.0f ? 0 : 1;
}
