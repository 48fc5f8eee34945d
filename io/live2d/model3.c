#include "model3.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "files.h"
#include "json_type.h"

int model3_group(scene *s, const char *path, const char *name, bool *found, const char ***out_ids,
                 uint32_t *out_count) {
    *found = false;
    *out_ids = NULL;
    *out_count = 0;
    char *text;
    size_t size;
    int read = tool_read_file(path, ".model3.json", &text, &size);
    if (read != TOOL_OK) return read;
    json_error_t err;
    json_t *root = json_loadb(text, size, JSON_REJECT_DUPLICATES, &err);
    free(text);
    if (!root) {
        if (err.line < 0) return tool_error(TOOL_BAD_INPUT, "%s: %s", path, err.text);
        return tool_error(TOOL_BAD_INPUT, "%s:%d:%d: %s", path, err.line, err.column, err.text);
    }
    int st = TOOL_OK;
    json_t *groups = json_object_get(root, "Groups");
    if (!json_is_object(root)) {
        st = tool_error(TOOL_BAD_INPUT, "%s: expected a JSON object (a .model3.json)", path);
    } else if (groups && !json_is_array(groups)) {
        st = tool_error(TOOL_BAD_INPUT, "%s: Groups: expected an array", path);
    } else if (groups) {
        size_t g;
        json_t *group;
        json_array_foreach(groups, g, group) {
            json_t *gname = json_object_get(group, "Name"), *target = json_object_get(group, "Target");
            if (!json_is_object(group) || !json_is_string(gname)) {
                st = tool_error(TOOL_BAD_INPUT, "%s: Groups[%zu]: expected an object with a string Name", path, g);
                break;
            }
            if (strcmp(json_string_value(gname), name) != 0) continue;
            if (target && !(json_is_string(target) && strcmp(json_string_value(target), "Parameter") == 0)) continue;
            json_t *ids = json_object_get(group, "Ids");
            if (!json_is_array(ids)) {
                st = tool_error(TOOL_BAD_INPUT, "%s: Groups[%zu].Ids: expected an array of parameter ids", path, g);
                break;
            }
            size_t n = json_array_size(ids);
            const char **out = scene_alloc(s, n, sizeof *out);
            if (!out) {
                st = TOOL_FAILED;
                break;
            }
            for (size_t k = 0; k < n && st == TOOL_OK; k++) {
                json_t *id = json_array_get(ids, k);
                if (!json_is_string(id) || !json_string_value(id)[0])
                    st = tool_error(TOOL_BAD_INPUT, "%s: Groups[%zu].Ids[%zu]: expected a non-empty string", path, g, k);
                else if (!(out[k] = scene_strdup(s, json_string_value(id))))
                    st = TOOL_FAILED;
            }
            if (st == TOOL_OK) {
                *found = true;
                *out_ids = out;
                *out_count = (uint32_t)n;
            }
            break;
        }
    }
    json_decref(root);
    return st;
}

int model3_file_reference(const char *path, const char *key, char **out_path) {
    *out_path = NULL;
    char *text;
    size_t size;
    int st = tool_read_file(path, ".model3.json", &text, &size);
    if (st != TOOL_OK) return st;
    json_error_t err;
    json_t *root = json_loadb(text, size, JSON_REJECT_DUPLICATES, &err);
    free(text);
    if (!root) {
        if (err.line < 0) return tool_error(TOOL_BAD_INPUT, "%s: %s", path, err.text);
        return tool_error(TOOL_BAD_INPUT, "%s:%d:%d: %s", path, err.line, err.column, err.text);
    }
    json_t *refs = json_object_get(root, "FileReferences");
    json_t *v = json_is_object(refs) ? json_object_get(refs, key) : NULL;
    if (!json_is_object(root)) {
        st = tool_error(TOOL_BAD_INPUT, "%s: expected a JSON object (a .model3.json)", path);
    } else if (refs && !json_is_object(refs)) {
        st = tool_error(TOOL_BAD_INPUT, "%s: FileReferences: expected an object, found %s", path,
                        tool_json_type_name(refs));
    } else if (v && !(json_is_string(v) && json_string_value(v)[0])) {
        char *shown = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_REAL_PRECISION(15));
        st = tool_error(TOOL_BAD_INPUT, "%s: FileReferences.%s: expected a file name, found %.60s (%s)", path, key,
                        shown ? shown : "?", tool_json_type_name(v));
        free(shown);
    } else if (v) {
        /* beside the model3, as the framework resolves it (relative to the model's folder) */
        const char *name = json_string_value(v), *slash = strrchr(path, '/');
        size_t dir = (name[0] != '/' && slash) ? (size_t)(slash - path) + 1 : 0;
        char *full = tool_malloc(dir + strlen(name) + 1);
        if (!full) {
            st = TOOL_FAILED;
        } else {
            memcpy(full, path, dir);
            strcpy(full + dir, name);
            *out_path = full;
        }
    }
    json_decref(root);
    return st;
}
