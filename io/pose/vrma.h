/* VRM Animation out (`crowd pose CLIP --vrma FILE.vrma`): a glTF 2.0 binary (.glb) with the
 * VRMC_vrm_animation extension (specVersion 1.0), which @pixiv/three-vrm-animation, UniVRM and
 * other VRM 1.0 players load onto any VRM avatar.
 *
 * Rest pose (the file's nodes): VRM 1.0's normalised T-pose, glTF's right-handed frame, Y up,
 * the avatar facing +Z, metres: the T-pose of tools/vmc.h (its hands level with the arms, so a
 * VRM hand lies along its arm) turned to face +Z: engine (x, y, z) -> (x, y, -z); every node's
 * rest rotation the identity. The 15 body bones crowd solves, with VRM's humanoid names: hips
 * (root, 0.93 m up) > spine > head, spine > leftUpperArm > leftLowerArm > leftHand, hips >
 * leftUpperLeg > leftLowerLeg > leftFoot, and the same on the right (with vrma_set_fingers the
 * finger bones under the hands: below).
 * Animation: one, with a LINEAR rotation channel per bone: the VMC local rotation (tools/vmc.h)
 * taken from Unity's frame into glTF's, (x, y, z, w) -> (x, -y, -z, w); and for landmarks in
 * the engine frame (world positions) a translation channel on the hips: the pelvis (x, y, -z).
 * Expressions (VRM presets, each a node of its own outside the skeleton whose translation x is
 * the weight, as VRMC_vrm_animation has it; every weight clamped to [0, 1]): with a blink
 * (crowd run's blink controller, face tracking) blinkLeft and blinkRight (1 - the eye opening);
 * with a mouth (the rig's ParamMouthOpenY: lip sync or face tracking; else face tracking's
 * jawOpen score) aa, the mouth opening, as VMC's A (tools/vmc.h).
 * LookAt (with a gaze: ParamEyeBallX/Y, from the look controller or face tracking): a node of its
 * own, VRMC_vrm_animation's lookAt, whose rotation is the eyes' turn from looking straight ahead:
 * VMC's eye rotation (tools/vmc.h) in glTF's frame, (x, -y, -z, w), i.e. Ry(30 deg * gaze x) *
 * Rx(-20 deg * gaze y); a player reads it as yaw 30 * gaze x degrees (+: the avatar's left) and
 * pitch -20 * gaze y (+: down), three-vrm's VRMLookAt convention.
 * Keyframe k at the clip's t_s[k] - t_s[0]. Keyframes are kept in memory (284 bytes each, 764 with
 * fingers) until
 * the file is written: at most VRMA_MAX_FRAMES (crowd stream's bound). Written to FILE.tmp,
 * renamed when complete. */
#ifndef CROWD_TOOLS_VRMA_H
#define CROWD_TOOLS_VRMA_H

#include <stdint.h>

#include "crowd.h"
#include "files.h"
#include "vmc.h"

typedef struct vrma_writer {
    vmc_sender *convert; /* the VMC conversion (no address) */
    const char *path;
    float *data; /* [cap * 71]: per keyframe its time, rotations, hips, blinks, mouth, gaze */
    uint32_t count, cap;
    bool has_hips, has_blink, has_mouth, has_gaze;
    bool full; /* VRMA_MAX_FRAMES reached (told once) */
    bool fingers;    /* vrma_set_fingers: 30 finger bones too */
    uint32_t stride; /* floats a keyframe */
} vrma_writer;

/* 2^19 keyframes: 4.8 hours at 30 frames a second, 149 MB. */
#define VRMA_MAX_FRAMES 524288u

/* Prepares a writer for `frames` keyframes (0: unknown; it grows to VRMA_MAX_FRAMES), solving the T-pose with the rig's limb settings.
 * TOOL_OK or TOOL_FAILED / TOOL_BAD_INPUT (printed). */
int vrma_open(vrma_writer *v, const char *path, const crowd_limbs_desc *limbs, uint32_t frames);
/* (frames > VRMA_MAX_FRAMES: TOOL_BAD_INPUT before anything is allocated.) */
/* One keyframe: its time, the 15 world rotations, the landmarks as fed (in `frame`), and the face
 * (NULL: none; its blinks, mouth and gaze are written). Past VRMA_MAX_FRAMES (a stream) the
 * keyframe is left out, with a warning the first time. TOOL_OK or TOOL_FAILED (out of memory,
 * printed). */
int vrma_frame(vrma_writer *v, double t_s, const float world[CROWD_BONE_COUNT][4], const float *landmarks,
               crowd_pose_frame frame, const vmc_face *face);
/* Fingers (crowd pose and stream --hands, crowd run of a rig with fingers): before the first
 * keyframe, adds the 30 finger bones with VRM 1.0's names (leftThumbMetacarpal ...
 * rightLittleDistal) under the hands, at vmc.h's T-pose hand, each with a rotation channel:
 * VMC's finger rotation (vmc.h) in glTF's frame, the hands' channels then the fingers' refined
 * hands. TOOL_OK or TOOL_FAILED / TOOL_BAD_INPUT (printed). */
int vrma_set_fingers(vrma_writer *v, const crowd_fingers_desc *fingers);
/* vrma_frame with the 32 hand bones' world rotations (CROWD_FIELD_FINGER_WORLD); `world`'s hand
 * rows the fingers' refined hands, as crowd pose --hands passes them. */
int vrma_frame_fingers(vrma_writer *v, double t_s, const float world[CROWD_BONE_COUNT][4],
                       const float fingers[CROWD_FINGER_BONE_COUNT][4], const float *landmarks, crowd_pose_frame frame,
                       const vmc_face *face);
/* Writes the file (FILE.tmp, renamed). TOOL_OK or TOOL_FAILED. Frees the writer. */
int vrma_finish(vrma_writer *v);
/* Frees a writer without writing. Safe on one never opened. */
void vrma_abort(vrma_writer *v);

#endif
