#include "png_out.h"

#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "files.h"

/* libpng reports errors by longjmp; everything the jump must see is in this struct. */
typedef struct png_job {
    FILE *f;
    png_structp png;
    png_infop info;
} png_job;

static int write_rows(png_job *job, const canvas *c) {
    if (setjmp(png_jmpbuf(job->png))) return TOOL_FAILED;
    png_init_io(job->png, job->f);
    png_set_IHDR(job->png, job->info, c->width, c->height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(job->png, job->info);
    for (uint32_t y = 0; y < c->height; y++) png_write_row(job->png, c->pixels + (size_t)y * c->width * 3);
    png_write_end(job->png, NULL);
    return TOOL_OK;
}

int png_write(const char *path, const canvas *c) {
    tool_output out;
    int st = tool_output_open(&out, path, "picture");
    if (st != TOOL_OK) return st;
    png_job job = {.f = out.f};
    st = TOOL_FAILED;
    job.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    if (job.png) job.info = png_create_info_struct(job.png);
    if (job.png && job.info) st = write_rows(&job, c);
    png_destroy_write_struct(&job.png, job.info ? &job.info : NULL);
    if (st != TOOL_OK) {
        tool_output_abort(&out);
        return tool_error(TOOL_FAILED, "%s: cannot write the picture (libpng or disk error)", path);
    }
    return tool_output_commit(&out, "picture");
}
