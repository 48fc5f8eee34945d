/* crowd run --mpi: the scene's instances sharded over the ranks of an MPI job (mpi_run.h). */
#include "mpi_run.h"

#include "diag.h"
#include "files.h"

#ifndef CROWD_HAVE_MPI

int cmd_run_mpi(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return tool_error(TOOL_BAD_INPUT, "run: --mpi: this crowd was built without MPI (CMake option CROWD_MPI; the "
                      "Debian packages openmpi-bin and libopenmpi-dev)");
}

#else

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "checksum.h"
#include "options.h"
#include "progress.h"
#include "resume.h"
#include "simulate.h"
#include "ticker.h"
#include "world.h"

#define MAX_THREADS 256u
#define MANIFEST "manifest"
#define MANIFEST_MAGIC "crowd run --mpi snapshot 2" /* 2: parts, a checksum line, rank files of format 3 */

static const char mpi_usage[] =
    "usage: mpirun -np K crowd run [SCENE] --mpi [--frames N] [--dt S] [--seed N] [--threads T]\n"
    "                 [--simd T] [--trace FILE] [--bones FILE] [--snapshot-at F DIR] [--resume DIR]\n"
    "                 [--quiet] [--json]\n"
    "Runs the scene sharded over the K processes of an MPI job: each rank ticks a contiguous range\n"
    "of the instances (balanced by bytes per instance) on T threads; rank 0 prints the summary one\n"
    "process would print (the same checksum), plus the ranks and the spread of their tick times.\n"
    "  --trace FILE, --bones FILE   written by rank 0, byte for byte the one-process files\n"
    "  --snapshot-at F DIR   after frame F every rank writes its state to DIR (rank-R.run), rank 0\n"
    "                 DIR/manifest\n"
    "  --resume DIR   continue a run saved by --snapshot-at with any number of ranks\n"
    "  --test-kill-rank R --test-kill-frame F   (tests) rank R kills itself before frame F\n";

/* One world per piece: a fresh run has one, a resumed one a piece per saved piece it overlaps. */
typedef struct shard {
    world *pieces;
    uint32_t piece_count;
    uint32_t first, count; /* the rank's scene instances */
} shard;

typedef struct mpi_options {
    scene_options o;
    const char *trace, *bones, *snapshot_dir, *resume_dir;
    uint32_t snapshot_at;
    bool json, has_kill_rank, has_kill_frame;
    uint32_t kill_rank, kill_frame;
} mpi_options;

static int rank, ranks;

/* ---- agreement: every collective is reached by every rank, or a rank aborts the job ---- */

