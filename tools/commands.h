/* The commands of the crowd program. Each takes the arguments after its name (argv[0] is the
 * command) and returns the exit status (diag.h). */
#ifndef CROWD_TOOLS_COMMANDS_H
#define CROWD_TOOLS_COMMANDS_H

#include <stdbool.h>
#include <stdint.h>

#include "args.h"
#include "crowd.h"
#include "options.h"
#include "scene.h"

int cmd_run(int argc, char **argv);
int cmd_pose(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_render(int argc, char **argv);
int cmd_stream(int argc, char **argv);

/* The limb settings' flags of crowd pose (--frame --axis-fix --fallback ... --bend-full) at
 * a->i, shared by crowd stream. 1: taken; 0: not one of them; -1: a bad value (printed). */
int pose_limb_option(tool_args *a, crowd_limbs_desc *limbs);
/* The check across those flags (--bend-min below --bend-full), for `command`: TOOL_OK or
 * TOOL_BAD_INPUT with the message printed. */
int pose_limb_check(const char *command, const crowd_limbs_desc *limbs);
/* What an output (`flag`, e.g. "--bvh") needs of --outputs: TOOL_OK when the rig stores `kind`
 * (CROWD_FIELD_BONE_WORLD or CROWD_FIELD_BONE_LOCAL), else TOOL_BAD_INPUT, printed. */
int pose_outputs_check(const char *command, const crowd_limbs_desc *limbs, const char *flag, crowd_field kind);

#endif
