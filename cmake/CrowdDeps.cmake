# Every dependency is a Debian package; a missing one stops configuration with the line to run.
include_guard(GLOBAL)
find_package(PkgConfig QUIET)

function(crowd_missing_package package what)
  message(FATAL_ERROR "crowd needs ${what}. Install it with:\n  apt-get install -y ${package}\n")
endfunction()

if(NOT PKG_CONFIG_FOUND)
  crowd_missing_package(pkg-config "pkg-config")
endif()

# SIMDe is headers only: wrap it in an imported target.
find_path(CROWD_SIMDE_INCLUDE_DIR simde/x86/avx512.h)
if(NOT CROWD_SIMDE_INCLUDE_DIR)
  crowd_missing_package(libsimde-dev "SIMDe (SIMD Everywhere)")
endif()
if(NOT TARGET simde::simde)
  add_library(simde::simde INTERFACE IMPORTED)
  set_target_properties(simde::simde PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${CROWD_SIMDE_INCLUDE_DIR}")
endif()

pkg_check_modules(CGLM QUIET IMPORTED_TARGET cglm)
if(NOT CGLM_FOUND)
  crowd_missing_package(libcglm-dev "cglm")
endif()

if(CROWD_BUILD_TESTS)
  pkg_check_modules(CMOCKA QUIET IMPORTED_TARGET cmocka)
  if(NOT CMOCKA_FOUND)
    crowd_missing_package(libcmocka-dev "cmocka (the test framework)")
  endif()
endif()

if(CROWD_BUILD_TOOLS)
  pkg_check_modules(JANSSON QUIET IMPORTED_TARGET jansson)
  if(NOT JANSSON_FOUND)
    crowd_missing_package(libjansson-dev "jansson (JSON scenes)")
  endif()
  pkg_check_modules(LIBPNG QUIET IMPORTED_TARGET libpng)
  if(NOT LIBPNG_FOUND)
    crowd_missing_package(libpng-dev "libpng (crowd render)")
  endif()
endif()

if(CROWD_BUILD_BENCH)
  find_package(benchmark CONFIG QUIET)
  if(NOT benchmark_FOUND)
    crowd_missing_package(libbenchmark-dev "Google Benchmark")
  endif()
endif()

find_package(Threads REQUIRED)
