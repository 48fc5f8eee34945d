/* cubism_data.h — Live2D motion3, exp3, pose3 and model3 contents as plain C structs.
 *
 * What a reader fills and a player reads: no JSON, no file names, no behaviour. Numbers are the
 * files' doubles, unrounded (the framework computes in doubles; a SIMD player rounds once when
 * it builds its own tables). Every array is owned by the struct and freed by the reader's
 * *_free function; a zeroed struct is empty and safe to free.
 *
 * Motion layout (the framework's CubismMotionData, flattened): curves index a run of segments,
 * segments index their first point. A segment's points are
 *   linear, stepped, inverse stepped:  points[first], points[first + 1]
 *   bezier:                            points[first] .. points[first + 3]
 * and consecutive segments of a curve share their joining point (the next segment's first point
 * is the previous one's last). Curves come in target order Model, Parameter, PartOpacity, as the
 * framework's update loops need them (the reader checks the order). One motion is shared,
 * read-only, by every instance that plays it: all per-play state lives in the player.
 */
#ifndef CROWD_IO_CUBISM_DATA_H
#define CROWD_IO_CUBISM_DATA_H

#include <stdbool.h>
#include <stdint.h>

/* Limits the readers enforce before allocating (SPEC §6: counts have documented maxima). */
#define CUBISM_MAX_CURVES 65536u
#define CUBISM_MAX_SEGMENTS (1u << 22)
#define CUBISM_MAX_POINTS (1u << 24)
#define CUBISM_MAX_EVENTS 65536u
#define CUBISM_MAX_EXPRESSION_PARAMETERS 65536u
#define CUBISM_MAX_POSE_PARTS 65536u
#define CUBISM_MAX_MODEL3_ENTRIES 65536u
#define CUBISM_MAX_ID_BYTES 1024u

typedef enum cubism_segment_type {
    CUBISM_SEGMENT_LINEAR = 0,
    CUBISM_SEGMENT_BEZIER = 1,
    CUBISM_SEGMENT_STEPPED = 2,
    CUBISM_SEGMENT_INVERSE_STEPPED = 3,
} cubism_segment_type;

typedef enum cubism_curve_target {
    CUBISM_TARGET_MODEL = 0,        /* Id EyeBlink, LipSync or Opacity (others are ignored) */
    CUBISM_TARGET_PARAMETER = 1,    /* a parameter id (possibly not one of the model's) */
    CUBISM_TARGET_PART_OPACITY = 2, /* a part id: writes the pose's pseudo-parameter of that id */
} cubism_curve_target;

typedef struct cubism_point {
    double time, value;
} cubism_point;

typedef struct cubism_curve {
    char *id;
    uint8_t target;           /* cubism_curve_target */
    double fade_in, fade_out; /* the curve's FadeInTime/FadeOutTime; -1 when absent */
    uint32_t first_segment, segment_count;
} cubism_curve;

typedef struct cubism_event {
    double time;
    char *value;
} cubism_event;

typedef struct cubism_motion {
    double duration; /* Meta.Duration, > 0 */
    double fps;      /* Meta.Fps, > 0: a loop lasts duration + 1/fps */
    bool loop;       /* Meta.Loop (the framework ignores it: the player's setLoop decides) */
    bool beziers_restricted; /* Meta.AreBeziersRestricted: de Casteljau at t = linear time, else Cardano */
    /* The fades the framework takes from Meta: FadeInTime/FadeOutTime, 1 when absent or < 0. */
    double fade_in, fade_out;
    uint32_t curve_count, segment_count, point_count, event_count;
    cubism_curve *curves;
    uint8_t *segment_types;      /* cubism_segment_type per segment */
    uint32_t *segment_points;    /* first point of each segment */
    cubism_point *points;
    cubism_event *events;        /* UserData, file order */
} cubism_motion;

typedef enum cubism_blend {
    CUBISM_BLEND_ADD = 0,       /* "Add" (also when Blend is absent) */
    CUBISM_BLEND_MULTIPLY = 1,  /* "Multiply" */
    CUBISM_BLEND_OVERWRITE = 2, /* "Overwrite" */
} cubism_blend;

typedef struct cubism_expression_parameter {
    char *id;
    double value;
    uint8_t blend; /* cubism_blend */
} cubism_expression_parameter;

typedef struct cubism_expression {
    double fade_in, fade_out; /* FadeInTime/FadeOutTime, 1 when absent */
    uint32_t parameter_count;
    cubism_expression_parameter *parameters;
} cubism_expression;

/* pose3: groups of parts, one shown per group; a part's links copy its opacity. */
typedef struct cubism_pose {
    double fade_in;       /* FadeInTime; 0.5 when absent or <= 0 */
    uint32_t group_count; /* groups g: parts group_first[g] .. group_first[g + 1] - 1 */
    uint32_t *group_first;
    uint32_t part_count;  /* all groups' parts in file order */
    char **part_ids;
    uint32_t *link_first; /* part p's links: link_ids[link_first[p] .. link_first[p + 1] - 1] */
    uint32_t link_count;
    char **link_ids;
} cubism_pose;

typedef struct cubism_model3_motion {
    char *file;               /* relative to the model3.json's folder, as written */
    double fade_in, fade_out; /* FadeInTime/FadeOutTime; -1 when absent (the motion's own then) */
    char *sound;              /* NULL when absent */
} cubism_model3_motion;

typedef struct cubism_model3_motion_group {
    char *name;
    uint32_t motion_count;
    cubism_model3_motion *motions;
} cubism_model3_motion_group;

typedef struct cubism_model3_expression {
    char *name, *file;
} cubism_model3_expression;

/* What a player needs of FileReferences and Groups. */
typedef struct cubism_model3 {
    uint32_t motion_group_count;
    cubism_model3_motion_group *motion_groups; /* FileReferences.Motions, file order */
    uint32_t expression_count;
    cubism_model3_expression *expressions;     /* FileReferences.Expressions */
    char *pose;                                /* FileReferences.Pose; NULL when absent */
    uint32_t eye_blink_count, lip_sync_count;  /* Groups "EyeBlink" / "LipSync" (Target Parameter) */
    char **eye_blink_ids, **lip_sync_ids;
} cubism_model3;

#endif
