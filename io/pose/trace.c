#include "trace.h"

#include <stdlib.h>
#include <string.h>

#include "diag.h"

int trace_format_float(char *buf, float v) { return snprintf(buf, 24, "%.9g", (double)v); }

int trace_open(trace_file *t, const char *path, const char *header) {
    memset(t, 0, sizeof *t);
    if (strcmp(path, "-") == 0) {
        t->f = stdout;
    } else {
        int st = tool_output_open(&t->out, path, "trace");
        if (st != TOOL_OK) return st;
        t->f = t->out.f;
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
    if (!t->out.f) { /* standard output */
        if (fflush(t->f) != 0 || ferror(t->f)) st = tool_error(TOOL_FAILED, "cannot write to standard output");
        t->f = NULL;
        return st;
    }
    st = tool_output_commit(&t->out, "trace");
    memset(t, 0, sizeof *t);
    return st;
}

void trace_abort(trace_file *t) {
    tool_output_abort(&t->out);
    memset(t, 0, sizeof *t);
}
