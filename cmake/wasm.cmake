# Toolchain for the WebAssembly build (web/): Debian's emscripten, its bundled libc only.
#   cmake -S web -B build-wasm -DCMAKE_TOOLCHAIN_FILE=cmake/wasm.cmake && cmake --build build-wasm
# (tools/dev wasm does this.) Emscripten's prebuilt, frozen system libraries are used through
# an EM_CACHE folder inside the build tree, so nothing is built into or downloaded to a shared
# cache, and no emscripten "ports" can be fetched (a frozen cache refuses them).
set(CROWD_EMSCRIPTEN_ROOT "/usr/share/emscripten" CACHE PATH "emscripten's install folder (Debian: /usr/share/emscripten)")
include(${CROWD_EMSCRIPTEN_ROOT}/cmake/Modules/Platform/Emscripten.cmake)

# EM_CACHE: a folder of the build tree that links to the system libraries emscripten ships.
if(NOT CROWD_EM_CACHE)
  set(CROWD_EM_CACHE "${CMAKE_BINARY_DIR}/em-cache" CACHE PATH "EM_CACHE of this build")
endif()
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES CROWD_EM_CACHE CROWD_EMSCRIPTEN_ROOT)
if(NOT EXISTS "${CROWD_EM_CACHE}/sysroot_install.stamp")
  file(MAKE_DIRECTORY "${CROWD_EM_CACHE}")
  foreach(entry sysroot build sysroot_install.stamp)
    if(EXISTS "${CROWD_EMSCRIPTEN_ROOT}/cache/${entry}")
      file(CREATE_LINK "${CROWD_EMSCRIPTEN_ROOT}/cache/${entry}" "${CROWD_EM_CACHE}/${entry}" SYMBOLIC)
    endif()
  endforeach()
endif()
set(ENV{EM_CACHE} "${CROWD_EM_CACHE}")
# emcc's JavaScript passes need Debian's node modules (acorn) on the module path.
set(ENV{NODE_PATH} "/usr/share/nodejs")
# Every compile and link goes through this environment too (CMake's own checks above use ENV).
set(CMAKE_C_COMPILER_LAUNCHER ${CMAKE_COMMAND} -E env EM_CACHE=${CROWD_EM_CACHE} NODE_PATH=/usr/share/nodejs)
set(CMAKE_C_LINKER_LAUNCHER ${CMAKE_C_COMPILER_LAUNCHER})
