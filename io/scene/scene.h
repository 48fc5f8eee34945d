/* A scene in memory: rigs (engine descs ready to pass to crowd_rig_create) and groups of
 * instances with their look keys, phases, blink starts and pose clips. Filled by the JSON
 * reader (scene_load) or in code (default_crowd_scene). SPEC §7 gives the file format. */
#ifndef CROWD_TOOLS_SCENE_H
#define CROWD_TOOLS_SCENE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clip.h"
#include "crowd.h"
#include "face_track.h"
#include "hand_track.h"

typedef struct scene_rig {
    const char *name;
    const crowd_parameter_desc *parameters; /* ids owned by the scene (or static) */
    uint32_t parameter_count;
    /* A controller is present when its pointer in rig_desc is set. */
    crowd_look_desc look;
    const crowd_look_parameter_desc *look_parameters;
    crowd_harmonic_desc harmonic;
    const crowd_harmonic_parameter_desc *harmonic_parameters;
    float channel_timescales[CROWD_MAX_CHANNELS];
    crowd_blink_desc blink;
    const char *const *blink_parameters;
    crowd_limbs_desc limbs;
    bool has_fingers;         /* fingers (crowd.h section 9a): the 30 finger bones from hand tracks */
    crowd_fingers_desc fingers;
    bool has_face;            /* face tracking (crowd.h section 11): face, its mapping below */
    crowd_face_desc face;
    const crowd_face_mapping_desc *face_mapping;
    bool has_physics;         /* Cubism physics (crowd.h section 12): the rig from a .physics3.json */
    crowd_physics_desc physics;
    bool has_lipsync;         /* lip sync (crowd.h section 13) */
    crowd_lipsync_desc lipsync;
    const char *const *lipsync_parameters;
    const char *model3; /* the resolved path of the .model3.json, or NULL */
    /* Live2D motions, expressions and pose from the model3 (crowd.h sections 14, 15). The
     * library holds every Motions group's clips in file order: group k's clips are
     * motion_group_first[k] .. motion_group_first[k + 1] - 1. */
    bool has_motion;
    crowd_motion_desc motion;
    const char *const *motion_group_names;
    const uint32_t *motion_group_first; /* [motion_group_count + 1] */
    uint32_t motion_group_count;
    const double *motion_periods;       /* each clip's loop length: duration + 1/fps */
    bool has_expression;
    crowd_expression_desc expression;
    const char *const *expression_names; /* [expression.expression_count] model3 Expressions names */
    bool has_pose;
    crowd_pose_desc pose;
    crowd_rig_desc rig_desc; /* points at the fields above */
} scene_rig;

/* A look key: from time t (seconds) on, the target is `target` (active) or none. */
typedef struct scene_key {
    float t;
    bool active;
    float target[3];
} scene_key;

typedef enum scene_pose_offset { SCENE_OFFSET_ZERO = 0, SCENE_OFFSET_RANDOM } scene_pose_offset;

/* Where `crowd render` stands a group's avatars on the ground (metres; +x to the right as the
 * camera sees it, +z away from it): rows of `columns` (0: about the square root of the count),
 * row after row away from the camera, centred on x = at[0], the first row at z = at[1], spaced
 * spacing[0] apart in a row and spacing[1] between rows, every other row shifted half a place,
 * each avatar moved by up to `jitter` in x and z (a fixed draw per instance). Groups without a
 * place share one block, laid out the same way, in front of the placed ones' origin. */
typedef struct scene_place {
    bool set;
    float at[2];
    uint32_t columns;
    float spacing[2];
    float jitter;
} scene_place;

