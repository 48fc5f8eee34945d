# Every dependency is a Debian package; a missing one stops configuration with the line to run.
include_guard(GLOBAL)
find_package(PkgConfig QUIET)

function(crowd_missing_package package what)
  message(FATAL_ERROR "crowd needs ${what}. Install it with:\n  apt-get install -y ${package}\n")
endfunction()

if(NOT PKG_CONFIG_FOUND)
  crowd_missing_package(pkg-config "pkg-config")
endif()

# crowd_require_pkg(PREFIX module package what): the imported target PkgConfig::PREFIX, or stop
# with the package to install. A macro: pkg_check_modules' results must reach the caller.
macro(crowd_require_pkg prefix module package what)
  pkg_check_modules(${prefix} QUIET IMPORTED_TARGET ${module})
  if(NOT ${prefix}_FOUND)
    crowd_missing_package(${package} "${what}")
  endif()
endmacro()

# SIMDe is headers only: wrap it in an imported target.
find_path(CROWD_SIMDE_INCLUDE_DIR simde/x86/avx512.h)
if(NOT CROWD_SIMDE_INCLUDE_DIR)
  crowd_missing_package(libsimde-dev "SIMDe (SIMD Everywhere)")
endif()
if(NOT TARGET simde::simde)
  add_library(simde::simde INTERFACE IMPORTED)
  set_target_properties(simde::simde PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${CROWD_SIMDE_INCLUDE_DIR}")
endif()

crowd_require_pkg(CGLM cglm libcglm-dev "cglm")

if(CROWD_BUILD_TESTS)
  crowd_require_pkg(CMOCKA cmocka libcmocka-dev "cmocka (the test framework)")
endif()

if(CROWD_BUILD_IO)
  crowd_require_pkg(JANSSON jansson libjansson-dev "jansson (JSON scenes)")
  crowd_require_pkg(LIBPNG libpng libpng-dev "libpng (crowd render)")
  crowd_require_pkg(GIFLIB libgif libgif-dev "giflib (crowd render --gif)")
  crowd_require_pkg(LIBLO liblo liblo-dev "liblo (OSC for --vmc and crowd stream)")
  crowd_require_pkg(SNDFILE sndfile libsndfile1-dev "libsndfile (WAV files for lip sync)")
endif()

if(CROWD_BUILD_BENCH)
  find_package(benchmark CONFIG QUIET)
  if(NOT benchmark_FOUND)
    crowd_missing_package(libbenchmark-dev "Google Benchmark")
  endif()
endif()

find_package(Threads REQUIRED)

# MPI for crowd run --mpi (tools only): Open MPI from Debian.
set(CROWD_MPI_ENABLED OFF)
if(CROWD_BUILD_TOOLS AND NOT CROWD_MPI STREQUAL "OFF")
  find_package(MPI COMPONENTS C QUIET)
  if(MPI_C_FOUND)
    set(CROWD_MPI_ENABLED ON)
  elseif(CROWD_MPI STREQUAL "ON")
    crowd_missing_package("openmpi-bin libopenmpi-dev" "MPI (CROWD_MPI=ON)")
  else()
    message(STATUS "crowd: MPI not found: crowd run --mpi is left out (apt-get install -y openmpi-bin libopenmpi-dev)")
  endif()
endif()
