/* crowd: the command-line program (SPEC §7). Dispatches to the commands in commands.h. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "diag.h"

static const char usage[] =
    "usage: crowd COMMAND [ARGS]\n"
    "  run [SCENE]   run a scene (or the built-in default crowd of 10,000 avatars) and print a summary\n"
    "  pose CLIP     bone rotations of one instance through a pose clip\n"
    "  bench         throughput per SIMD target and size, against the per-object way and STREAM\n"
    "  render [SCENE] --out FILE   a picture of the avatars at one frame\n"
    "  stream        solve landmark frames from standard input as they arrive (bones, VMC)\n"
    "crowd COMMAND --help describes each. Exit status: 0 success, 2 bad usage or input, 1 other failure.\n";

int main(int argc, char **argv) {
    if (argc < 2) {
        fputs(usage, stderr);
        return TOOL_BAD_INPUT;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage, stdout);
        return TOOL_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("crowd %d.%d.%d\n", CROWD_VERSION_MAJOR, CROWD_VERSION_MINOR, CROWD_VERSION_PATCH);
        return TOOL_OK;
    }
    int (*run)(int, char **) = strcmp(cmd, "run") == 0      ? cmd_run
                               : strcmp(cmd, "pose") == 0   ? cmd_pose
                               : strcmp(cmd, "bench") == 0  ? cmd_bench
                               : strcmp(cmd, "render") == 0 ? cmd_render
                               : strcmp(cmd, "stream") == 0 ? cmd_stream
                                                            : NULL;
    if (!run) {
        fputs(usage, stderr);
        return tool_error(TOOL_BAD_INPUT, "unknown command '%s'", cmd);
    }
    tool_catch_interrupts();
    int status = run(argc - 1, argv + 1);
    /* a summary or trace on standard output that could not be written is a failure */
    if ((fflush(stdout) != 0 || ferror(stdout)) && status == TOOL_OK)
        status = tool_error(TOOL_FAILED, "cannot write to standard output");
    return status;
}
