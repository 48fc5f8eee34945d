# crowd_bench_ref: the benchmarks' workloads and their two yardsticks (the per-object way with
# cglm, and STREAM's triad and copy), in C so that both the Google Benchmark programs in bench/
# and `crowd bench` (tools/) link them. Included from both places; defined once.
include_guard(GLOBAL)

add_library(crowd_bench_ref STATIC
  ${CMAKE_CURRENT_LIST_DIR}/reference.c
  ${CMAKE_CURRENT_LIST_DIR}/workloads.c)
target_include_directories(crowd_bench_ref
  PUBLIC ${CMAKE_CURRENT_LIST_DIR}
  PRIVATE ${PROJECT_SOURCE_DIR}/engine) # random.h: the engine's draws, for the same blink waits
# The project's release flags (-O3) and nothing else: no -march, no -ffast-math, as a user's
# per-object code would be built.
set_target_properties(crowd_bench_ref PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
target_link_libraries(crowd_bench_ref PUBLIC crowd PRIVATE PkgConfig::CGLM m)
crowd_target_flags(crowd_bench_ref)
