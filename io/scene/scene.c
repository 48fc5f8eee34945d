#include "scene.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

void scene_init(scene *s, const char *path) {
    memset(s, 0, sizeof *s);
    s->path = path;
    s->seed = 0;
    s->dt = 0.0166666675f;
    s->frames = 600;
}

void scene_free(scene *s) {
    if (!s) return;
    for (size_t k = 0; k < s->clip_count; k++) clip_free(s->clips[k]);
    for (size_t k = 0; k < s->owned_count; k++) free(s->owned[k]);
    free(s->owned);
    memset(s, 0, sizeof *s);
}

static void *own(scene *s, void *p) {
    if (!p) return NULL;
    if (s->owned_count == s->owned_capacity) {
        size_t cap = s->owned_capacity ? s->owned_capacity * 2 : 64;
        void **owned = tool_realloc(s->owned, cap, sizeof *owned);
        if (!owned) {
            free(p);
            return NULL;
        }
        s->owned = owned;
        s->owned_capacity = cap;
    }
    s->owned[s->owned_count++] = p;
    return p;
}

void *scene_alloc(scene *s, size_t count, size_t size) { return own(s, tool_calloc(count, size)); }

char *scene_strdup(scene *s, const char *str) { return own(s, tool_strdup(str)); }

const face_track *scene_adopt_face(scene *s, face_track *track) {
    face_track *copy = scene_alloc(s, 1, sizeof *copy);
    if (!copy || !own(s, track->frames) || !own(s, track->path)) {
        if (!copy) face_track_free(track);
        return NULL; /* own() freed what it could not hold */
    }
    *copy = *track;
    memset(track, 0, sizeof *track);
    return copy;
}

const hand_track *scene_adopt_hands(scene *s, hand_track *track) {
    hand_track *copy = scene_alloc(s, 1, sizeof *copy);
    if (!copy || !own(s, track->frames) || !own(s, track->path)) {
        if (!copy) hand_track_free(track);
        return NULL; /* own() freed what it could not hold */
    }
    *copy = *track;
    memset(track, 0, sizeof *track);
    return copy;
}

double scene_hand_period(const hand_track *t) {
    if (t->count < 2) return 0.0;
    const double last = t->frames[t->count - 1].t_s;
    return (last - t->frames[0].t_s) + (last - t->frames[t->count - 2].t_s);
}

uint32_t scene_hand_row_at(const hand_track *t, double tau, bool loop) {
    const double first = t->frames[0].t_s, period = scene_hand_period(t);
    if (loop && period > 0) tau = fmod(tau, period);
    uint32_t lo = 0, hi = t->count - 1; /* the last frame with t_s - first <= tau */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo + 1) / 2;
        if (t->frames[mid].t_s - first <= tau) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

const pose_clip *scene_adopt_clip(scene *s, pose_clip *clip) {
    pose_clip **clips = scene_alloc(s, s->clip_count + 1, sizeof *clips);
    pose_clip *copy = scene_alloc(s, 1, sizeof *copy);
    if (!clips || !copy) {
        clip_free(clip);
        return NULL;
    }
    if (s->clip_count) memcpy(clips, s->clips, s->clip_count * sizeof *clips);
    *copy = *clip;
    memset(clip, 0, sizeof *clip);
    clips[s->clip_count++] = copy;
    s->clips = clips; /* the old array stays owned until scene_free: small, few clips */
    return copy;
}

int scene_rig_index(const scene *s, const char *name) {
    for (uint32_t r = 0; r < s->rig_count; r++)
        if (strcmp(s->rigs[r].name, name) == 0) return (int)r;
    return -1;
}

int scene_parameter_index(const scene_rig *rig, const char *id) {
    for (uint32_t p = 0; p < rig->parameter_count; p++)
        if (strcmp(rig->parameters[p].id, id) == 0) return (int)p;
    return -1;
}

bool scene_rig_stores(const scene_rig *rig, crowd_field kind) {
    if (!rig->rig_desc.limbs) return false;
    return rig->limbs.outputs == CROWD_LIMB_OUTPUTS_BOTH ||
           rig->limbs.outputs == (kind == CROWD_FIELD_BONE_WORLD ? CROWD_LIMB_OUTPUTS_WORLD : CROWD_LIMB_OUTPUTS_LOCAL);
}

int scene_rig_without(const scene *s, crowd_field kind) {
    for (uint32_t g = 0; g < s->group_count; g++) {
        const scene_rig *r = &s->rigs[s->groups[g].rig];
        if (s->groups[g].count && r->rig_desc.limbs && !scene_rig_stores(r, kind)) return (int)s->groups[g].rig;
    }
    return -1;
}

int scene_rig_lacks(const scene_rig *rig, crowd_field kind, const char *what) {
    const char *want = kind == CROWD_FIELD_BONE_WORLD ? "world" : "local", *kept = kind == CROWD_FIELD_BONE_WORLD ? "local" : "world";
    return tool_error(TOOL_BAD_INPUT, "%s needs %s rotations, but rig \"%s\" stores %s rotations only (its limbs \"outputs\": "
                      "\"%s\")", what, want, rig->name, kept, kept);
}

void scene_rig_link(scene_rig *r, bool look, bool harmonic, bool blink, bool limbs) {
    r->look.parameters = r->look_parameters;
    r->harmonic.parameters = r->harmonic_parameters;
    r->harmonic.channel_timescales = r->channel_timescales;
    r->blink.parameters = r->blink_parameters;
    r->rig_desc = (crowd_rig_desc){
        .name = r->name,
        .parameters = r->parameters,
        .parameter_count = r->parameter_count,
        .look = look ? &r->look : NULL,
        .harmonic = harmonic ? &r->harmonic : NULL,
        .blink = blink ? &r->blink : NULL,
        .limbs = limbs ? &r->limbs : NULL,
        .face = r->has_face ? &r->face : NULL,
        .physics = r->has_physics ? &r->physics : NULL,
        .lipsync = r->has_lipsync ? &r->lipsync : NULL,
        .motion = r->has_motion ? &r->motion : NULL,
        .expression = r->has_expression ? &r->expression : NULL,
        .pose = r->has_pose ? &r->pose : NULL,
        .fingers = r->has_fingers ? &r->fingers : NULL,
    };
    r->lipsync.parameters = r->lipsync_parameters;
    r->face.mapping = r->face_mapping;
}
