/* The built-in default crowd of `crowd run` without a scene: 10,000 avatars of a Cubism-style
 * face rig (ParamAngleX/Y/Z, ParamEyeBallX/Y, ParamBodyAngleX/Y/Z, ParamBreath,
 * ParamEyeLOpen/ROpen, ParamMouthOpenY with Cubism's standard ranges), in two groups whose gaze
 * targets move (look keys, jittered per instance), random harmonic phases, random blink starts,
 * and full-body limbs driven by the built-in walk cycle (bench/walk.h, engine frame) started at
 * a random offset per instance. 600 frames at dt 1/60. */
#ifndef CROWD_TOOLS_DEFAULT_CROWD_H
#define CROWD_TOOLS_DEFAULT_CROWD_H

#include "clip.h"
#include "scene.h"

#define DEFAULT_CROWD_INSTANCES 10000u

int default_crowd_scene(scene *s);
/* The built-in walk (bench/walk.h) as a pose clip: 33 rows at 30 fps (a 1.1 s loop), engine
 * frame (+y up, facing +z, the subject's right at +x), metres, origin between the hips,
 * visibility 1. */
int default_walk_clip(pose_clip *clip);

#endif