/* The worst status over the ranks: a failure on one rank ends every rank the same way. */
static int agree(int st) {
    int worst = st;
    MPI_Allreduce(&st, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

/* A failure inside the frame loop, where the others would wait for this rank: end the job. */
static void abort_job(int st) {
    fprintf(stderr, "crowd: rank %d: stopping the MPI job\n", rank);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, st ? st : TOOL_FAILED);
}

static bool launched_by_mpirun(void) {
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"};
    for (size_t k = 0; k < sizeof vars / sizeof *vars; k++)
        if (getenv(vars[k])) return true;
    return false;
}

static int env_rank(void) {
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"};
    for (size_t k = 0; k < sizeof vars / sizeof *vars; k++)
        if (getenv(vars[k])) return atoi(getenv(vars[k]));
    return 0;
}

/* ---- balance ---- */

/* Each rig's bytes per instance as the engine counts them (crowd_rig_bytes_per_instance: its
 * columns, row handle and slot), from an engine holding the scene's rigs and no instance. */
static int rig_costs(const scene *s, crowd_simd simd, uint64_t *cost) {
    world probe;
    int st = world_create_range(&probe, s, simd, 1, 0, 0);
    for (uint32_t r = 0; r < s->rig_count && st == TOOL_OK; r++) {
        size_t bytes = 0;
        crowd_result res = crowd_rig_bytes_per_instance(probe.engine, probe.rigs[r].rig, &bytes);
        if (res != CROWD_OK) st = tool_engine_error(TOOL_FAILED, probe.engine, res, "crowd_rig_bytes_per_instance");
        cost[r] = bytes ? bytes : 1;
    }
    world_destroy(&probe);
    return st;
}

/* bounds[0..K]: rank r holds scene instances bounds[r] .. bounds[r+1]-1, consecutive ranges
 * of about equal bytes, each at least one instance (instances >= K). */
static void balance(const scene *s, const uint64_t *cost, uint32_t instances, uint32_t k_ranks, uint32_t *bounds) {
    uint64_t total = 0;
    for (uint32_t g = 0; g < s->group_count; g++) total += s->groups[g].count * cost[s->groups[g].rig];
    bounds[0] = 0;
    bounds[k_ranks] = instances;
    for (uint32_t r = 1; r < k_ranks; r++) {
        /* the first instance whose bytes before it reach r/K of the total */
        long double target = (long double)total * r / k_ranks;
        uint64_t before = 0, start = 0, at = instances;
        for (uint32_t g = 0; g < s->group_count; g++) {
            uint64_t c = cost[s->groups[g].rig], n = s->groups[g].count;
            if ((long double)(before + c * n) >= target && n) {
                long double need = (target - (long double)before) / (long double)c;
                uint64_t i = (uint64_t)need;
                if ((long double)i < need) i++;
                at = (uint32_t)(start + (i > n ? n : i));
                break;
            }
            before += c * n;
            start += n;
        }
        bounds[r] = (uint32_t)at;
    }
    for (uint32_t r = 1; r < k_ranks; r++) /* every rank at least one instance */
        if (bounds[r] < bounds[r - 1] + 1) bounds[r] = bounds[r - 1] + 1;
    for (uint32_t r = k_ranks - 1; r >= 1; r--)
        if (bounds[r] > bounds[r + 1] - 1) bounds[r] = bounds[r + 1] - 1;
}

/* ---- options ---- */

static int parse(int argc, char **argv, mpi_options *m) {
    tool_args a = {argc, argv, 1, "run"};
    m->o = (scene_options){.threads = 1, .simd = CROWD_SIMD_AUTO};
    for (; a.i < argc; a.i++) {
        const char *v;
        int k;
        if ((k = scene_option(&a, &m->o)) != 0) {
            if (k < 0) return TOOL_BAD_INPUT;
            continue;
        }
        if ((k = args_flag(&a, "--mpi")) != 0) {
            if (k < 0) return TOOL_BAD_INPUT;
            continue;
        }
        if ((k = args_value(&a, "--trace", &v)) != 0) {
            if (k < 0) return TOOL_BAD_INPUT;
            m->trace = v;
            continue;
        }
        if ((k = args_value(&a, "--bones", &v)) != 0) {
            if (k < 0) return TOOL_BAD_INPUT;
            m->bones = v;
            continue;
        }
        if ((k = args_value(&a, "--snapshot-at", &v)) != 0) {
            if (k < 0 || parse_u32(&a, "--snapshot-at", v, 0, 2147483647u, &m->snapshot_at) != TOOL_OK)
                return TOOL_BAD_INPUT;
            if (a.i + 1 >= argc || argv[a.i + 1][0] == 0)
                return tool_error(TOOL_BAD_INPUT, "run: --snapshot-at needs a frame and a DIR with --mpi (--snapshot-at K DIR)");
            m->snapshot_dir = argv[++a.i];
            continue;
        }
        if ((k = args_value(&a, "--resume", &v)) != 0) {
            if (k < 0) return TOOL_BAD_INPUT;
            m->resume_dir = v;
            continue;
        }
        if ((k = args_value(&a, "--test-kill-rank", &v)) != 0) {
            if (k < 0 || parse_u32(&a, "--test-kill-rank", v, 0, 1u << 30, &m->kill_rank) != TOOL_OK)
                return TOOL_BAD_INPUT;
            m->has_kill_rank = true;
            continue;
        }
        if ((k = args_value(&a, "--test-kill-frame", &v)) != 0) {
            if (k < 0 || parse_u32(&a, "--test-kill-frame", v, 1, 2147483647u, &m->kill_frame) != TOOL_OK)
                return TOOL_BAD_INPUT;
            m->has_kill_frame = true;
            continue;
        }
        if ((k = args_flag(&a, "--json")) != 0) {
            if (k < 0) return TOOL_BAD_INPUT;
            m->json = true;
            continue;
        }
        static const char *const one_process[] = {"--bvh", "--vmc", "--realtime", "--instance"};
        for (size_t j = 0; j < sizeof one_process / sizeof *one_process; j++)
            if (strncmp(argv[a.i], one_process[j], strlen(one_process[j])) == 0)
                return tool_error(TOOL_BAD_INPUT, "run: %s is not available with --mpi (one instance's output: run it "
                                  "in one process)", one_process[j]);
        if (argv[a.i][0] == '-' && argv[a.i][1] != 0) return args_unexpected(&a);
        if (m->o.scene_path) return args_unexpected(&a);
        m->o.scene_path = argv[a.i];
    }
    if (m->has_kill_rank != m->has_kill_frame)
        return tool_error(TOOL_BAD_INPUT, "run: --test-kill-rank and --test-kill-frame go together");
    if (m->trace && m->bones && strcmp(m->trace, m->bones) == 0)
        return tool_error(TOOL_BAD_INPUT, "run: --trace and --bones name the same file %s", m->trace);
    return TOOL_OK;
}

static int quiet_stderr(void);
static void restore_stderr(int saved);

/* ---- snapshots: DIR/rank-R.run (and rank-R.P.run for a rank's further pieces), DIR/manifest ---- */

typedef struct piece_entry {
    uint32_t first, count;
    char file[64];
} piece_entry;

/* Two sets of names, used in turn: a snapshot into a folder holding one writes the other set and
 * then switches the manifest to it, so a crash in between leaves the earlier snapshot whole. */
static void piece_file(char *out, size_t size, int r, uint32_t p, int set) {
    const char *tag = set ? ".b" : "";
    if (p == 0) snprintf(out, size, "rank-%d%s.run", r, tag);
    else snprintf(out, size, "rank-%d.%u%s.run", r, p, tag);
}

static char *join(const char *dir, const char *file) {
    size_t n = strlen(dir) + strlen(file) + 2;
    char *p = tool_malloc(n);
    if (p) snprintf(p, n, "%s/%s", dir, file);
    return p;
}

/* Collective: every rank writes its pieces, then rank 0 the manifest naming them all. */
static int save_snapshot(const shard *sh, const scene *s, uint32_t frame, const char *dir) {
    int st = TOOL_OK;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        st = tool_error(TOOL_FAILED, "%s: cannot create the snapshot folder: %s", dir, strerror(errno));
    /* the set the folder's manifest does not name (rank 0 reads it; the others follow) */
    int set = 0;
    if (rank == 0) {
        char *path = join(dir, MANIFEST);
        int fd = path ? open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) : -1; /* (a FIFO there must not block) */
        struct stat info;
        FILE *f = fd >= 0 && fstat(fd, &info) == 0 && S_ISREG(info.st_mode) ? fdopen(fd, "rb") : NULL;
        if (f) {
            char line[256];
            while (fgets(line, sizeof line, f))
                if (strncmp(line, "piece ", 6) == 0 && strstr(line, " rank-0.run\n")) set = 1;
            fclose(f);
        } else if (fd >= 0) {
            close(fd);
        }
        free(path);
    }
    MPI_Bcast(&set, 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (uint32_t p = 0; p < sh->piece_count && st == TOOL_OK; p++) {
        char name[64];
        piece_file(name, sizeof name, rank, p, set);
        char *path = join(dir, name);
        st = path ? resume_save(&sh->pieces[p], frame, path) : TOOL_FAILED;
        free(path);
    }
    if ((st = agree(st)) != TOOL_OK) return st;
    /* rank 0 learns every rank's pieces: (first, count) pairs in rank order */
    int mine = (int)sh->piece_count * 2, *sizes = NULL, *offsets = NULL;
    uint32_t *ranges = tool_calloc((size_t)mine + 1, sizeof *ranges), *all = NULL;
    if (!ranges) abort_job(TOOL_FAILED);
    for (uint32_t p = 0; p < sh->piece_count; p++) {
        ranges[2 * p] = sh->pieces[p].first;
        ranges[2 * p + 1] = sh->pieces[p].instance_count;
    }
    if (rank == 0) {
        sizes = tool_calloc((size_t)ranks, sizeof *sizes);
        offsets = tool_calloc((size_t)ranks, sizeof *offsets);
        if (!sizes || !offsets) abort_job(TOOL_FAILED);
    }
    MPI_Gather(&mine, 1, MPI_INT, sizes, 1, MPI_INT, 0, MPI_COMM_WORLD);
    int total = 0;
    if (rank == 0) {
        for (int r = 0; r < ranks; r++) {
            offsets[r] = total;
            total += sizes[r];
        }
        if (!(all = tool_calloc((size_t)total + 1, sizeof *all))) abort_job(TOOL_FAILED);
    }
    MPI_Gatherv(ranges, mine, MPI_UINT32_T, all, sizes, offsets, MPI_UINT32_T, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        /* an exclusive temporary beside the manifest, renamed when complete (files.h) */
        char *path = join(dir, MANIFEST);
        tool_output out = {0};
        st = path ? tool_output_open(&out, path, "snapshot manifest") : TOOL_FAILED;
        if (st == TOOL_OK) {
            /* built in memory: its last line is the checksum of the bytes before it */
            char *text = NULL;
            size_t len = 0;
            FILE *mem = open_memstream(&text, &len);
            if (!mem) abort_job(TOOL_FAILED);
            fprintf(mem, "%s\nframe %u\nranks %d\ninstances %u\nfingerprint 0x%016" PRIx64 "\nparts %u\n", MANIFEST_MAGIC,
                    frame, ranks, world_scene_instances(s), scene_fingerprint(s), scene_part_count(s));
            for (uint32_t k = 0; k < scene_part_count(s); k++) fprintf(mem, "part 0x%016" PRIx64 "\n", scene_part(s, k));
            fprintf(mem, "pieces %d\n", total / 2);
            for (int r = 0; r < ranks; r++)
                for (int p = 0; p < sizes[r] / 2; p++) {
                    char name[64];
                    piece_file(name, sizeof name, r, (uint32_t)p, set);
                    fprintf(mem, "piece %u %u %s\n", all[offsets[r] + 2 * p], all[offsets[r] + 2 * p + 1], name);
                }
            if (fclose(mem) != 0 || !text) abort_job(TOOL_FAILED);
            fwrite(text, 1, len, out.f);
            fprintf(out.f, "checksum 0x%016" PRIx64 "\n", fnv1a64_bytes(FNV1A64_INIT, text, len));
            free(text);
            st = tool_output_commit(&out, "snapshot manifest");
        }
        free(path);
    }
    free(ranges);
    free(all);
    free(sizes);
    free(offsets);
    return agree(st);
}

/* Reads DIR/manifest: the frame and the pieces, which must tile the scene's instances; its last
 * line must be the checksum of the bytes before it. */
static int read_manifest(const char *dir, const scene *s, uint32_t *frame, piece_entry **out, uint32_t *out_count) {
    char *path = join(dir, MANIFEST);
    if (!path) return TOOL_FAILED;
    char *text = NULL;
    size_t size = 0;
    int st = tool_read_file(path, "snapshot manifest (crowd run --mpi --snapshot-at K DIR writes it)", &text, &size);
    if (st != TOOL_OK) {
        free(path);
        return st;
    }
    char magic[64] = {0};
    int old_ranks = 0, count = 0;
    long long saved_frame = 0;
    uint32_t instances = 0, parts = 0;
    uint64_t fingerprint = 0, sum = 0;
    /* the checksum line: the last one */
    size_t body = size;
    if (body > 0 && text[body - 1] == '\n') body--;
    while (body > 0 && text[body - 1] != '\n') body--;
    FILE *f = NULL;
    if (size < sizeof MANIFEST_MAGIC || strncmp(text, "crowd run --mpi snapshot ", 25) != 0)
        st = tool_error(TOOL_BAD_INPUT, "%s:1: not a crowd run --mpi snapshot manifest", path);
    else if (strncmp(text, MANIFEST_MAGIC "\n", sizeof MANIFEST_MAGIC) != 0)
        st = tool_error(TOOL_BAD_INPUT, "%s:1: a manifest of another version (%.*s), this crowd reads \"%s\"", path,
                        (int)strcspn(text, "\n"), text, MANIFEST_MAGIC);
    else if (sscanf(text + body, "checksum %" SCNx64, &sum) != 1 || sum != fnv1a64_bytes(FNV1A64_INIT, text, body))
        st = tool_error(TOOL_BAD_INPUT, "%s: the manifest's checksum line (its last) does not match: the manifest was "
                        "edited or is corrupt", path);
    else if (!(f = fmemopen(text, body, "rb")))
        st = tool_error(TOOL_FAILED, "%s: cannot read the manifest: %s", path, strerror(errno));
    else if (!fgets(magic, sizeof magic, f) ||
             fscanf(f, "frame %lld\nranks %d\ninstances %u\nfingerprint %" SCNx64 "\nparts %u\n", &saved_frame,
                    &old_ranks, &instances, &fingerprint, &parts) != 5 || parts > (1u << 24))
        st = tool_error(TOOL_BAD_INPUT, "%s: lines 2-6 (frame, ranks, instances, fingerprint, parts) are corrupt", path);
    else if (saved_frame < 0 || saved_frame > 2147483647)
        st = tool_error(TOOL_BAD_INPUT, "%s:2: frame %lld is not a frame number (0 to 2147483647)", path, saved_frame);
    *frame = (uint32_t)saved_frame;
    uint64_t *part = st == TOOL_OK ? tool_calloc((size_t)parts + 1, sizeof *part) : NULL;
    if (st == TOOL_OK && !part) st = TOOL_FAILED;
    for (uint32_t k = 0; k < parts && st == TOOL_OK; k++)
        if (fscanf(f, "part %" SCNx64 "\n", &part[k]) != 1)
            st = tool_error(TOOL_BAD_INPUT, "%s:%u: part %u is corrupt", path, 7 + k, k);
    if (st == TOOL_OK && (fscanf(f, "pieces %d\n", &count) != 1 || count < 1 || count > (1 << 24)))
        st = tool_error(TOOL_BAD_INPUT, "%s:%u: the pieces line is corrupt", path, 7 + parts);
    if (st == TOOL_OK && instances != world_scene_instances(s))
        st = tool_error(TOOL_BAD_INPUT, "%s: saved from a scene of %u instances, %s has %u", path, instances, s->path,
                        world_scene_instances(s));
    if (st == TOOL_OK && fingerprint != scene_fingerprint(s)) {
        st = scene_parts_differ(path, s, s->rig_count, part, parts);
        if (st == TOOL_OK)
            st = tool_error(TOOL_BAD_INPUT, "%s: saved from another scene than %s (or another --seed or --dt)", path, s->path);
    }
    free(part);
    piece_entry *e = st == TOOL_OK ? tool_calloc((size_t)count, sizeof *e) : NULL;
    if (st == TOOL_OK && !e) st = TOOL_FAILED;
    uint32_t next = 0;
    for (int p = 0; p < count && st == TOOL_OK; p++) {
        if (fscanf(f, "piece %u %u %63s\n", &e[p].first, &e[p].count, e[p].file) != 3 || e[p].first != next ||
            e[p].count == 0 || e[p].count > instances - next || strchr(e[p].file, '/'))
            st = tool_error(TOOL_BAD_INPUT, "%s:%u: piece %d is corrupt or does not follow the one before", path,
                            8 + parts + (uint32_t)p, p);
        else next += e[p].count;
        for (int q = 0; q < p && st == TOOL_OK; q++)
            if (strcmp(e[q].file, e[p].file) == 0)
                st = tool_error(TOOL_BAD_INPUT, "%s:%u: piece %d names %s, as piece %d does", path, 8 + parts + (uint32_t)p,
                                p, e[p].file, q);
    }
    if (st == TOOL_OK && next != instances)
        st = tool_error(TOOL_BAD_INPUT, "%s: the pieces hold %u of the %u instances", path, next, instances);
    if (f) fclose(f);
    free(text);
    free(path);
    if (st != TOOL_OK) {
        free(e);
        return st;
    }
    *out = e;
    *out_count = (uint32_t)count;
    return TOOL_OK;
}

/* The rank's share of a saved run: each piece it overlaps, loaded and trimmed to the overlap. */
static int load_shard(shard *sh, const scene *s, const mpi_options *m, uint32_t *first_frame) {
    piece_entry *e = NULL;
    uint32_t count = 0, frame = 0;
    int quiet = quiet_stderr(); /* every rank reads the same manifest: rank 0 tells what is wrong */
    int st = read_manifest(m->resume_dir, s, &frame, &e, &count);
    restore_stderr(quiet);
    if (st != TOOL_OK) return st;
    sh->pieces = tool_calloc(count, sizeof *sh->pieces);
    if (!sh->pieces) st = TOOL_FAILED;
    uint32_t lo = sh->first, hi = sh->first + sh->count;
    for (uint32_t p = 0; p < count && st == TOOL_OK; p++) {
        uint32_t a = e[p].first > lo ? e[p].first : lo, b = e[p].first + e[p].count < hi ? e[p].first + e[p].count : hi;
        if (a >= b) continue;
        world *w = &sh->pieces[sh->piece_count++];
        char *path = join(m->resume_dir, e[p].file);
        uint32_t saved = 0;
        st = path ? world_create_range(w, s, m->o.simd, m->o.threads, e[p].first, e[p].count) : TOOL_FAILED;
        if (st == TOOL_OK) st = resume_load(w, path, &saved);
        if (st == TOOL_OK && saved != frame)
            st = tool_error(TOOL_BAD_INPUT, "%s: saved after frame %u, its manifest says %u: a snapshot overwritten "
                            "halfway", path, saved, frame);
        if (st == TOOL_OK && (a != e[p].first || b - a != e[p].count)) st = world_trim(w, a, b - a);
        free(path);
    }
    free(e);
    *first_frame = frame;
    return st;
}

static void shard_destroy(shard *sh) {
    for (uint32_t p = 0; p < sh->piece_count; p++) world_destroy(&sh->pieces[p]);
    free(sh->pieces);
    memset(sh, 0, sizeof *sh);
}

/* ---- the frame loop ---- */

/* Rank 0 appends every rank's lines of frame k to the trace, in rank order (instance order). */
static void gather_trace(trace_file *t, const shard *sh, uint32_t k, bool bones) {
    char *buf = NULL;
    size_t len = 0;
    FILE *ms = open_memstream(&buf, &len);
    if (!ms) abort_job(tool_error(TOOL_FAILED, "open_memstream: %s", strerror(errno)));
    trace_file part = {.f = ms};
    for (uint32_t p = 0; p < sh->piece_count; p++)
        simulate_write_traces(&sh->pieces[p], bones ? NULL : &part, bones ? &part : NULL, k);
    if (fclose(ms) != 0) abort_job(tool_error(TOOL_FAILED, "open_memstream: out of memory"));
    if (len > (size_t)INT32_MAX) abort_job(tool_error(TOOL_FAILED, "a frame's trace over 2 GiB on one rank"));
    int n = (int)len, *sizes = NULL, *offsets = NULL;
    char *all = NULL;
    if (rank == 0) {
        sizes = tool_calloc((size_t)ranks, sizeof *sizes);
        offsets = tool_calloc((size_t)ranks, sizeof *offsets);
        if (!sizes || !offsets) abort_job(TOOL_FAILED);
    }
    MPI_Gather(&n, 1, MPI_INT, sizes, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        long long total = 0;
        for (int r = 0; r < ranks; r++) {
            if (total + sizes[r] > INT32_MAX) abort_job(tool_error(TOOL_FAILED, "a frame's trace over 2 GiB"));
            offsets[r] = (int)total;
            total += sizes[r];
        }
        if (!(all = tool_malloc((size_t)total + 1))) abort_job(TOOL_FAILED);
    }
    MPI_Gatherv(buf, n, MPI_CHAR, all, sizes, offsets, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0) fwrite(all, 1, (size_t)offsets[ranks - 1] + (size_t)sizes[ranks - 1], t->f);
    free(buf);
    free(all);
    free(sizes);
    free(offsets);
}

/* MPI_Op: inout = in then inout (in holds the lower ranks' instances). */
static void combine_parts(void *in, void *inout, int *len, MPI_Datatype *type) {
    (void)type;
    const uint64_t *a = in;
    uint64_t *b = inout;
    for (int k = 0; k < *len; k++) {
        checksum_part c = checksum_combine((checksum_part){a[2 * k], a[2 * k + 1]}, (checksum_part){b[2 * k], b[2 * k + 1]});
        b[2 * k] = c.sum;
        b[2 * k + 1] = c.scale;
    }
}

static checksum_part reduce_checksum(const shard *sh) {
    checksum_part part = checksum_empty();
    for (uint32_t p = 0; p < sh->piece_count; p++) part = checksum_combine(part, world_checksum_part(&sh->pieces[p]));
    uint64_t mine[2] = {part.sum, part.scale}, all[2] = {0, 1};
    MPI_Datatype pair;
    MPI_Op op;
    MPI_Type_contiguous(2, MPI_UINT64_T, &pair);
    MPI_Type_commit(&pair);
    MPI_Op_create(combine_parts, 0 /* not commutative: rank order */, &op);
    MPI_Reduce(mine, all, 1, pair, op, 0, MPI_COMM_WORLD);
    MPI_Op_free(&op);
    MPI_Type_free(&pair);
    return (checksum_part){all[0], all[1]};
}

static void print_summary(const scene *s, const shard *sh, const mpi_options *m, uint32_t first, uint32_t instances,
                          const uint32_t *bounds, const uint64_t *cost, const double *seconds, uint64_t sum) {
    uint32_t ticked = s->frames - first;
    double slowest = 0, fastest = seconds[0], mean = 0;
    for (int r = 0; r < ranks; r++) {
        if (seconds[r] > slowest) slowest = seconds[r];
        if (seconds[r] < fastest) fastest = seconds[r];
        mean += seconds[r] / ranks;
    }
    /* the job is as fast as its slowest rank */
    double rate = slowest > 0 ? (double)instances * ticked / slowest : 0.0;
    const crowd_engine *e = sh->pieces[0].engine;
    const char *simd = crowd_simd_name(crowd_simd_target(e));
    uint32_t threads = crowd_engine_threads(e);
    if (m->json) {
        printf("{\"instances\": %u, \"frames\": %u, \"tick_seconds\": %.9g, \"updates_per_second\": %.0f, "
               "\"simd\": \"%s\", \"threads\": %u, \"checksum\": \"0x%016" PRIx64 "\", \"ranks\": %d, "
               "\"rank_tick_seconds\": [",
               instances, ticked, slowest, rate, simd, threads, sum, ranks);
        for (int r = 0; r < ranks; r++) printf("%s%.9g", r ? ", " : "", seconds[r]);
        printf("], \"rank_instances\": [");
        for (int r = 0; r < ranks; r++) printf("%s%u", r ? ", " : "", bounds[r + 1] - bounds[r]);
        printf("], \"rig_bytes_per_instance\": [");
        for (uint32_t r = 0; r < s->rig_count; r++) printf("%s%" PRIu64, r ? ", " : "", cost[r]);
        printf("]}\n");
    } else {
        printf("scene               %s\n", s->path);
        if (m->resume_dir) printf("resumed             %s (after frame %u)\n", m->resume_dir, first);
        printf("instances           %u\n", instances);
        if (m->resume_dir)
            printf("frames              %u (%u to %u, dt %.9g s)\n", ticked, first + 1, s->frames, (double)s->dt);
        else
            printf("frames              %u (dt %.9g s)\n", ticked, (double)s->dt);
        printf("tick seconds        %.6f (the slowest rank)\n", slowest);
        printf("instance-updates/s  %.4g\n", rate);
        printf("simd                %s\n", simd);
        printf("threads             %u per rank\n", threads);
        printf("ranks               %d\n", ranks);
        printf("rank tick seconds   min %.6f, mean %.6f, max %.6f (spread %.1f%% of the mean)\n", fastest, mean,
               slowest, mean > 0 ? 100.0 * (slowest - fastest) / mean : 0.0);
        if (m->snapshot_dir) printf("snapshot            %s (after frame %u)\n", m->snapshot_dir, m->snapshot_at);
        printf("checksum            0x%016" PRIx64 "\n", sum);
    }
    fflush(stdout);
}

static int run_frames(shard *sh, const scene *s, const mpi_options *m, uint32_t first, trace_file *params,
                      trace_file *bones, double *seconds) {
    int st = TOOL_OK;
    if (m->snapshot_dir && m->snapshot_at == first) st = save_snapshot(sh, s, first, m->snapshot_dir);
    progress pr;
    progress_start(&pr, m->o.quiet || rank != 0, s->frames, world_scene_instances(s));
    for (uint32_t k = first + 1; st == TOOL_OK && k <= s->frames; k++) {
        if (m->has_kill_rank && m->kill_rank == (uint32_t)rank && m->kill_frame == k) {
            fprintf(stderr, "crowd: rank %d: --test-kill-rank: killing myself before frame %u\n", rank, k);
            fflush(stderr);
            raise(SIGKILL);
        }
        if (tool_interrupted) abort_job(tool_error(TOOL_FAILED, "interrupted"));
        for (uint32_t p = 0; p < sh->piece_count; p++) {
            world_prepare_frame(&sh->pieces[p], k, s->dt);
            if (ticker_tick(&sh->pieces[p], s->dt, seconds) != TOOL_OK) abort_job(TOOL_FAILED);
        }
        if (m->trace) gather_trace(params, sh, k, false);
        if (m->bones) gather_trace(bones, sh, k, true);
        if (m->snapshot_dir && k == m->snapshot_at) st = save_snapshot(sh, s, k, m->snapshot_dir);
        progress_update(&pr, k);
    }
    progress_end(&pr);
    return st;
}

/* Messages that every rank would print alike (usage, the scene) come from rank 0 only. */
static int quiet_stderr(void) {
    if (env_rank() == 0) return -1;
    fflush(stderr);
    int saved = dup(2), null = open("/dev/null", O_WRONLY);
    if (saved >= 0 && null >= 0) dup2(null, 2);
    if (null >= 0) close(null);
    return saved;
}

static void restore_stderr(int saved) {
    if (saved < 0) return;
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
}

int cmd_run_mpi(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(mpi_usage, stdout);
            return TOOL_OK;
        }
    if (!launched_by_mpirun())
        return tool_error(TOOL_BAD_INPUT, "run: --mpi: not started by mpirun; run `mpirun -np K crowd run [SCENE] --mpi "
                          "...` (K processes, each ticking a share of the crowd), or leave out --mpi");
    mpi_options m = {0};
    scene s;
    memset(&s, 0, sizeof s);
    int saved = quiet_stderr();
    int st = parse(argc, argv, &m);
    if (st == TOOL_OK) st = scene_options_load(&m.o, &s);
    if (st == TOOL_OK) { /* rank 0's outputs against each other and every file the scene read */
        const tool_named_file files[3] = {
            {"--trace", m.trace, true}, {"--bones", m.bones, true}, {"the scene", m.o.scene_path, false}};
        st = tool_check_aliases("run", files, 3);
    }
    if (st == TOOL_OK && m.bones && scene_rig_without(&s, CROWD_FIELD_BONE_WORLD) >= 0)
        st = scene_rig_lacks(&s.rigs[scene_rig_without(&s, CROWD_FIELD_BONE_WORLD)], CROWD_FIELD_BONE_WORLD, "run: --bones");
    restore_stderr(saved);

    int provided = 0;
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        scene_free(&s);
        return tool_error(TOOL_FAILED, "run: --mpi: MPI_Init failed");
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    st = agree(st);

    uint32_t instances = st == TOOL_OK ? world_scene_instances(&s) : 0;
    if (st == TOOL_OK && (uint64_t)ranks > instances) {
        if (rank == 0)
            tool_error(TOOL_BAD_INPUT, "run: --mpi: %d ranks for %u instances: every rank needs at least one (mpirun -np "
                       "%u or fewer)", ranks, instances, instances);
        st = TOOL_BAD_INPUT;
    }
    shard sh = {0};
    uint32_t first = 0, *bounds = NULL;
    uint64_t *cost = NULL; /* each rig's bytes per instance */
    if (st == TOOL_OK) {
        bounds = tool_calloc((size_t)ranks + 1, sizeof *bounds);
        cost = tool_calloc(s.rig_count + 1, sizeof *cost);
        if (!bounds || !cost) abort_job(TOOL_FAILED);
        st = agree(rig_costs(&s, m.o.simd, cost)); /* the same on every rank: the same scene and library */
        if (st == TOOL_OK) balance(&s, cost, instances, (uint32_t)ranks, bounds);
    }
    if (st == TOOL_OK) {
        sh.first = bounds[rank];
        sh.count = bounds[rank + 1] - bounds[rank];
        if (m.resume_dir) {
            st = load_shard(&sh, &s, &m, &first);
        } else if (!(sh.pieces = tool_calloc(1, sizeof *sh.pieces))) {
            st = TOOL_FAILED;
        } else {
            sh.piece_count = 1;
            st = world_create_range(&sh.pieces[0], &s, m.o.simd, m.o.threads, sh.first, sh.count);
        }
        st = agree(st);
    }
    /* every rank read the same manifest: the same first frame */
    if (st == TOOL_OK && first > s.frames) {
        if (rank == 0)
            tool_error(TOOL_BAD_INPUT, "run: %s was saved after frame %u, past this run's last frame %u (--frames)",
                       m.resume_dir, first, s.frames);
        st = TOOL_BAD_INPUT;
    }
    if (st == TOOL_OK && m.snapshot_dir && (m.snapshot_at < first || m.snapshot_at > s.frames)) {
        if (rank == 0)
            tool_error(TOOL_BAD_INPUT, "run: --snapshot-at %u is outside the frames of this run (%u to %u)", m.snapshot_at,
                       first, s.frames);
        st = TOOL_BAD_INPUT;
    }
    trace_file params = {0}, bones = {0};
    if (st == TOOL_OK) { /* every rank got here: agree on rank 0's opening the traces */
        int opened = TOOL_OK;
        if (rank == 0 && m.trace) opened = trace_open(&params, m.trace, TRACE_PARAMETER_HEADER);
        if (rank == 0 && opened == TOOL_OK && m.bones) opened = trace_open(&bones, m.bones, TRACE_BONE_HEADER);
        st = agree(opened);
    }
    double seconds = 0;
    if (st == TOOL_OK) st = run_frames(&sh, &s, &m, first, &params, &bones, &seconds);
    if (st == TOOL_OK) {
        checksum_part sum = reduce_checksum(&sh);
        double *all = rank == 0 ? tool_calloc((size_t)ranks, sizeof *all) : NULL;
        if (rank == 0 && !all) abort_job(TOOL_FAILED);
        MPI_Gather(&seconds, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            st = trace_finish(&params);
            if (st == TOOL_OK) st = trace_finish(&bones);
            if (st == TOOL_OK) print_summary(&s, &sh, &m, first, instances, bounds, cost, all, sum.sum);
        }
        free(all);
        st = agree(st);
    }
    trace_abort(&params);
    trace_abort(&bones);
    shard_destroy(&sh);
    free(bounds);
    free(cost);
    scene_free(&s);
    MPI_Finalize();
    return st;
}

#endif
