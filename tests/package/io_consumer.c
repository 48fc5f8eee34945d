/* Builds against the installed crowd_io.h and libcrowd_io: 16 avatars of the default crowd,
 * fed and ticked for three frames as crowd run does. */
#include <crowd.h>
#include <crowd_io.h>
#include <stdio.h>
#include <string.h>

int main(void) {
    if (crowd_io_version() != CROWD_IO_VERSION) return 1; /* the header and the library agree */
    crowd_io_scene *scene = NULL;
    crowd_io_world *world = NULL;
    if (crowd_io_default_crowd(&scene) != CROWD_IO_OK) return 1;
    int ok = strcmp(crowd_io_scene_path(scene), "(default crowd)") == 0 && crowd_io_scene_frames(scene) == 600 &&
             crowd_io_world_create_range(scene, CROWD_SIMD_AUTO, 1, 0, 16, &world) == CROWD_IO_OK &&
             crowd_io_world_instance_count(world) == 16;
    float dt = ok ? crowd_io_scene_dt(scene) : 0.0f;
    for (uint32_t k = 1; ok && k <= 3; k++) {
        crowd_io_world_prepare_frame(world, k, dt);
        ok = crowd_tick(crowd_io_world_engine(world), dt) == CROWD_OK;
    }
    if (ok) printf("16 avatars of the default crowd after 3 frames: checksum %016llx\n",
                   (unsigned long long)crowd_io_world_checksum(world));
    crowd_io_world_destroy(world);
    crowd_io_scene_free(scene);
    /* a bad argument is refused with a message, and nothing is returned */
    crowd_io_scene *none = scene;
    if (ok && (crowd_io_scene_load("no-such-scene.json", &none) != CROWD_IO_BAD_INPUT || none)) ok = 0;
    return ok ? 0 : 1;
}
