#define _XOPEN_SOURCE 700 /* realpath */
#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checksum.h"
#include "diag.h"

uint64_t tool_max_file_bytes = TOOL_DEFAULT_MAX_FILE_BYTES;

static int check_stat(const char *path, const char *what, const struct stat *st) {
    if (!S_ISREG(st->st_mode))
        return tool_error(TOOL_BAD_INPUT, "%s: the %s is not a regular file (%s); crowd reads only regular files", path,
                          what, S_ISDIR(st->st_mode) ? "a directory" : S_ISFIFO(st->st_mode) ? "a pipe" : "a device or socket");
    if ((uint64_t)st->st_size > tool_max_file_bytes)
        return tool_error(TOOL_BAD_INPUT, "%s: the %s has %llu bytes, more than the limit of %llu (--max-file-bytes)", path,
                          what, (unsigned long long)st->st_size, (unsigned long long)tool_max_file_bytes);
    return TOOL_OK;
}

/* ---- the inputs read so far ---- */
static tool_input *inputs;
static size_t input_count, input_capacity;

size_t tool_input_count(void) { return input_count; }
const tool_input *tool_input_at(size_t index) { return index < input_count ? &inputs[index] : NULL; }

void tool_inputs_clear(void) {
    for (size_t k = 0; k < input_count; k++) free(inputs[k].path), free(inputs[k].what);
    free(inputs);
    inputs = NULL;
    input_count = input_capacity = 0;
}

/* Every file opened for reading is remembered with a digest of its bytes, read here with pread
 * (the readers stream some files: this sees them whole without holding them). */
static int remember_input(int fd, const struct stat *st, const char *path, const char *what) {
    uint64_t digest = FNV1A64_INIT;
    char buf[1 << 16];
    for (off_t at = 0;;) {
        ssize_t got = pread(fd, buf, sizeof buf, at);
        if (got < 0 && errno == EINTR && !tool_interrupted) continue;
        if (got < 0) return tool_error(TOOL_BAD_INPUT, "%s: cannot read the %s: %s", path, what, strerror(errno));
        if (got == 0) break;
        digest = fnv1a64_bytes(digest, buf, (size_t)got);
        at += got;
        if ((uint64_t)at > tool_max_file_bytes) break; /* growing while read: its reader refuses it */
    }
    if (input_count == input_capacity) {
        size_t cap = input_capacity ? 2 * input_capacity : 16;
        tool_input *grown = tool_realloc(inputs, cap, sizeof *grown);
        if (!grown) return TOOL_FAILED;
        inputs = grown, input_capacity = cap;
    }
    tool_input *in = &inputs[input_count];
    in->path = tool_strdup(path);
    in->what = tool_strdup(what);
    if (!in->path || !in->what) {
        free(in->path), free(in->what);
        return TOOL_FAILED;
    }
    in->dev = (uint64_t)st->st_dev, in->ino = (uint64_t)st->st_ino;
    in->digest = digest;
    input_count++;
    return TOOL_OK;
}

int tool_open_file(const char *path, const char *what, FILE **out) {
    *out = NULL;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* a FIFO must not block the open */
    if (fd < 0) return tool_error(TOOL_BAD_INPUT, "%s: cannot open the %s: %s", path, what, strerror(errno));
    struct stat st;
    int res = fstat(fd, &st) == 0 ? check_stat(path, what, &st)
                                  : tool_error(TOOL_BAD_INPUT, "%s: cannot read the %s: %s", path, what, strerror(errno));
    int flags = fcntl(fd, F_GETFL);
    if (res == TOOL_OK && (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0))
        res = tool_error(TOOL_BAD_INPUT, "%s: cannot read the %s: %s", path, what, strerror(errno));
    if (res == TOOL_OK) res = remember_input(fd, &st, path, what);
    FILE *f = res == TOOL_OK ? fdopen(fd, "rb") : NULL;
    if (res == TOOL_OK && !f) res = tool_error(TOOL_FAILED, "%s: cannot read the %s: %s", path, what, strerror(errno));
    if (!f) {
        close(fd);
        return res;
    }
    *out = f;
    return TOOL_OK;
}

