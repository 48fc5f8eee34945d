#include "trace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

int trace_format_float(char *buf, float v) { return snprintf(buf, 24, "%.9g", (double)v); }

int trace_open(trace_file *t, const char *path, const char *header) {
    memset(t, 0, sizeof *t);
    if (strcmp(path, "-") == 0) {
        t->f = stdout;
    } else {
        size_t n = strlen(path);
        t->path = tool_strdup(path);
        t->tmp = tool_malloc(n + 5);
        if (!t->path || !t->tmp) {
            trace_abort(t);
            return TOOL_FAILED;
        }
        memcpy(t->tmp, path, n);
        memcpy(t->tmp + n, ".tmp", 5);
        t->f = fopen(t->tmp, "wb");
        if (!t->f) {
            int e = errno;
            free(t->path);
            free(t->tmp);
            memset(t, 0, sizeof *t);
            return tool_error(TOOL_FAILED, "%s: cannot write the trace: %s", path, strerror(e));
        }
        setvbuf(t->f, NULL, _IOFBF, 1 << 20);
    }
    fprintf(t->f, "%s\n", header);
    return TOOL_OK;
}

void trace_parameter(trace_file *t, uint32_t frame, uint32_t instance, const char *id, float value) {
    char v[24];
    trace_format_float(v, value);
    fprintf(t->f, "%u,%u,%s,%s\n", frame, instance, id, v);
}

void trace_bone(trace_file *t, uint32_t frame, uint32_t instance, const char *bone, const float q[4]) {
    char x[24], y[24], z[24], w[24];
    trace_format_float(x, q[0]);
    trace_format_float(y, q[1]);
    trace_format_float(z, q[2]);
    trace_format_float(w, q[3]);
    fprintf(t->f, "%u,%u,%s,%s,%s,%s,%s\n", frame, instance, bone, x, y, z, w);
}

int trace_finish(trace_file *t) {
    if (!t->f) return TOOL_OK;
    int st = TOOL_OK;
    if (!t->path) {
        if (fflush(t->f) != 0 || ferror(t->f)) st = tool_error(TOOL_FAILED, "cannot write to standard output");
        t->f = NULL;
        return st;
    }
    int bad = ferror(t->f);
    if (fclose(t->f) != 0) bad = 1;
    t->f = NULL;
    if (bad) {
        st = tool_error(TOOL_FAILED, "%s: cannot write the trace (disk full?)", t->path);
        remove(t->tmp);
    } else if (rename(t->tmp, t->path) != 0) {
        st = tool_error(TOOL_FAILED, "%s: cannot rename %s to it: %s", t->path, t->tmp, strerror(errno));
        remove(t->tmp);
    }
    free(t->path);
    free(t->tmp);
    memset(t, 0, sizeof *t);
    return st;
}

void trace_abort(trace_file *t) {
    if (t->f && t->path) {
        fclose(t->f);
        remove(t->tmp);
    }
    free(t->path);
    free(t->tmp);
    memset(t, 0, sizeof *t);
}
