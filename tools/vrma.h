/* VRM Animation out (`crowd pose CLIP --vrma FILE.vrma`): a glTF 2.0 binary (.glb) with the
 * VRMC_vrm_animation extension (specVersion 1.0), which @pixiv/three-vrm-animation, UniVRM and
 * other VRM 1.0 players load onto any VRM avatar.
 *
 * Rest pose (the file's nodes): VRM 1.0's normalised T-pose, glTF's right-handed frame, Y up,
 * the avatar facing +Z, metres: the T-pose of tools/vmc.h (its hands level with the arms, so a
 * VRM hand lies along its arm) turned to face +Z: engine (x, y, z) -> (x, y, -z); every node's
 * rest rotation the identity. The 15 body bones crowd solves, with VRM's humanoid names: hips
 * (root, 0.93 m up) > spine > head, spine > leftUpperArm > leftLowerArm > leftHand, hips >
 * leftUpperLeg > leftLowerLeg > leftFoot, and the same on the right (finger bones join them when
 * crowd solves fingers).
 * Animation: one, with a LINEAR rotation channel per bone: the VMC local rotation (tools/vmc.h)
 * taken from Unity's frame into glTF's, (x, y, z, w) -> (x, -y, -z, w); and for landmarks in
 * the engine frame (world positions) a translation channel on the hips: the pelvis (x, y, -z).
 * Expressions: with a blink controller (crowd run) the VRM presets blinkLeft and blinkRight (1 -
 * the eye opening, clamped to [0, 1]), each a node of its own outside the skeleton whose
 * translation x is the weight, as VRMC_vrm_animation has it.
 * Keyframe k at the clip's t_s[k] - t_s[0]. Written to FILE.tmp, renamed when complete. */
#ifndef CROWD_TOOLS_VRMA_H
#define CROWD_TOOLS_VRMA_H

#include <stdint.h>

#include "crowd.h"
#include "files.h"
#include "vmc.h"

typedef struct vrma_writer {
    vmc_sender *convert; /* the VMC conversion (no address) */
    const char *path;
    float *times, *rotations, *hips; /* [cap], [cap * 15 * 4], [cap * 3] */
    float *blink;                    /* [cap * 3 * 2]: blinkLeft's then blinkRight's translations */
    uint32_t count, cap;
    bool has_hips, has_blink;
} vrma_writer;

/* Prepares a writer for `frames` keyframes, solving the T-pose with the rig's limb settings.
 * TOOL_OK or TOOL_FAILED / TOOL_BAD_INPUT (printed). */
int vrma_open(vrma_writer *v, const char *path, const crowd_limbs_desc *limbs, uint32_t frames);
/* One keyframe: its time, the 15 world rotations, the landmarks as fed (in `frame`), and the face
 * (NULL: none; its blinks are written). */
void vrma_frame(vrma_writer *v, double t_s, const float world[CROWD_BONE_COUNT][4], const float *landmarks,
                crowd_pose_frame frame, const vmc_face *face);
/* Writes the file (FILE.tmp, renamed). TOOL_OK or TOOL_FAILED. Frees the writer. */
int vrma_finish(vrma_writer *v);
/* Frees a writer without writing. Safe on one never opened. */
void vrma_abort(vrma_writer *v);

#endif
