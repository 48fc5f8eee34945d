/* BVH motion files (SPEC §7 "BVH"), written by `crowd pose … --bvh FILE` and `crowd run … --bvh
 * FILE --instance K`, for Blender, three.js's BVHLoader and MotionBuilder.
 *
 * Frame: right-handed, as every BVH reader takes it: the engine frame with x negated (a mirror,
 * so the subject's left stays on the subject's left in Blender, three.js and MotionBuilder).
 * Y up, centimetres. Everything below is said in the engine frame and mirrored on write:
 * positions, OFFSETs and end sites (x, y, z) -> (-x, y, z), rotations (x, y, z, w) -> (x, -y, -z, w).
 *
 * Hierarchy: the 15 bones with Unity humanoid names:
 *   Hips (root) > Chest > Head > end site; Chest > {Left,Right}UpperArm > LowerArm > Hand > end
 *   site; Hips > {Left,Right}UpperLeg > LowerLeg > Foot > end site.
 * Each joint sits where its bone starts: Hips at the pelvis (mid-hips, landmarks 23/24), Chest
 * halfway from the pelvis to mid-shoulders, Head at mid-shoulders (the neck), arms at shoulder
 * 11/12, elbow 13/14, wrist 15/16; legs at hip 23/24, knee 25/26, ankle 27/28; end sites at
 * mid-ears (7/8), mid index/pinky (17/19, 18/20) and the foot index (31/32).
 *
 * Channels are the engine's LOCAL rotations (crowd.h CROWD_FIELD_BONE_LOCAL), so a joint's
 * OFFSET is given in its parent bone's frame: the rig's rest pose (crowd_rig_rest_pose on the
 * canonical rest landmarks, crowd_rest_landmarks) turned into the parent's rest frame,
 * OFFSET = inverse(parent rest world) * (joint - parent joint). With channels all zero the
 * figure is therefore not a T-pose (every bone lies along its own axis); with the engine's
 * rotations it is the tracked pose. Bone lengths: the median over the clip's frames in which
 * both ends are seen (visibility >= 0.5) of the distance between the two points; a segment never
 * seen keeps the canonical rest pose's length (the documented default).
 *
 * Hips: 6 channels `Xposition Yposition Zposition Zrotation Xrotation Yrotation`, every other
 * joint 3 `Zrotation Xrotation Yrotation` (R = Rz * Rx * Ry, degrees). The root position is the
 * pelvis in the engine frame (+y up), in cm; landmarks in the mediapipe_world frame are
 * hip-centred, so for them the rest pose's hip height is added, putting the feet near y = 0.
 * Frame Time: `crowd pose` the clip's mean interval ((last t_s - first t_s) / (rows - 1); 1/30 s
 * for a one-row clip), `crowd run` the scene's dt. Written to FILE.tmp, renamed when complete. */
#ifndef CROWD_TOOLS_BVH_H
#define CROWD_TOOLS_BVH_H

#include <stdbool.h>
#include <stdint.h>

#include "clip.h"
#include "crowd.h"
#include "hand_track.h"
#include "trace.h"

typedef struct bvh_skeleton {
    double offset[CROWD_BONE_COUNT][3]; /* cm, in the parent bone's frame (the hips': 0) */
    double end[CROWD_BONE_COUNT][3];    /* end sites (head, hands, feet), cm, in the bone's frame */
    double lift;                        /* cm added to the root's y */
    bool hands;                         /* finger joints under the hands (bvh_skeleton_hands) */
    double finger_offset[CROWD_FINGER_BONE_COUNT][3]; /* cm, in the parent's frame (index as the fields') */
    double finger_end[CROWD_FINGER_BONE_COUNT][3];    /* the distal bones' end sites (fingertips) */
} bvh_skeleton;

/* Fingers (crowd pose --hands): under each Hand its 15 finger joints, with VRM 1.0's names in
 * Unity's spelling (LeftThumbMetacarpal, LeftThumbProximal, LeftThumbDistal, LeftIndexProximal,
 * LeftIndexIntermediate, LeftIndexDistal, ... LeftLittleDistal; note Unity's own thumb names
 * are one joint further out), each finger a chain ending at its tip's end site; the Hand then
 * has no end site. A finger joint sits at its bone's first landmark (thumb 1, 2, 3; index 5, 6,
 * 7; middle 9; ring 13; little 17, ...), the tip at 4, 8, 12, 16, 20; OFFSETs as the body's:
 * the rest hand (crowd_rest_hand_landmarks) in the parent's rest frame (its solve with the rig's
 * finger settings: crowd_rig_rest_hands of a rig with fingers only),
 * lengths the median over the hand frames with presence >= 0.5 (else the rest hand's). The Hand
 * joint's channels are then the fingers' refined hand (CROWD_FIELD_FINGER_LOCAL's hand). */
int bvh_skeleton_hands(bvh_skeleton *sk, const crowd_fingers_desc *fingers, const hand_track *hands);

/* The skeleton of a limbs rig: rest rotations from the engine, lengths from the clip (NULL: the
 * rest pose's). */
int bvh_skeleton_make(bvh_skeleton *sk, crowd_engine *engine, crowd_rig rig, crowd_pose_frame frame,
                      const pose_clip *clip);

#define BVH_MAX_JOINTS (CROWD_BONE_COUNT + CROWD_FINGER_BONE_COUNT)
typedef struct bvh_file {
    trace_file out;
    crowd_pose_frame frame;
    double lift;
    int order[BVH_MAX_JOINTS]; /* the joints as written: a crowd_bone, or 100 + a finger bone index */
    int joints;
} bvh_file;

/* Writes the hierarchy and the MOTION header for `frames` frames of frame_time seconds. */
int bvh_open(bvh_file *b, const char *path, const bvh_skeleton *sk, crowd_pose_frame frame, uint32_t frames,
             double frame_time);
/* One frame: the instance's landmarks (as fed, in `frame`: they give the root position) and its
 * 15 local rotations (x, y, z, w) in the engine frame (mirrored here). */
void bvh_frame(bvh_file *b, const float landmarks[CLIP_FLOATS], const float local[CROWD_BONE_COUNT][4]);
/* The same with the 32 hand bones' local rotations (CROWD_FIELD_FINGER_LOCAL; NULL: no hands) for
 * a skeleton with hands; `local`'s hand rows then are the fingers' refined hands. */
void bvh_frame_hands(bvh_file *b, const float landmarks[CLIP_FLOATS], const float local[CROWD_BONE_COUNT][4],
                     const float (*fingers)[4]);
int bvh_finish(bvh_file *b);
void bvh_abort(bvh_file *b);

/* q (x, y, z, w; normalised here) as ZXY Euler degrees: R = Rz(z) * Rx(x) * Ry(y). */
void bvh_euler_zxy(const float q[4], double *z_deg, double *x_deg, double *y_deg);

#endif
