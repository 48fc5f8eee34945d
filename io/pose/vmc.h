/* VMC (SPEC §7): the Virtual Motion Capture protocol, OSC over UDP, sent as a performer sends it
 * (to a marionette: VSeeFace, VMagicMirror, Warudo, VirtualMotionCapture, EVMC4U in Unity; they
 * listen on port 39539 by default). OSC is encoded by liblo.
 *
 * Each frame is one OSC bundle (timetag "immediately") holding, in this order:
 *   /VMC/Ext/Root/Pos  s "root", f px py pz (0), f qx qy qz qw (identity), f sx sy sz (1),
 *                      f ox oy oz (0)            (VMC 2.1's long form: scale and MR offset)
 *   /VMC/Ext/Bone/Pos  s NAME, f px py pz, f qx qy qz qw    once per bone, names below
 *   /VMC/Ext/Bone/Pos  s "LeftEye", s "RightEye" (with a gaze: face tracking's eye direction, or
 *                      crowd run's ParamEyeBallX/Y with a look controller or face tracking)
 *   /VMC/Ext/Blend/Val s NAME f v ...; /VMC/Ext/Blend/Apply    (with a blink controller, a mouth
 *                      parameter ParamMouthOpenY or a face)
 *   /VMC/Ext/OK        i 1 (loaded), i 3 (calibrated), i 0 (normal calibration mode), i 1 (tracking)
 *   /VMC/Ext/T         f the frame's time in seconds
 * --vmc-send bones,fingers,face,eyes (default all) picks the groups: bones (Root/Pos and the body
 * bones), fingers (the 30 finger bones, with hands: below), face (the blend shapes),
 * eyes (LeftEye, RightEye); OK and T always go. Sending only some lets a VMC Assistant add, say,
 * the face to a full-body tracker's bones.
 * Blend shape names (--vmc-blend): vrm0 (default) the VRM 0.x presets: Blink_L, Blink_R (1 - the
 * eye opening), A (the mouth opening: face tracking's ParamMouthOpenY, else jawOpen), and with
 * face tracking's scores I = mean(mouthStretchLeft, mouthStretchRight), U = mouthPucker, E =
 * mean(mouthLowerDownLeft, mouthLowerDownRight), O = mouthFunnel; arkit the ARKit "perfect sync"
 * names: with face tracking its 51 scores by their own (ARKit) names (MediaPipe's _neutral left
 * out; tongueOut, which MediaPipe lacks, is not sent), else eyeBlinkLeft, eyeBlinkRight and jawOpen
 * from the blink controller. Every value is clamped to [0, 1].
 * Eyes: the local rotation of each eye in its head, Ry(-30 deg * gaze x) * Rx(-20 deg * gaze y)
 * in Unity's frame (gaze x = ParamEyeBallX, +1 toward the subject's left; y = ParamEyeBallY, +1
 * up: face tracking's eye direction); positions (-+0.04, 0.03, 0.075) from the head.
 * Hips position: for landmarks in the engine frame (world positions) the pelvis (mid-hips) in
 * Unity's frame (-x, y, -z); for hip-centred mediapipe_world landmarks the T-pose's (below).
 * Bone names (Unity HumanBodyBones) for the engine's bones in crowd_bone order: Hips, Spine,
 * Head, LeftUpperArm, LeftLowerArm, LeftHand, RightUpperArm, RightLowerArm, RightHand,
 * LeftUpperLeg, LeftLowerLeg, LeftFoot, RightUpperLeg, RightLowerLeg, RightFoot. The engine's
 * chest goes to Spine: Unity's humanoid requires Spine and leaves Chest optional, so every receiving
 * avatar has it, and the bones between it and the head or the upper arms (Chest, UpperChest,
 * Neck, Shoulders), which are not sent, keep their rest rotation and carry it on.
 *
 * Rotations. A receiver applies each rotation as the bone's local rotation in a normalised
 * humanoid (VRM): every bone's rest rotation is the identity in a T-pose, the avatar faces +Z,
 * Y up, left-handed. The engine's world rotation W[b] of bone b becomes:
 *   1. A[b] = W[b] * inverse(B[b]): the turn from the T-pose, where B[b] is the engine's world
 *      rotation for the T-pose below, solved with the same limb settings (so the axis fix
 *      cancels out).
 *   2. U[b] = (-A.x, A.y, -A.z, A.w): the same turn in Unity's frame. Landmarks read as
 *      mediapipe_world (x to the image's right, y negated to point up, z away from the camera)
 *      are already in a left-handed frame with Unity's axes (a Unity camera looking along +Z), so
 *      no mirror is needed and the numbers of a rotation keep their meaning; only the facing
 *      changes: the tracked subject faces the camera (-Z), a Unity humanoid faces +Z, and
 *      conjugating by 180 degrees about Y, (0, 1, 0, 0) * A * (0, -1, 0, 0), negates x and z.
 *      (Landmarks given in the engine frame are taken to be in that same frame.)
 *   3. Local rotation sent = inverse(U[parent]) * U[b] along the engine's hierarchy (hips ->
 *      chest -> head and upper arms, hips -> upper legs, upper -> lower -> hand or foot; the
 *      hips' parent is the root, identity), reported with w >= 0, computed in double and
 *      rounded to float32 once.
 * Back again: U = the products of the locals down the hierarchy, A = (-U.x, U.y, -U.z, U.w),
 * W = A * B.
 *
 * The T-pose (engine frame, metres, left side; the right side mirrors x; visibility 1): the
 * rest pose of crowd_rest_landmarks with the legs straight, the feet flat, the arms straight
 * out to the sides (palms down, thumbs forward; the hands level with the arms, as a VRM
 * T-pose has them, so a hand in line with its forearm is sent as no turn): nose (0, 0.66, -0.10), eye inner (0.03, 0.69,
 * -0.075), eye (0.04, 0.69, -0.075), eye outer (0.05, 0.69, -0.07), ear (0.075, 0.66, 0), mouth
 * (0.02, 0.62, -0.085), shoulder (0.18, 0.50, 0), elbow (0.46, 0.50, 0), wrist (0.72, 0.50, 0),
 * pinky (0.80, 0.50, 0.03), index (0.81, 0.50, -0.03), thumb (0.77, 0.50, -0.06), hip (0.10, 0,
 * 0), knee (0.10, -0.45, 0), ankle (0.10, -0.88, 0), heel (0.10, -0.93, 0.04), foot index (0.10,
 * -0.93, -0.13).
 *
 * Fingers (crowd pose --hands; vmc_set_fingers): after the body bones, per hand (left, then
 * right) its 15 finger bones with Unity's HumanBodyBones names, which for the thumb are one
 * joint off VRM 1.0's: VRM thumbMetacarpal is sent as LeftThumbProximal, thumbProximal as
 * LeftThumbIntermediate, thumbDistal as LeftThumbDistal; the other fingers' Proximal,
 * Intermediate and Distal are VRM's. The hand bones sent are then the fingers' refined hands
 * (crowd.h section 9a). Rotations as the body's (steps 1-3, the hand the first bone's parent,
 * each bone the next one's) against the T-pose hand: flat, palm down, fingers straight along the
 * arm, the thumb straight and 45 degrees forward of the arm in the horizontal plane (as VRM and
 * Unity's humanoid T-pose have it); left hand, engine frame, metres from the wrist (the right
 * mirrors x): thumb 1-4 (0.02, 0, -0.02) + k * (0.025, 0, -0.025), index 5-8 x 0.09, 0.13, 0.155,
 * 0.175 at z -0.03, middle 9-12 x 0.09, 0.135, 0.16, 0.185 at z -0.01, ring 13-16 x 0.085,
 * 0.125, 0.15, 0.17 at z 0.01, little 17-20 x 0.08, 0.11, 0.13, 0.145 at z 0.03; y 0.
 * Positions: each finger bone's joint from its parent's in that T-pose, Unity's frame.
 * Positions: the root at the origin; each bone's joint's offset from its parent's in that T-pose,
 * in Unity's frame: the hips between the hip landmarks, 0.93 m above the floor; Spine 0.10 m
 * above them; Head between the ears; arms at shoulder, elbow and wrist; legs at hip, knee, ankle. Receivers that copy bone positions onto their own
 * avatar take these proportions; most use the rotations only. */
