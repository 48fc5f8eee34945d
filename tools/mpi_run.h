/* `mpirun -np K crowd run [SCENE] --mpi ...`: the scene's instances sharded over the K ranks of
 * an MPI job (tools/README.md, "crowd run --mpi"). Rank r ticks scene instances
 * bounds[r] .. bounds[r+1]-1, consecutive ranges of about equal bytes per rank, in a world of
 * its own range (world_create_range: the same rigs, and for its instances the same ids, draws,
 * look keys and pose offsets as one process). Nothing crosses the network inside a frame but
 * trace lines (gathered to rank 0 per frame when --trace/--bones ask for them); at the end the
 * checksum parts are reduced in rank order (log2 K steps) and the tick times gathered. Any
 * failure reaches every rank: statuses are agreed before each collective step, and a rank that
 * fails inside the frame loop aborts the job (MPI_Abort), so no rank waits forever.
 *
 * Built when CMake finds MPI (CROWD_MPI AUTO or ON); otherwise --mpi is refused with the
 * packages to install. The engine library itself knows nothing of MPI. */
#ifndef CROWD_TOOLS_MPI_RUN_H
#define CROWD_TOOLS_MPI_RUN_H

/* crowd run with --mpi among its arguments (argv[0] is "run"). */
int cmd_run_mpi(int argc, char **argv);

#endif
