/* The pose controller (crowd.h section 14): a rig's pose3 groups and links, and per instance
 * every pose part's pseudo-parameter and opacity, which the stage cvk_pose
 * (kernels/pose.h) fades as CubismPose does. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "kernels/pose.h"
#include "serial.h"
#include "settings.h"

/* the pose controller's part of a rig */
typedef struct pose_part {
    crowdi_pose_view view;
    char **ids;         /* [parts + links] crowd.h's numbering */
    uint32_t *link_count; /* [part_count] links of each group part */
} pose_part;
#define POSE(r) CROWDI_PART(r, POSE, pose_part)

static const crowdi_setting pose_settings_table[] = {
    CROWDI_FLOAT_SETTING(crowd_pose_desc, pose_part, view.fade_in, fade_in, 0.5, 0, true, CROWDI_MAX_SECONDS, false, "s",
                         "time the shown part of a group takes to fade in"),
};
#define POSE_SETTINGS (uint32_t)(sizeof pose_settings_table / sizeof pose_settings_table[0])

crowd_pose_desc crowd_pose_defaults(void) {
    crowd_pose_desc d = {0};
    crowdi_settings_defaults(pose_settings_table, POSE_SETTINGS, &d);
    return d;
}

static bool pose_present(const crowd_rig_desc *d) { return d->pose != NULL; }

/* Every id of the pose in crowd.h's numbering: ids[k] for k < total. */
static void pose_ids(const crowd_pose_desc *d, const char **ids) {
    uint32_t k = 0;
    for (uint32_t g = 0; g < d->group_count; g++)
        for (uint32_t j = 0; j < d->groups[g].part_count; j++) ids[k++] = d->groups[g].parts[j].id;
    for (uint32_t g = 0; g < d->group_count; g++)
        for (uint32_t j = 0; j < d->groups[g].part_count; j++)
            for (uint32_t l = 0; l < d->groups[g].parts[j].link_count; l++) ids[k++] = d->groups[g].parts[j].links[l];
}

int32_t crowdi_pose_desc_part_find(const crowd_pose_desc *d, const char *id) {
    int32_t k = 0;
    for (uint32_t g = 0; g < d->group_count; g++)
        for (uint32_t j = 0; j < d->groups[g].part_count; j++, k++)
            if (strcmp(d->groups[g].parts[j].id, id) == 0) return k;
    for (uint32_t g = 0; g < d->group_count; g++)
        for (uint32_t j = 0; j < d->groups[g].part_count; j++)
            for (uint32_t l = 0; l < d->groups[g].parts[j].link_count; l++, k++)
                if (strcmp(d->groups[g].parts[j].links[l], id) == 0) return k;
    return -1;
}

int32_t crowdi_pose_part_find(const crowdi_rig *r, const char *id) {
    const pose_part *part = POSE(r);
    if (!part) return -1;
    const uint32_t n = part->view.part_count + part->view.link_count;
    for (uint32_t k = 0; k < n; k++)
        if (strcmp(part->ids[k], id) == 0) return (int32_t)k;
    return -1;
}

static int compare_ids(const void *a, const void *b) {
    return strcmp(**(const char *const *const *)a, **(const char *const *const *)b);
}

