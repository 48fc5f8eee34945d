# libcrowd.so: the static library's own objects (already position independent) linked once
# more as a shared library with a SONAME. A version script exports the public crowd_*
# functions and hides every internal symbol; tests/shared checks the export list against
# crowd.h. Until crowd.h has its visibility macro, the script is what keeps the ABI clean.
include_guard(GLOBAL)
include(GNUInstallDirs)

add_library(crowd_shared SHARED $<TARGET_OBJECTS:crowd>)
add_library(crowd::shared ALIAS crowd_shared)
foreach(simd IN LISTS CROWD_KERNEL_TARGETS)
  target_sources(crowd_shared PRIVATE $<TARGET_OBJECTS:crowd_kernels_${simd}>)
endforeach()
if(TARGET crowd_kernels_avx512_emulated)
  target_sources(crowd_shared PRIVATE $<TARGET_OBJECTS:crowd_kernels_avx512_emulated>)
endif()
target_include_directories(crowd_shared
  PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/engine/include> $<INSTALL_INTERFACE:include>)
set_target_properties(crowd_shared PROPERTIES OUTPUT_NAME crowd LINKER_LANGUAGE C
  VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}
  LINK_DEPENDS ${PROJECT_SOURCE_DIR}/cmake/crowd.map)
target_link_options(crowd_shared PRIVATE -Wl,--version-script=${PROJECT_SOURCE_DIR}/cmake/crowd.map)
# Every symbol resolved at link time, except under sanitizers (clang leaves their runtime to the
# executable that loads the library).
if(NOT CROWD_SANITIZE AND NOT CROWD_TSAN)
  target_link_options(crowd_shared PRIVATE -Wl,--no-undefined)
endif()
target_link_libraries(crowd_shared PRIVATE m Threads::Threads)
crowd_target_flags(crowd_shared)
install(TARGETS crowd_shared LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