#ifndef CROWD_TOOLS_VMC_H
#define CROWD_TOOLS_VMC_H

#include <stdbool.h>

#include "crowd.h"

#define VMC_RECEIVER_PORT 39539

typedef struct vmc_sender vmc_sender;

/* Unity humanoid name of an engine bone. */
const char *vmc_bone_name(crowd_bone bone);
/* The T-pose's 33 landmarks (x, y, z, visibility) in `frame`. */
void vmc_tpose_landmarks(crowd_pose_frame frame, float out[CROWD_LANDMARK_COUNT * 4]);

/* Opens a sender to "HOST:PORT" (an IPv4 address or a name, resolved here; liblo sends over IPv4). The T-pose is solved once
 * with `limbs` (as the instance's rig has them). TOOL_OK, TOOL_BAD_INPUT (flag is named in the
 * message) or TOOL_FAILED. */
int vmc_open(vmc_sender **out, const char *flag, const char *host_port, const crowd_limbs_desc *limbs);
/* Sends one frame: the 15 world rotations (crowd_bone order, from CROWD_FIELD_BONE_WORLD), the
 * frame's time, and the eye opening (the blink controller's, or NULL: none): vmc_send_frame with
 * those. TOOL_OK or TOOL_FAILED. */
int vmc_send(vmc_sender *s, const float world[CROWD_BONE_COUNT][4], double t_s, const float *eye_opening);
/* Sends named blend-shape values (face tracking's parameters, named by their parameter ids):
 * one bundle of /VMC/Ext/Blend/Val s NAME f VALUE per value, /VMC/Ext/Blend/Apply, /VMC/Ext/OK
 * and /VMC/Ext/T. TOOL_OK or TOOL_FAILED. */