int tool_read_opened(FILE *f, const char *path, const char *what, char **out_data, size_t *out_size) {
    *out_data = NULL;
    *out_size = 0;
    struct stat st;
    size_t cap = fstat(fileno(f), &st) == 0 && (uint64_t)st.st_size < tool_max_file_bytes ? (size_t)st.st_size + 1 : 1 << 16;
    size_t size = 0;
    char *data = tool_malloc(cap + 1);
    if (!data) return TOOL_FAILED;
    /* a file that grows while read stops at the limit + 1 byte: refused, never unbounded */
    for (;;) {
        if (size == cap) {
            if ((uint64_t)size > tool_max_file_bytes) break;
            size_t grown = cap * 2 > tool_max_file_bytes + 1 ? (size_t)tool_max_file_bytes + 1 : cap * 2;
            char *d = tool_realloc(data, grown + 1, 1);
            if (!d) {
                free(data);
                return TOOL_FAILED;
            }
            data = d, cap = grown;
        }
        errno = 0;
        size_t got = fread(data + size, 1, cap - size, f);
        size += got;
        if (got == 0 && ferror(f) && errno == EINTR) { /* a signal, not an error: go on */
            clearerr(f);
            continue;
        }
        if (got == 0) break;
    }
    if (ferror(f)) {
        int e = errno;
        free(data);
        return tool_error(TOOL_BAD_INPUT, "%s: cannot read the %s: %s", path, what, strerror(e));
    }
    if ((uint64_t)size > tool_max_file_bytes) {
        free(data);
        return tool_error(TOOL_BAD_INPUT, "%s: the %s grew past the limit of %llu bytes while read (--max-file-bytes)",
                          path, what, (unsigned long long)tool_max_file_bytes);
    }
    data[size] = 0;
    *out_data = data;
    *out_size = size;
    return TOOL_OK;
}

int tool_read_file(const char *path, const char *what, char **out_data, size_t *out_size) {
    *out_data = NULL;
    *out_size = 0;
    FILE *f;
    int st = tool_open_file(path, what, &f);
    if (st != TOOL_OK) return st;
    st = tool_read_opened(f, path, what, out_data, out_size);
    fclose(f);
    return st;
}

/* The descriptor /dev/stdin, /dev/stdout, /dev/stderr, /dev/fd/N or /proc/self/fd/N names, or -1. */
static int named_descriptor(const char *path) {
    if (strcmp(path, "/dev/stdin") == 0) return 0;
    if (strcmp(path, "/dev/stdout") == 0) return 1;
    if (strcmp(path, "/dev/stderr") == 0) return 2;
    const char *n = strncmp(path, "/dev/fd/", 8) == 0 ? path + 8 : strncmp(path, "/proc/self/fd/", 14) == 0 ? path + 14 : NULL;
    if (!n || *n < '0' || *n > '9') return -1;
    char *end;
    long fd = strtol(n, &end, 10);
    return *end == 0 && fd <= INT_MAX ? (int)fd : -1;
}

static const char *kind_name(mode_t mode) {
    return S_ISDIR(mode) ? "a directory" : S_ISBLK(mode) ? "a block device" : S_ISSOCK(mode) ? "a socket" : "not a file";
}

/* Written in place: a descriptor's duplicate, or the device or FIFO opened for writing. */
static int open_in_place(tool_output *o, const char *path, const char *what, int named) {
    int fd;
    do
        fd = named >= 0 ? fcntl(named, F_DUPFD_CLOEXEC, 3) : open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR && !tool_interrupted); /* a FIFO waits for its reader */
    if (fd < 0 || !(o->f = fdopen(fd, "wb"))) {
        int e = errno;
        if (fd >= 0) close(fd);
        tool_output_abort(o);
        return tool_error(TOOL_FAILED, "%s: cannot write the %s: %s", path, what, strerror(e));
    }
    return TOOL_OK;
}

int tool_output_open(tool_output *o, const char *path, const char *what) {
    memset(o, 0, sizeof *o);
    if (!(o->path = tool_strdup(path))) return TOOL_FAILED;
    int named = named_descriptor(path);
    if (named >= 0) return open_in_place(o, path, what, named);
    struct stat st, lst;
    bool exists = stat(path, &st) == 0;
    if (exists && !S_ISREG(st.st_mode)) {
        if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) return open_in_place(o, path, what, -1);
        tool_output_abort(o);
        return tool_error(TOOL_BAD_INPUT, "%s: the %s cannot be written there: it is %s", path, what, kind_name(st.st_mode));
    }
    bool link = lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode);
    if (link && !exists) {
        tool_output_abort(o);
        return tool_error(TOOL_BAD_INPUT, "%s: the %s cannot be written there: a symbolic link to nothing", path, what);
    }
    /* a link: its target is replaced (the temporary goes beside the target, the link stays) */
    o->target = link ? realpath(path, NULL) : tool_strdup(path);
    if (!o->target) {
        int e = errno;
        tool_output_abort(o);
        return tool_error(TOOL_FAILED, "%s: cannot write the %s: %s", path, what, strerror(e));
    }
    size_t n = strlen(o->target);
    o->tmp = tool_malloc(n + 8);
    if (!o->tmp) {
        tool_output_abort(o);
        return TOOL_FAILED;
    }
    memcpy(o->tmp, o->target, n);
    memcpy(o->tmp + n, ".XXXXXX", 8);
    int fd = mkstemp(o->tmp); /* O_CREAT|O_EXCL in the target's folder */
    if (fd < 0) {
        int e = errno;
        free(o->tmp);
        o->tmp = NULL;
        tool_output_abort(o);
        return tool_error(TOOL_FAILED, "%s: cannot write the %s: %s", path, what, strerror(e));
    }
    mode_t mask = umask(0); /* the mode fopen would give: 0666 less the umask */
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0 || !(o->f = fdopen(fd, "wb"))) {
        int e = errno;
        close(fd);
        tool_output_abort(o);
        return tool_error(TOOL_FAILED, "%s: cannot write the %s: %s", path, what, strerror(e));
    }
    return TOOL_OK;
}

