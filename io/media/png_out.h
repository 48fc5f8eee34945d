/* Writing a canvas as an 8-bit RGB PNG with libpng (to FILE.tmp, renamed when complete). */
#ifndef CROWD_TOOLS_PNG_OUT_H
#define CROWD_TOOLS_PNG_OUT_H

#include "draw.h"

int png_write(const char *path, const canvas *c);

#endif