int vmc_send_blends(vmc_sender *s, const char *const *names, const float *values, unsigned count, double t_s);
/* What is sent and how blend shapes are named (see above): --vmc-send and --vmc-blend. */
enum { VMC_SEND_BONES = 1, VMC_SEND_FINGERS = 2, VMC_SEND_FACE = 4, VMC_SEND_EYES = 8, VMC_SEND_ALL = 15 };
typedef enum vmc_blend_names { VMC_BLEND_VRM0, VMC_BLEND_ARKIT } vmc_blend_names;
typedef struct vmc_settings {
    unsigned send; /* VMC_SEND_* bits */
    vmc_blend_names blend;
    const char *chosen; /* NULL, or the last of --vmc-send / --vmc-blend given (for vmc_settings_check) */
} vmc_settings;
vmc_settings vmc_settings_defaults(void);
/* --vmc-send and --vmc-blend only go with --vmc: TOOL_OK, or TOOL_BAD_INPUT (printed, naming
 * `command`) when one was given and `vmc` (the --vmc target) is NULL. */
int vmc_settings_check(const vmc_settings *s, const char *command, const char *vmc);
/* Applies the settings to an open sender (vmc_open starts with the defaults). */
void vmc_configure(vmc_sender *s, const vmc_settings *settings);

#define VMC_EYE_YAW_DEG 30.0   /* gaze x = 1 */
#define VMC_EYE_PITCH_DEG 20.0 /* gaze y = 1 */

/* The face of a frame, any part of it absent. */
typedef struct vmc_face {
    const float *scores; /* NULL or CROWD_FACE_SCORE_COUNT face tracking scores (MediaPipe's order) */
    float blink[2];      /* left, right: 0 open, 1 closed */
    float mouth;         /* 0 closed, 1 open */
    float gaze[2];       /* x: +1 toward the subject's left, y: +1 up, in [-1, 1] */
    bool has_blink, has_mouth, has_gaze;
} vmc_face;

typedef struct vmc_frame {
    const float (*world)[4];  /* NULL: no bones; else CROWD_BONE_COUNT world rotations */
    const float *landmarks;   /* NULL or the 132 values as fed (the hips' position) ... */
    crowd_pose_frame frame;   /* ... in this frame */
    const vmc_face *face;     /* NULL: none */
    double t_s;
    const float (*fingers)[4]; /* NULL: no hands; else CROWD_FINGER_BONE_COUNT world rotations
                                  (CROWD_FIELD_FINGER_WORLD), sent after vmc_set_fingers */
} vmc_frame;
/* Solves the T-pose hand (above) with the rig's finger settings, so frames with fingers send the
 * finger bones. TOOL_OK, TOOL_BAD_INPUT or TOOL_FAILED (printed). */
int vmc_set_fingers(vmc_sender *s, const crowd_fingers_desc *fingers);
/* Finger bone i's T-pose offset from its parent's joint (Unity's frame, m; the hands': 0). */
void vmc_finger_offset(const vmc_sender *s, int i, float out[3]);
/* Unity's HumanBodyBones name of finger bone i (hand * 16 + crowd_hand_bone; the hand: LeftHand). */
const char *vmc_finger_name(int i);
/* The local rotations (Unity's frame) vmc_send_frame sends for the fingers: out[i] for the 32 hand
 * bones (the hands' too), given the body's world rotations. */
void vmc_convert_fingers(const vmc_sender *s, const float world[CROWD_BONE_COUNT][4],
                         const float fingers[CROWD_FINGER_BONE_COUNT][4], float out[CROWD_FINGER_BONE_COUNT][4]);
/* Sends one bundle: what the frame has and the settings ask for. TOOL_OK or TOOL_FAILED. */
int vmc_send_frame(vmc_sender *s, const vmc_frame *f);
/* An eye's local rotation (Unity's frame, x y z w) for a gaze. */
void vmc_eye_rotation(const float gaze[2], float q[4]);

/* The local rotations vmc_send would send for these world rotations (see above). */
void vmc_convert(const vmc_sender *s, const float world[CROWD_BONE_COUNT][4], float local[CROWD_BONE_COUNT][4]);
void vmc_close(vmc_sender *s);
/* A sender that only converts (vmc_convert, vmc_rest_offset): no address. */
int vmc_converter_open(vmc_sender **out, const crowd_limbs_desc *limbs);
/* Bone b's T-pose offset from its parent's joint (the hips': from the floor), Unity's frame, m. */
void vmc_rest_offset(const vmc_sender *s, int bone, float out[3]);
/* The parent of bone b in the hierarchy sent (crowd_bone order), -1 for the hips. */
int vmc_bone_parent(int bone);

/* Sleeps until `seconds` after the first call on this pacer (CLOCK_MONOTONIC, absolute, so no
 * drift builds up): --realtime. */
typedef struct vmc_pacer {
    bool started;
    double t0_s;        /* the first frame's t_s */
    long long start_ns; /* when it was paced */
} vmc_pacer;
void vmc_pace(vmc_pacer *p, double t_s);

#endif
