# Driver of the install tests (cmake -P), one step per test:
#   STEP=install       cmake --install BUILD_DIR --prefix PREFIX (fresh prefix)
#   STEP=find_package  configure, build and run consumer/ (CMake) against PREFIX
#   STEP=pkg_config    compile consumer/main.c with pkg-config flags from PREFIX, run it
# Every command's output is shown when it fails.
cmake_minimum_required(VERSION 3.25)

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    list(JOIN ARGN " " cmd)
    message(FATAL_ERROR "${what} failed (${rc}):\n  ${cmd}\n--- stdout\n${out}\n--- stderr\n${err}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

# The consumer's output must be exactly this (the Chapter 6 .debug_info is 266 bytes).
function(expect_output what got want)
  if(NOT got STREQUAL want)
    message(FATAL_ERROR "${what} printed:\n${got}\nbut the test expects:\n${want}")
  endif()
endfunction()

if(STEP STREQUAL "install")
  file(REMOVE_RECURSE "${PREFIX}")
  set(config_args "")
  if(CONFIG)
    set(config_args --config "${CONFIG}")
  endif()
  run("cmake --install" "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}" ${config_args})
  foreach(f include/ptxdwarf/ptxdwarf.h include/ptxdwarf/dwarf.def include/ptxdwarf/write/builder.h
            ${LIBDIR}/cmake/ptxdwarf/ptxdwarfConfig.cmake ${LIBDIR}/cmake/ptxdwarf/ptxdwarfConfigVersion.cmake
            ${LIBDIR}/cmake/ptxdwarf/ptxdwarfTargets.cmake ${LIBDIR}/pkgconfig/ptxdwarf.pc
            bin/ptxdump bin/ptxdump-verify)
    if(NOT EXISTS "${PREFIX}/${f}")
      message(FATAL_ERROR "cmake --install did not install ${f} under ${PREFIX}")
    endif()
  endforeach()
  file(GLOB libs "${PREFIX}/${LIBDIR}/*ptxdwarf*")
  if(NOT libs)
    message(FATAL_ERROR "no libptxdwarf under ${PREFIX}/${LIBDIR}")
  endif()
  message(STATUS "installed into ${PREFIX}")

elseif(STEP STREQUAL "find_package")
  set(build "${WORK_DIR}/consumer-build")
  file(REMOVE_RECURSE "${build}")
  set(build_type "${CONFIG}")
  if(NOT build_type)
    set(build_type Release)
  endif()
  set(make_program "")
  if(MAKE_PROGRAM)
    set(make_program "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
  endif()
  # Only the prefix: no package registries, no system ptxdwarf.
  run("configuring the consumer" "${CMAKE_COMMAND}" -S "${CONSUMER_DIR}" -B "${build}" -G "${GENERATOR}"
      ${make_program} "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
      "-DCMAKE_BUILD_TYPE=${build_type}" "-DCMAKE_PREFIX_PATH=${PREFIX}"
      -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF
      "-DCMAKE_CXX_FLAGS=${EXTRA_COMPILE_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${EXTRA_LINK_FLAGS}")
  string(FIND "${run_output}" "ptxdwarf ${VERSION} from ${PREFIX}/" found)
  if(found EQUAL -1)
    message(FATAL_ERROR "the consumer did not find ptxdwarf ${VERSION} under ${PREFIX}:\n${run_output}")
  endif()
  run("building the consumer" "${CMAKE_COMMAND}" --build "${build}" --config "${build_type}")
  find_program(exe NAMES consumer PATHS "${build}" "${build}/${build_type}" NO_DEFAULT_PATH NO_CACHE)
  if(NOT exe)
    message(FATAL_ERROR "no consumer executable in ${build}")
  endif()
  run("running the consumer" "${exe}")
  expect_output("the CMake consumer" "${run_output}" ".debug_info: 266 bytes\nassembled: ok\nC API: PTXDWARF_OK\n")
  message(STATUS "find_package consumer: ${run_output}")

elseif(STEP STREQUAL "pkg_config")
  if(NOT PKG_CONFIG)
    message(STATUS "SKIP: no pkg-config on this machine")
    cmake_language(EXIT 77)
  endif()
  set(ENV{PKG_CONFIG_PATH} "${PREFIX}/${LIBDIR}/pkgconfig")
  run("pkg-config --modversion" "${PKG_CONFIG}" --modversion ptxdwarf)
  string(STRIP "${run_output}" version)
  if(NOT version STREQUAL VERSION)
    message(FATAL_ERROR "pkg-config says ptxdwarf ${version}, the build is ${VERSION}")
  endif()
  run("pkg-config --cflags --libs" "${PKG_CONFIG}" --cflags --libs ptxdwarf)
  string(STRIP "${run_output}" flags)
  string(FIND "${flags}" "${PREFIX}/" found)
  if(found EQUAL -1)
    message(FATAL_ERROR "pkg-config flags do not point into ${PREFIX}: ${flags}")
  endif()
  separate_arguments(flags UNIX_COMMAND "${flags}")
  set(exe "${WORK_DIR}/c_consumer")
  file(REMOVE "${exe}")
  # The installed header must be C99: compile as strict C99, warnings as errors.
  separate_arguments(extra UNIX_COMMAND "${EXTRA_COMPILE_FLAGS} ${EXTRA_LINK_FLAGS}")
  run("compiling the C consumer" "${C_COMPILER}" -std=c99 -pedantic-errors -Wall -Wextra -Werror ${extra}
      "${CONSUMER_DIR}/main.c" ${flags} -o "${exe}")
  # A shared libptxdwarf has no RPATH in the C consumer: point the loader at the prefix.
  set(ENV{LD_LIBRARY_PATH} "${PREFIX}/${LIBDIR}:$ENV{LD_LIBRARY_PATH}")
  set(ENV{DYLD_LIBRARY_PATH} "${PREFIX}/${LIBDIR}:$ENV{DYLD_LIBRARY_PATH}")
  run("running the C consumer" "${exe}")
  expect_output("the C consumer" "${run_output}" ".debug_info: 266 bytes\nC API: PTXDWARF_OK\n")
  message(STATUS "pkg-config consumer (${flags}): ${run_output}")

else()
  message(FATAL_ERROR "unknown STEP '${STEP}'")
endif()