static crowd_result pose_validate(crowd_engine *engine, const crowd_rig_desc *desc, const crowdi_ids *ids) {
    const crowd_pose_desc *d = desc->pose;
    CROWDI_RIG_CHECK(d->group_count <= CROWD_MAX_ENTRIES, CROWD_ERR_CAPACITY, "desc->pose->group_count (%u) exceeds %u",
                     d->group_count, CROWD_MAX_ENTRIES);
    CROWDI_RIG_CHECK(d->group_count == 0 || d->groups, CROWD_ERR_NULL, "desc->pose->groups is NULL with group_count %u",
                     d->group_count);
    uint64_t total = 0;
    for (uint32_t g = 0; g < d->group_count; g++) {
        const crowd_pose_group_desc *gr = &d->groups[g];
        CROWDI_RIG_CHECK(gr->part_count <= CROWD_MAX_ENTRIES, CROWD_ERR_CAPACITY,
                         "desc->pose->groups[%u].part_count (%u) exceeds %u", g, gr->part_count, CROWD_MAX_ENTRIES);
        CROWDI_RIG_CHECK(gr->part_count > 0, CROWD_ERR_RANGE, "desc->pose->groups[%u] has no parts", g);
        CROWDI_RIG_CHECK(gr->parts, CROWD_ERR_NULL, "desc->pose->groups[%u].parts is NULL", g);
        total += gr->part_count;
        for (uint32_t j = 0; j < gr->part_count; j++) {
            const crowd_pose_part_desc *pd = &gr->parts[j];
            CROWDI_RIG_CHECK(pd->link_count <= CROWD_MAX_ENTRIES, CROWD_ERR_CAPACITY,
                             "desc->pose->groups[%u].parts[%u].link_count (%u) exceeds %u", g, j, pd->link_count,
                             CROWD_MAX_ENTRIES);
            CROWDI_RIG_CHECK(pd->link_count == 0 || pd->links, CROWD_ERR_NULL,
                             "desc->pose->groups[%u].parts[%u].links is NULL with link_count %u", g, j, pd->link_count);
            total += pd->link_count;
        }
    }
    CROWDI_RIG_CHECK(total <= CROWD_MAX_ENTRIES, CROWD_ERR_CAPACITY,
                     "desc->pose: %llu parts and links exceed %u", (unsigned long long)total, CROWD_MAX_ENTRIES);
    if (!ids) return CROWD_OK;
    crowd_result res = crowdi_settings_check(engine, CROWDI_CTL_POSE, pose_settings_table, POSE_SETTINGS, d);
    if (res != CROWD_OK) return res;
    for (uint32_t g = 0; g < d->group_count; g++)
        for (uint32_t j = 0; j < d->groups[g].part_count; j++) {
            const crowd_pose_part_desc *pd = &d->groups[g].parts[j];
            CROWDI_RIG_CHECK(pd->id, CROWD_ERR_NULL, "desc->pose->groups[%u].parts[%u].id is NULL", g, j);
            CROWDI_RIG_CHECK(pd->id[0], CROWD_ERR_RANGE, "desc->pose->groups[%u].parts[%u].id is empty", g, j);
            for (uint32_t l = 0; l < pd->link_count; l++) {
                CROWDI_RIG_CHECK(pd->links[l], CROWD_ERR_NULL, "desc->pose->groups[%u].parts[%u].links[%u] is NULL", g, j, l);
                CROWDI_RIG_CHECK(pd->links[l][0], CROWD_ERR_RANGE, "desc->pose->groups[%u].parts[%u].links[%u] is empty",
                                 g, j, l);
            }
        }
    /* unique ids: sorted pointers to them, neighbours compared */
    const uint32_t n = (uint32_t)total;
    const char **list = crowdi_alloc(engine, sizeof *list * (n ? n : 1));
    const char ***order = crowdi_alloc(engine, sizeof *order * (n ? n : 1));
    if (!list || !order) {
        crowdi_free(engine, list);
        crowdi_free(engine, (void *)order);
        CROWDI_RIG_CHECK(false, CROWD_ERR_OUT_OF_MEMORY, "out of memory for desc->pose");
    }
    pose_ids(d, list);
    for (uint32_t k = 0; k < n; k++) order[k] = &list[k];
    qsort((void *)order, n, sizeof *order, compare_ids);
    const char *dup = NULL;
    for (uint32_t k = 1; k < n && !dup; k++)
        if (strcmp(*order[k], *order[k - 1]) == 0) dup = *order[k];
    crowdi_free(engine, list);
    crowdi_free(engine, (void *)order);
    CROWDI_RIG_CHECK(!dup, CROWD_ERR_DUPLICATE_ID, "desc->pose: part id \"%s\" appears twice (parts and links)", dup);
    return CROWD_OK;
}

static crowd_result pose_build(crowd_engine *engine, const crowd_rig_desc *desc, const crowdi_ids *ids, crowdi_rig *r) {
    (void)ids;
    const crowd_pose_desc *d = desc->pose;
    pose_part *part = POSE(r);
    crowdi_pose_view *v = &part->view;
    v->fade_in = d->fade_in;
    v->group_count = d->group_count;
    uint32_t parts = 0, links = 0;
    for (uint32_t g = 0; g < d->group_count; g++) {
        parts += d->groups[g].part_count;
        for (uint32_t j = 0; j < d->groups[g].part_count; j++) links += d->groups[g].parts[j].link_count;
    }
    v->part_count = parts;
    v->link_count = links;
    const uint32_t n = parts + links;
    uint32_t *group_first = crowdi_alloc(engine, sizeof *group_first * (d->group_count + 1));
    uint32_t *link_part = crowdi_alloc(engine, sizeof *link_part * (links ? links : 1));
    part->link_count = crowdi_alloc(engine, sizeof *part->link_count * (parts ? parts : 1));
    part->ids = crowdi_alloc(engine, sizeof *part->ids * (n ? n : 1));
    v->param = crowdi_alloc(engine, sizeof *v->param * (n ? n : 1));
    v->opacity = crowdi_alloc(engine, sizeof *v->opacity * (n ? n : 1));
    v->group_first = group_first, v->link_part = link_part;
    if (part->ids) memset(part->ids, 0, sizeof *part->ids * (n ? n : 1)); /* freed one by one */
    if (!group_first || !link_part || !part->link_count || !part->ids || !v->param || !v->opacity)
        return CROWD_ERR_OUT_OF_MEMORY;
    uint32_t k = 0, l = 0;
    for (uint32_t g = 0; g < d->group_count; g++) {
        group_first[g] = k;
        for (uint32_t j = 0; j < d->groups[g].part_count; j++, k++) {
            const crowd_pose_part_desc *pd = &d->groups[g].parts[j];
            if (!(part->ids[k] = crowdi_strdup(engine, pd->id))) return CROWD_ERR_OUT_OF_MEMORY;
            part->link_count[k] = pd->link_count;
            for (uint32_t m = 0; m < pd->link_count; m++, l++) {
                link_part[l] = k;
                if (!(part->ids[parts + l] = crowdi_strdup(engine, pd->links[m]))) return CROWD_ERR_OUT_OF_MEMORY;
            }
        }
    }
    group_first[d->group_count] = k;
    return CROWD_OK;
}