int tool_output_commit(tool_output *o, const char *what) {
    if (!o->f) {
        tool_output_abort(o);
        return TOOL_OK;
    }
    int bad = ferror(o->f);
    if (fclose(o->f) != 0) bad = 1;
    o->f = NULL;
    int st = TOOL_OK;
    if (bad) st = tool_error(TOOL_FAILED, "%s: cannot write the %s (disk full?)", o->path, what);
    else if (o->tmp && rename(o->tmp, o->target) != 0)
        st = tool_error(TOOL_FAILED, "%s: cannot rename %s to it: %s", o->target, o->tmp, strerror(errno));
    else {
        free(o->tmp);
        o->tmp = NULL; /* renamed: nothing left to remove */
    }
    tool_output_abort(o);
    return st;
}

void tool_output_abort(tool_output *o) {
    if (o->f) fclose(o->f);
    if (o->tmp) remove(o->tmp);
    free(o->path);
    free(o->target);
    free(o->tmp);
    memset(o, 0, sizeof *o);
}

/* ---- aliases ---- */
typedef struct file_key {
    dev_t dev;
    ino_t ino;
    const char *name; /* NULL: (dev, ino) is the file's own; else its folder's, and its name */
} file_key;

static bool key_of(const char *path, bool output, file_key *k) {
    struct stat st;
    memset(k, 0, sizeof *k);
    if (stat(path, &st) == 0) {
        k->dev = st.st_dev, k->ino = st.st_ino;
        return true;
    }
    if (!output) return false;
    /* not there yet: its folder and name (a missing folder cannot alias anything) */
    const char *slash = strrchr(path, '/');
    char dir[4096];
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == path) snprintf(dir, sizeof dir, "/");
    else if ((size_t)(slash - path) < sizeof dir) snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    else return false;
    if (stat(dir, &st) != 0) return false;
    k->dev = st.st_dev, k->ino = st.st_ino;
    k->name = slash ? slash + 1 : path;
    return true;
}

static bool same_key(const file_key *a, const file_key *b) {
    if (a->dev != b->dev || a->ino != b->ino) return false;
    if (!a->name || !b->name) return !a->name && !b->name;
    return strcmp(a->name, b->name) == 0;
}

int tool_check_aliases(const char *command, const tool_named_file *files, size_t count) {
    for (size_t i = 0; i < count; i++) {
        if (!files[i].output || !files[i].path || strcmp(files[i].path, "-") == 0) continue;
        struct stat st;
        if (stat(files[i].path, &st) == 0) {
            if (S_ISCHR(st.st_mode)) continue; /* /dev/null, a terminal: any number of outputs */
            if (named_descriptor(files[i].path) < 0 && !S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
                return tool_error(TOOL_BAD_INPUT, "%s: %s %s is %s; an output must be a file, a FIFO or a device",
                                  command, files[i].flag, files[i].path, kind_name(st.st_mode));
        }
        file_key ki;
        if (!key_of(files[i].path, true, &ki)) continue;
        for (size_t j = 0; j < count; j++) {
            if (j == i || !files[j].path || strcmp(files[j].path, "-") == 0) continue;
            if (files[j].output && j < i) continue; /* that pair was compared from j */
            file_key kj;
            if (!key_of(files[j].path, files[j].output, &kj) || !same_key(&ki, &kj)) continue;
            return tool_error(TOOL_BAD_INPUT, "%s: %s %s and %s %s are the same file (an output must be a file of its own)",
                              command, files[i].flag, files[i].path, files[j].flag, files[j].path);
        }
        /* every file read so far, whoever read it */
        for (size_t k = 0; k < input_count && !ki.name; k++)
            if ((uint64_t)ki.dev == inputs[k].dev && (uint64_t)ki.ino == inputs[k].ino)
                return tool_error(TOOL_BAD_INPUT, "%s: %s %s and the %s %s are the same file (an output must be a file of its own)",
                                  command, files[i].flag, files[i].path, inputs[k].what, inputs[k].path);
    }
    return TOOL_OK;
}
