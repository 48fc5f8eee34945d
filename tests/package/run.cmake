# ctest driver: install the built tree into a scratch prefix, then build and run consumers of
# it as a user would, each checked for the library it really linked:
#   find_package(crowd): crowd::crowd (libcrowd.so) and crowd::crowd_static (libcrowd.a);
#   pkg-config crowd: `--libs` as it stands (libcrowd.so), and `--static --libs` with its
#   -lcrowd asked for as the archive (-l:libcrowd.a, as meson does for a static dependency;
#   libm and libc stay shared).
# -DBUILD=<build dir> -DSRC=<this folder> -DWORK=<scratch dir> -DCC=<C compiler>
# -DFLAGS=<the build's sanitizer flags, for the consumers too> -DSHARED=<libcrowd.so built>
# -DIO=<libcrowd_io.so built>
file(REMOVE_RECURSE ${WORK})
set(prefix ${WORK}/prefix)

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE r OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(r)
    message(FATAL_ERROR "${what} failed (${r}):\n${ARGN}\n${out}${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD} --prefix ${prefix})
file(GLOB_RECURSE pcs ${prefix}/*/crowd.pc)
list(LENGTH pcs npc)
if(NOT npc EQUAL 1)
  message(FATAL_ERROR "expected one installed crowd.pc, found: ${pcs}")
endif()
get_filename_component(pcdir ${pcs} DIRECTORY)
get_filename_component(libdir ${pcdir} DIRECTORY)
if(NOT EXISTS ${libdir}/libcrowd.a OR NOT EXISTS ${prefix}/include/crowd.h)
  message(FATAL_ERROR "libcrowd.a or crowd.h is not installed (${libdir})")
endif()
if(SHARED)
  if(NOT IS_SYMLINK ${libdir}/libcrowd.so OR NOT IS_SYMLINK ${libdir}/libcrowd.so.0)
    message(FATAL_ERROR "libcrowd.so and libcrowd.so.0 must be links to the versioned library")
  endif()
  run("readelf" readelf -d ${libdir}/libcrowd.so)
  if(NOT out MATCHES "Library soname: \\[libcrowd\\.so\\.0\\]")
    message(FATAL_ERROR "libcrowd.so has no SONAME libcrowd.so.0:\n${out}")
  endif()
endif()

# A consumer links libcrowd.so (its NEEDED names libcrowd.so.0) or holds the library itself,
# then runs.
function(check exe kind)
  run("readelf ${exe}" readelf -d ${exe})
  string(FIND "${out}" "[libcrowd.so.0]" needed)
  if(kind STREQUAL "shared" AND needed EQUAL -1)
    message(FATAL_ERROR "${exe} does not load libcrowd.so.0:\n${out}")
  elseif(kind STREQUAL "static" AND NOT needed EQUAL -1)
    message(FATAL_ERROR "${exe} loads libcrowd.so.0 instead of holding libcrowd.a:\n${out}")
  endif()
  run("running ${exe}" ${exe})
  message(STATUS "${exe} (${kind}): ${out}")
endfunction()

# find_package
set(flags "${FLAGS}")
separate_arguments(FLAGS UNIX_COMMAND "${FLAGS}")
run("configuring the find_package consumer" ${CMAKE_COMMAND} -S ${SRC} -B ${WORK}/cmake
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${CC} -DCMAKE_BUILD_TYPE=Release
    "-DCMAKE_C_FLAGS=${flags}" "-DCMAKE_EXE_LINKER_FLAGS=${flags}")
run("building the find_package consumer" ${CMAKE_COMMAND} --build ${WORK}/cmake)
check(${WORK}/cmake/consumer_cmake_static static)
if(SHARED)
  check(${WORK}/cmake/consumer_cmake_shared shared)
endif()
# The io library: installed with the shared library (IO: it was built), found both ways.
if(SHARED AND IO)
  if(NOT EXISTS ${prefix}/include/crowd_io.h OR NOT EXISTS ${WORK}/cmake/consumer_io_cmake)
    message(FATAL_ERROR "crowd_io.h or crowd::crowd_io is not installed")
  endif()
  check(${WORK}/cmake/consumer_io_cmake shared)
endif()

# pkg-config, its output used as it is
set(ENV{PKG_CONFIG_PATH} ${pcdir})
unset(ENV{PKG_CONFIG_LIBDIR})
function(pkg var)
  run("pkg-config ${ARGN}" pkg-config ${ARGN} crowd)
  string(STRIP "${out}" out)
  separate_arguments(out UNIX_COMMAND "${out}")
  set(${var} ${out} PARENT_SCOPE)
endfunction()
pkg(cflags --cflags)
pkg(libs --libs)
pkg(static_libs --static --libs)
pkg(pc_libdir --variable=libdir)
if(SHARED)
  run("linking with pkg-config --libs" ${CC} ${FLAGS} ${SRC}/consumer.c ${cflags} ${libs}
      -Wl,-rpath,${pc_libdir} -o ${WORK}/consumer_pc_shared)
  check(${WORK}/consumer_pc_shared shared)
endif()
list(TRANSFORM static_libs REPLACE "^-lcrowd$" "-l:libcrowd.a")
run("linking with pkg-config --static --libs" ${CC} ${FLAGS} ${SRC}/consumer.c ${cflags} ${static_libs}
    -o ${WORK}/consumer_pc_static)
check(${WORK}/consumer_pc_static static)

if(SHARED AND IO)
  run("pkg-config crowd_io" pkg-config --cflags --libs crowd_io)
  string(STRIP "${out}" io_flags)
  separate_arguments(io_flags UNIX_COMMAND "${io_flags}")
  run("linking with pkg-config crowd_io" ${CC} ${FLAGS} ${SRC}/io_consumer.c ${io_flags} -Wl,-rpath,${pc_libdir}
      -o ${WORK}/consumer_io_pc)
  check(${WORK}/consumer_io_pc shared)
endif()