static void pose_free(crowd_engine *engine, crowdi_rig *r) {
    pose_part *part = POSE(r);
    crowdi_pose_view *v = &part->view;
    if (part->ids)
        for (uint32_t k = 0; k < v->part_count + v->link_count; k++) crowdi_free(engine, part->ids[k]);
    crowdi_free(engine, part->ids);
    crowdi_free(engine, part->link_count);
    crowdi_free(engine, (void *)v->group_first);
    crowdi_free(engine, (void *)v->link_part);
    crowdi_free(engine, v->param);
    crowdi_free(engine, v->opacity);
}

static uint32_t pose_layout(crowdi_rig *r, uint32_t first) {
    (void)first;
    const crowdi_pose_view *v = &POSE(r)->view;
    return CROWDI_POSE_NCOLS(v->part_count + v->link_count);
}

/* A new row holds the reset's values (the first tick resets again, as the framework's first
 * update does, over whatever was written before it). */
static void pose_init_bits(const crowdi_rig *r, uint32_t *bits) {
    const crowdi_pose_view *v = &POSE(r)->view;
    const uint32_t first = r->col[CROWDI_CTL_POSE];
    bits[first + CROWDI_POSE_RESET] = crowdi_bits(1.0f);
    for (uint32_t g = 0; g < v->group_count; g++)
        for (uint32_t k = v->group_first[g]; k < v->group_first[g + 1]; k++) {
            const float shown = k == v->group_first[g] ? 1.0f : 0.0f;
            bits[first + CROWDI_POSE_PARAMETER(k)] = crowdi_bits(shown);
            bits[first + CROWDI_POSE_OPACITY(k)] = crowdi_bits(shown);
        }
    for (uint32_t l = 0; l < v->link_count; l++) {
        const uint32_t k = v->part_count + l;
        bits[first + CROWDI_POSE_PARAMETER(k)] = crowdi_bits(1.0f);
        bits[first + CROWDI_POSE_OPACITY(k)] = bits[first + CROWDI_POSE_OPACITY(v->link_part[l])];
    }
}

static void pose_point(crowdi_rig *r) {
    crowdi_pose_view *v = &POSE(r)->view;
    const uint32_t first = r->col[CROWDI_CTL_POSE];
    v->reset = r->columns[first + CROWDI_POSE_RESET];
    for (uint32_t k = 0; k < v->part_count + v->link_count; k++) {
        v->param[k] = r->columns[first + CROWDI_POSE_PARAMETER(k)];
        v->opacity[k] = r->columns[first + CROWDI_POSE_OPACITY(k)];
    }
}

/* Snapshot: the settings, the groups (part count, then each part's id and links). */
static void pose_write(crowdi_writer *w, const crowdi_rig *r) {
    const pose_part *part = POSE(r);
    const crowdi_pose_view *v = &part->view;
    crowdi_settings_write(w, pose_settings_table, 0, POSE_SETTINGS, part);
    crowdi_w_u32(w, v->group_count);
    uint32_t l = v->part_count;
    for (uint32_t g = 0; g < v->group_count; g++) {
        crowdi_w_u32(w, v->group_first[g + 1] - v->group_first[g]);
        for (uint32_t k = v->group_first[g]; k < v->group_first[g + 1]; k++) {
            crowdi_w_str(w, part->ids[k]);
            crowdi_w_u32(w, part->link_count[k]);
            for (uint32_t m = 0; m < part->link_count[k]; m++) crowdi_w_str(w, part->ids[l++]);
        }
    }
}

/* One string of the blob into the block at *at (NUL-terminated); NULL when the blob is short. */
static const char *read_string(crowdi_reader *rd, char **at) {
    uint32_t n = crowdi_r_u32(rd);
    const uint8_t *b = crowdi_r_take(rd, n);
    if (!b) return NULL;
    char *s = *at;
    memcpy(s, b, n);
    s[n] = 0;
    *at += n + 1;
    return s;
}

