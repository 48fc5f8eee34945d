/* Traces (SPEC §7): CSV with a header line, floats printed with %.9g (an exact float32 round
 * trip). Parameters: frame,instance,id,value. Bones: frame,instance,bone,qx,qy,qz,qw.
 *
 * A trace to a file is written to a temporary created exclusively beside FILE (files.h) and
 * renamed to FILE only when complete (trace_finish); trace_abort removes the temporary, so no
 * partial trace is ever left as if complete. "-" writes to standard output. */
#ifndef CROWD_TOOLS_TRACE_H
#define CROWD_TOOLS_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "files.h"

#define TRACE_PARAMETER_HEADER "frame,instance,id,value"
#define TRACE_BONE_HEADER "frame,instance,bone,qx,qy,qz,qw"

typedef struct trace_file {
    FILE *f;         /* the temporary's stream, or standard output */
    tool_output out; /* unused for standard output */
} trace_file;

/* Opens path (or standard output for "-") and writes the header line. */
int trace_open(trace_file *t, const char *path, const char *header);
void trace_parameter(trace_file *t, uint32_t frame, uint32_t instance, const char *id, float value);
void trace_bone(trace_file *t, uint32_t frame, uint32_t instance, const char *bone, const float q[4]);
/* Flushes, closes and renames the temporary to FILE. TOOL_FAILED (and the temporary removed)
 * on a write error. Safe on a trace that was never opened. */
int trace_finish(trace_file *t);
/* Closes and removes the temporary. Safe on a trace that was never opened. */
void trace_abort(trace_file *t);

/* v with %.9g into buf (at least 24 bytes); returns the length. strtof of the text gives v
 * back bit for bit (for finite v; -0 stays -0). */
int trace_format_float(char *buf, float v);

#endif