typedef struct scene_group {
    uint32_t rig; /* index into scene.rigs */
    uint32_t count;
    float center[3];
    float jitter;
    const scene_key *keys;
    uint32_t key_count;
    crowd_harmonic_phase harmonic_phase;
    crowd_blink_start blink_start;
    const pose_clip *clip; /* NULL: no pose (owned by the scene) */
    scene_pose_offset pose_offset;
    bool pose_loop;
    const face_track *face; /* NULL: no face track (owned by the scene); all instances play it in step */
    bool face_loop;
    /* a hand track (its rig has fingers), read with the rig's fingers "mirrored". With a pose
     * clip the hands follow it: an instance showing clip row r has the hand frame in effect at
     * the row's t_s (the last at or before it, as crowd pose --hands): hand_of_row[r], frame
     * index + 1, 0 before the first (no hands: presence 0). Without one the track plays on its
     * own clock from its first frame, each instance hand_offset (zero, or a draw times the
     * track's period: world.h) into it, looping when hand_loop. */
    const hand_track *hands; /* NULL: none (owned by the scene) */
    const uint32_t *hand_of_row; /* [clip->row_count] when clip */
    scene_pose_offset hand_offset;
    bool hand_loop;
    scene_place place; /* set: from the scene's "place" */
    /* lip sync from a WAV (its rig has lip sync): each instance's level is the RMS of the
     * frame's block of the sound (crowd_lipsync_rms over [floor(t*rate), floor((t + dt)*rate)),
     * t = the frame's start + its offset), instance j of the group offset by j*audio_stagger s;
     * past the end the level is 0, or the sound loops */
    const float *audio;  /* NULL: no sound (owned by the scene); frames * channels samples */
    size_t audio_frames;
    uint32_t audio_channels, audio_rate;
    float audio_stagger;
    bool audio_loop;
    /* a motion each instance starts with (its rig has motions): a clip of the library's range
     * motion_first .. motion_first + motion_count - 1 (one clip, or one drawn per instance when
     * motion_random), instance j of the group motion_stagger*j s into it, its clock at
     * motion_speed times (1 + (2u - 1)*motion_speed_jitter) */
    bool has_motion;
    uint32_t motion_first, motion_count;
    bool motion_random;
    crowd_motion_priority motion_priority;
    bool motion_loop;
    float motion_stagger, motion_speed, motion_speed_jitter;
    bool has_expression; /* each instance starts library expression `expression` */
    uint32_t expression;
} scene_group;

typedef struct scene {
    const char *path; /* the file, or a name for a built-in scene */
    uint64_t seed;
    float dt;
    uint32_t frames;
    scene_rig *rigs;
    uint32_t rig_count;
    scene_group *groups;
    uint32_t group_count;
    /* everything the scene owns: strings, arrays, clips */
    void **owned;
    size_t owned_count, owned_capacity;
    pose_clip **clips;
    size_t clip_count;
    /* the files read for the scene, not the scene file (pose clips, face tracks, .model3.json,
     * .cdi3.json, ...): tool_input_at(inputs_first + k) for k < inputs_count (files.h) */
    size_t inputs_first, inputs_count;
} scene;

/* Defaults of SPEC §7 (seed 0, dt 0.0166666675, frames 600, nothing else). */
void scene_init(scene *s, const char *path);
void scene_free(scene *s);
/* Memory owned by the scene (freed by scene_free): zeroed, or a copy of a string. NULL and a
 * printed message when out of memory. */
void *scene_alloc(scene *s, size_t count, size_t size);
char *scene_strdup(scene *s, const char *str);
/* Takes a loaded clip into the scene's ownership (the struct is copied; *clip is emptied). */
const pose_clip *scene_adopt_clip(scene *s, pose_clip *clip);
/* The same for a face track, and a hand track. */
const face_track *scene_adopt_face(scene *s, face_track *track);
const hand_track *scene_adopt_hands(scene *s, hand_track *track);
/* A hand track's period (its span plus its last interval; 0 for one frame) and the frame in
 * effect tau >= 0 s after its first (the last with t_s - first <= tau; looping over the period). */
double scene_hand_period(const hand_track *t);
uint32_t scene_hand_row_at(const hand_track *t, double tau, bool loop);

/* The rig called name, or -1. */
int scene_rig_index(const scene *s, const char *name);
/* The index of a parameter id in the rig, or -1. */
int scene_parameter_index(const scene_rig *rig, const char *id);
/* Bone rotations of one kind (CROWD_FIELD_BONE_WORLD or CROWD_FIELD_BONE_LOCAL) for the tools
 * that need them: does a rig with limbs store them (its limbs "outputs" may leave one kind
 * out)? The first rig with limbs and instances that does not, or -1. And a message for a tool
 * that needs them: "<what> needs <kind> rotations, but rig "x" stores <other> rotations only
 * (its limbs "outputs": "<other>")" with TOOL_BAD_INPUT. */
bool scene_rig_stores(const scene_rig *rig, crowd_field kind);
int scene_rig_without(const scene *s, crowd_field kind);
int scene_rig_lacks(const scene_rig *rig, crowd_field kind, const char *what);
/* Fills rig_desc from the fields (call after changing which controllers are present; face
 * tracking follows has_face). */
void scene_rig_link(scene_rig *rig, bool look, bool harmonic, bool blink, bool limbs);

/* Reads a scene file (JSON, SPEC §7). TOOL_OK, or TOOL_BAD_INPUT with a message naming the
 * file, and the field path or line and column; TOOL_FAILED on other failures. */
int scene_load(const char *path, scene *s);
int scene_parse(const char *path, const char *text, size_t size, scene *s);

#endif
