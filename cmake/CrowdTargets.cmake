# Compile flags, set per target (never globally), and the SIMD targets the kernels are built for.
include_guard(GLOBAL)

# The machine flags of each SIMD width. A width is known when it has an entry here (scalar's
# is empty); SIMDe picks native instructions from them at include time.
set(CROWD_SIMD_FLAGS_scalar "")
set(CROWD_SIMD_FLAGS_sse2 "")
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64|i[3-6]86)$")
  set(CROWD_X86 ON)
  set(CROWD_SIMD_FLAGS_sse2 -msse2)
  set(CROWD_SIMD_FLAGS_avx2 -mavx2 -mno-fma)
  set(CROWD_SIMD_FLAGS_avx512 -mavx512f -mavx2)
  set(_crowd_default_targets scalar sse2 avx2 avx512)
else()
  set(CROWD_X86 OFF)
  # SIMDe emulates the 4-lane target with the host's vectors (NEON on aarch64).
  set(_crowd_default_targets scalar sse2)
endif()
set(CROWD_SIMD_TARGETS "${_crowd_default_targets}" CACHE STRING "SIMD targets to build kernels for (scalar is always built)")
set(CROWD_KERNEL_TARGETS scalar)
foreach(t IN LISTS CROWD_SIMD_TARGETS)
  if(NOT DEFINED CROWD_SIMD_FLAGS_${t})
    message(FATAL_ERROR "CROWD_SIMD_TARGETS: unknown target '${t}' for ${CMAKE_SYSTEM_PROCESSOR} (${_crowd_default_targets})")
  endif()
  if(NOT t IN_LIST CROWD_KERNEL_TARGETS)
    list(APPEND CROWD_KERNEL_TARGETS ${t})
  endif()
endforeach()

# Warnings, -Werror and sanitizers for one of our own targets.
function(crowd_target_flags tgt)
  get_target_property(_type ${tgt} TYPE)
  if(_type STREQUAL "INTERFACE_LIBRARY")
    return()
  endif()
  target_compile_options(${tgt} PRIVATE -Wall -Wextra -Wshadow -Wstrict-aliasing)
  if(CROWD_WERROR)
    target_compile_options(${tgt} PRIVATE -Werror)
  endif()
  if(CROWD_SANITIZE)
    target_compile_options(${tgt} PRIVATE -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
    target_link_options(${tgt} PRIVATE -fsanitize=address,undefined)
  endif()
  if(CROWD_TSAN)
    target_compile_options(${tgt} PRIVATE -fsanitize=thread -fno-omit-frame-pointer)
    target_link_options(${tgt} PRIVATE -fsanitize=thread)
  endif()
endfunction()

# The sanitizer flags of this build, for code built outside it (tests/package's consumers).
set(CROWD_SANITIZER_FLAGS "")
if(CROWD_SANITIZE)
  set(CROWD_SANITIZER_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=all)
elseif(CROWD_TSAN)
  set(CROWD_SANITIZER_FLAGS -fsanitize=thread)
endif()

# crowd_simd_target_flags(TGT SIMD [FLAGS machine flags...]): what makes TGT's sources one SIMD
# width: CV_TARGET_<SIMD>, the width's machine flags (FLAGS replaces them: the width emulated on
# other vectors), and -ffp-contract=off -fno-lto -fno-fast-math on every kernel translation
# unit (results must not depend on the compiler's fusing).
function(crowd_simd_target_flags tgt simd)
  cmake_parse_arguments(PARSE_ARGV 2 S "" "" "FLAGS")
  if(NOT DEFINED S_FLAGS AND NOT "FLAGS" IN_LIST S_KEYWORDS_MISSING_VALUES)
    set(S_FLAGS ${CROWD_SIMD_FLAGS_${simd}})
  endif()
  string(TOUPPER ${simd} _up)
  target_compile_definitions(${tgt} PRIVATE CV_TARGET_${_up}=1)
  target_compile_options(${tgt} PRIVATE -ffp-contract=off -fno-lto -fno-fast-math ${S_FLAGS})
endfunction()

# crowd_add_kernels(NAME SOURCE src SIMD width [FLAGS machine flags...] [DEFINES defs...]):
# the kernel source compiled as one SIMD width (object library crowd_kernels_NAME), linked into
# libcrowd (static and shared), and CROWD_HAVE_<NAME> defined for the engine's dispatch table.
#   crowd_add_kernels(avx2 SOURCE kernels/kernels.c SIMD avx2)            native
#   crowd_add_kernels(avx512_emulated SOURCE kernels/kernels.c SIMD avx512
#                     FLAGS -mavx2 -mno-fma DEFINES CROWDI_EMULATED=1)  emulated
function(crowd_add_kernels name)
  cmake_parse_arguments(PARSE_ARGV 1 K "" "SOURCE;SIMD" "FLAGS;DEFINES")
  set(k crowd_kernels_${name})
  add_library(${k} OBJECT ${K_SOURCE})
  target_link_libraries(${k} PRIVATE crowd_internal crowd_simd)
  target_include_directories(${k} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/include ${CMAKE_CURRENT_SOURCE_DIR}/kernels)
  set_target_properties(${k} PROPERTIES POSITION_INDEPENDENT_CODE ON C_VISIBILITY_PRESET hidden)
  if(DEFINED K_FLAGS OR "FLAGS" IN_LIST K_KEYWORDS_MISSING_VALUES)
    crowd_simd_target_flags(${k} ${K_SIMD} FLAGS ${K_FLAGS})
  else()
    crowd_simd_target_flags(${k} ${K_SIMD})
  endif()
  target_compile_definitions(${k} PRIVATE ${K_DEFINES})
  crowd_target_flags(${k})
  string(TOUPPER ${name} up)
  target_compile_definitions(crowd PRIVATE CROWD_HAVE_${up}=1)
  foreach(lib IN ITEMS crowd crowd_shared)
    if(TARGET ${lib})
      target_sources(${lib} PRIVATE $<TARGET_OBJECTS:${k}>)
    endif()
  endforeach()
endfunction()
