/* crowd render: where the avatars stand and how the camera sees them (for the tests too).
 *
 * Each of the first `count` instances stands on the ground plane (metres; +x right as seen,
 * +z away from the camera): a group with a "place" (scene.h scene_place) in its own block, the
 * others in one shared block of about sqrt(2.2 n) columns around x = 0 from z = 0, every other
 * row shifted half a place, each moved by up to 0.3 m (a fixed hash of its number), and turned
 * by up to 0.45 rad. A pinhole camera looks along +z from above the front: the front row fills
 * the width with its feet near the bottom, the back row's heads stay below `top` pixels, and
 * rows shrink toward the horizon as 1/depth. */
#ifndef CROWD_TOOLS_RENDER_H
#define CROWD_TOOLS_RENDER_H

#include <stdint.h>

#include "draw.h"
#include "world.h"

typedef struct render_spot {
    uint32_t instance;
    float x, z;               /* on the ground, metres */
    float yaw;                /* radians */
    float depth;              /* from the camera along its view, metres (> 0) */
    float scale;              /* pixels per metre there */
    float screen_x, screen_y; /* the feet, pixels */
} render_spot;

/* The spots of the first min(count, instances) instances, sorted back to front (depth
 * decreasing; equal depths by instance number): the order they are drawn in. *out is malloc'd;
 * *horizon is the horizon's screen y (negative: above the picture). */
int render_layout(const world *w, uint32_t count, uint32_t width, uint32_t height, float top, render_spot **out,
                  float *horizon);
/* The colours the avatars and the ground are drawn with (every GIF palette holds them exactly):
 * writes up to size of them, returns how many there are. */
uint32_t render_colours(rgb *out, uint32_t size);
/* The instance's look: shirt colour k % 12 and hair k / 12 of render_colours' sets. */
uint32_t render_look(uint32_t instance);

#endif