static crowd_result pose_read(crowd_engine *e, crowd_engine *tmp, crowdi_reader *rd, const crowdi_loading *ld,
                              crowd_rig_desc *desc, void **scratch) {
    crowd_pose_desc pose = {0};
    crowdi_settings_read(rd, pose_settings_table, 0, POSE_SETTINGS, &pose);
    const uint32_t G = crowdi_r_u32(rd);
    /* a pass over a copy of the reader sizes the one block */
    crowdi_reader peek = *rd;
    uint64_t parts = 0, links = 0, chars = 0;
    for (uint32_t g = 0; g < G && !peek.bad && parts + links <= CROWD_MAX_ENTRIES; g++) {
        uint32_t n = crowdi_r_u32(&peek);
        for (uint32_t j = 0; j < n && !peek.bad && parts + links <= CROWD_MAX_ENTRIES; j++, parts++) {
            uint32_t len = crowdi_r_u32(&peek);
            crowdi_r_take(&peek, len);
            chars += (uint64_t)len + 1;
            uint32_t m = crowdi_r_u32(&peek);
            for (uint32_t q = 0; q < m && !peek.bad && parts + links <= CROWD_MAX_ENTRIES; q++, links++) {
                len = crowdi_r_u32(&peek);
                crowdi_r_take(&peek, len);
                chars += (uint64_t)len + 1;
            }
        }
    }
    if (rd->bad || peek.bad || G > CROWD_MAX_ENTRIES || parts + links > CROWD_MAX_ENTRIES)
        return crowdi_fail(e, CROWD_ERR_BAD_SNAPSHOT, "crowd_snapshot_load: rigs[%u].pose is corrupt", ld->rig);
    size_t bytes = sizeof(crowd_pose_desc) + sizeof(crowd_pose_group_desc) * G + sizeof(crowd_pose_part_desc) * parts +
                   sizeof(const char *) * links + (size_t)chars + 1;
    uint8_t *block = crowdi_alloc(tmp, bytes);
    if (!block) return crowdi_fail(e, CROWD_ERR_OUT_OF_MEMORY, "crowd_snapshot_load: out of memory for rigs[%u].pose", ld->rig);
    *scratch = block;
    crowd_pose_desc *d = (crowd_pose_desc *)(void *)block;
    crowd_pose_group_desc *groups = (crowd_pose_group_desc *)(void *)(d + 1);
    crowd_pose_part_desc *part = (crowd_pose_part_desc *)(void *)(groups + G);
    const char **link = (const char **)(void *)(part + parts);
    char *text = (char *)(void *)(link + links);
    *d = pose;
    d->groups = groups;
    d->group_count = G;
    for (uint32_t g = 0; g < G; g++) {
        groups[g].part_count = crowdi_r_u32(rd);
        groups[g].parts = part;
        for (uint32_t j = 0; j < groups[g].part_count; j++, part++) {
            part->id = read_string(rd, &text);
            part->link_count = crowdi_r_u32(rd);
            part->links = link;
            for (uint32_t q = 0; q < part->link_count; q++) *link++ = read_string(rd, &text);
        }
    }
    if (rd->bad) return crowdi_fail(e, CROWD_ERR_BAD_SNAPSHOT, "crowd_snapshot_load: rigs[%u].pose is truncated", ld->rig);
    desc->pose = d;
    return CROWD_OK;
}

static float *pose_field_column(const crowdi_rig *r, crowd_field f, uint32_t index, uint32_t comp) {
    (void)comp;
    switch (f) {
    case CROWD_FIELD_PART_PARAMETER: return crowdi_ctl_column(r, CROWDI_CTL_POSE, CROWDI_POSE_PARAMETER(index));
    case CROWD_FIELD_PART_OPACITY: return crowdi_ctl_column(r, CROWDI_CTL_POSE, CROWDI_POSE_OPACITY(index));
    case CROWD_FIELD_POSE_RESET: return crowdi_ctl_column(r, CROWDI_CTL_POSE, CROWDI_POSE_RESET);
    default: return NULL;
    }
}

static uint32_t pose_entry_count(const crowdi_rig *r) {
    const crowdi_pose_view *v = &POSE(r)->view;
    return v->part_count + v->link_count;
}

const crowdi_controller crowdi_controller_pose = {
    .name = "pose controller",
    .size = sizeof(pose_part),
    .present = pose_present,
    .validate = pose_validate,
    .build = pose_build,
    .free = pose_free,
    .layout = pose_layout,
    .init_bits = pose_init_bits,
    .point = pose_point,
    .write = pose_write,
    .read = pose_read,
    .field_column = pose_field_column,
    .entry_count = pose_entry_count,
    .entry_name = "pose part",
    .setting_rows = pose_settings_table,
    .setting_count = POSE_SETTINGS,
};
