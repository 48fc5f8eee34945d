/* Files of the crowd command (SPEC §6): inputs read whole with a size limit, outputs created
 * exclusively and renamed into place when complete, and no two files of one run aliasing.
 *
 * Inputs (scenes, pose clips, .model3.json files, run snapshots) must be regular files of at
 * most tool_max_file_bytes (default 1 GiB; --max-file-bytes changes it): a FIFO, a device such
 * as /dev/zero, a directory or a larger file is refused with TOOL_BAD_INPUT before it is read.
 *
 * An output FILE that is (or will be) a regular file is written to a fresh temporary
 * FILE.XXXXXX in FILE's folder, created with O_CREAT|O_EXCL (mkstemp: no symlink is followed, no
 * existing file is touched), and renamed to FILE only when complete; on any failure the
 * temporary is removed. An output that is not a regular file is never replaced: a character
 * device or a FIFO is opened and written in place, /dev/stdout, /dev/stderr, /dev/fd/N and
 * /proc/self/fd/N write to the descriptor they name (a duplicate of it), and a symlink is
 * followed: its target gets the temporary and the rename (the link stays a link). A directory,
 * a block device, a socket or a link to nothing is refused.
 *
 * Every input opened through tool_open_file (tool_read_file too) is remembered (its path, kind,
 * device and inode, and an FNV-1a 64 digest of its bytes, read once more for it): tool_check_aliases compares every output with all of them,
 * and run snapshots fingerprint the scene's inputs from the same list (resume.h), so a reader
 * added later is covered without being listed anywhere. */
#ifndef CROWD_TOOLS_FILES_H
#define CROWD_TOOLS_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TOOL_DEFAULT_MAX_FILE_BYTES (1ull << 30)
/* The size limit of every input file (bytes). */
extern uint64_t tool_max_file_bytes;

/* Reads the regular file path (at most tool_max_file_bytes) into a malloc'd buffer with a NUL
 * after the last byte (not counted in *out_size). `what` names the file kind in messages
 * ("scene", "pose clip", ...). TOOL_BAD_INPUT: cannot open, not a regular file, too large, or
 * a read error; TOOL_FAILED: out of memory. */
int tool_read_file(const char *path, const char *what, char **out_data, size_t *out_size);

/* Opens the regular file path (at most tool_max_file_bytes when opened) for a reader that
 * streams it ("rb"), with the checks of tool_read_file. */
int tool_open_file(const char *path, const char *what, FILE **out);
/* Reads an opened file from where it stands to its end, as tool_read_file does (the same
 * limit, the NUL after the last byte). */
int tool_read_opened(FILE *f, const char *path, const char *what, char **out_data, size_t *out_size);

typedef struct tool_output {
    FILE *f;
    char *path;   /* the target, as named */
    char *target; /* the file renamed over (a symlink's target), NULL when written in place */
    char *tmp;    /* the temporary beside it */
} tool_output;

/* Creates the temporary for path (opened "wb" in o->f), or opens a device, FIFO or descriptor
 * to write in place (see above). TOOL_FAILED with a message naming path and `what` when it
 * cannot; TOOL_BAD_INPUT for a directory or another kind of file that cannot be an output. */
int tool_output_open(tool_output *o, const char *path, const char *what);
/* Closes the temporary and renames it to the target (an output written in place: flushes and
 * closes it); on a write, close or rename error the temporary is removed and TOOL_FAILED
 * returned. Safe on an output never opened. */
int tool_output_commit(tool_output *o, const char *what);
/* Closes and removes the temporary. Safe on an output never opened or already committed. */
void tool_output_abort(tool_output *o);

/* One file a command names: outputs may not exist yet. */
typedef struct tool_named_file {
    const char *flag; /* "--trace", "scene", ... for messages */
    const char *path; /* NULL or "-": not a file (skipped) */
    bool output;
} tool_named_file;

/* Refuses (TOOL_BAD_INPUT, naming both flags) any output that is the same file as another
 * output, as an input in files or as any input read so far (tool_inputs), compared by device
 * and inode (an output that does not exist yet by its folder's device and inode and its name;
 * an input that does not exist is skipped: its reader reports it), and an output that cannot be
 * one (a directory, a block device, a socket), before anything is written. Character devices
 * (/dev/null) are exempt from the same-file rule: several outputs may go to one. */
int tool_check_aliases(const char *command, const tool_named_file *files, size_t count);

/* An input file read so far (in the order read). */
typedef struct tool_input {
    char *path;
    char *what; /* "pose clip", "face track", ... */
    uint64_t dev, ino;
    uint64_t digest; /* FNV-1a 64 of its bytes */
} tool_input;
size_t tool_input_count(void);
const tool_input *tool_input_at(size_t index);
/* Forgets every input (tests and a command that starts over). */
void tool_inputs_clear(void);

#endif
