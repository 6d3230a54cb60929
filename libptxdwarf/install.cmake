# Installation of libptxdwarf: headers (the whole include/ptxdwarf tree), the
# library, a CMake package (find_package(ptxdwarf CONFIG) -> ptxdwarf::ptxdwarf)
# and a pkg-config file (ptxdwarf.pc). Included from libptxdwarf/CMakeLists.txt
# after the ptxdwarf target is defined.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(PTXDWARF_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/ptxdwarf" CACHE STRING
    "Where the ptxdwarf CMake package files are installed (relative to the prefix)")
mark_as_advanced(PTXDWARF_INSTALL_CMAKEDIR)

install(TARGETS ptxdwarf EXPORT ptxdwarfTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${CMAKE_CURRENT_LIST_DIR}/include/ptxdwarf DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

install(EXPORT ptxdwarfTargets NAMESPACE ptxdwarf:: DESTINATION ${PTXDWARF_INSTALL_CMAKEDIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ptxdwarfConfig.cmake.in
  ${PROJECT_BINARY_DIR}/ptxdwarfConfig.cmake
  INSTALL_DESTINATION ${PTXDWARF_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR)
# 0.x: minor versions may break the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ptxdwarfConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/ptxdwarfConfig.cmake ${PROJECT_BINARY_DIR}/ptxdwarfConfigVersion.cmake
  DESTINATION ${PTXDWARF_INSTALL_CMAKEDIR})

# pkg-config. Paths are relative to the .pc file (${pcfiledir}), so the package
# stays right when installed with `cmake --install <build> --prefix <elsewhere>`
# or moved; absolute CMAKE_INSTALL_*DIR values are kept as they are.
file(RELATIVE_PATH PTXDWARF_PC_PREFIX "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
string(REGEX REPLACE "/$" "" PTXDWARF_PC_PREFIX "\${pcfiledir}/${PTXDWARF_PC_PREFIX}")
foreach(dir LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${dir}}")
    set(PTXDWARF_PC_${dir} "${CMAKE_INSTALL_${dir}}")
  else()
    set(PTXDWARF_PC_${dir} "\${prefix}/${CMAKE_INSTALL_${dir}}")
  endif()
endforeach()
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(PTXDWARF_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
endif()
# A static libptxdwarf is C++: a C program linking it needs the C++ runtime the
# C compiler does not add by itself (-lstdc++ -lm with GCC). For a shared
# library that dependency is recorded in the library and only Libs.private
# needs it (pkg-config --static).
set(PTXDWARF_PC_CXX_RUNTIME "")
foreach(lib IN LISTS CMAKE_CXX_IMPLICIT_LINK_LIBRARIES)
  if(NOT lib IN_LIST CMAKE_C_IMPLICIT_LINK_LIBRARIES AND NOT "-l${lib}" IN_LIST PTXDWARF_PC_CXX_RUNTIME)
    if(IS_ABSOLUTE "${lib}" OR lib MATCHES "^-")
      list(APPEND PTXDWARF_PC_CXX_RUNTIME "${lib}")
    else()
      list(APPEND PTXDWARF_PC_CXX_RUNTIME "-l${lib}")
    endif()
  endif()
endforeach()
if(CMAKE_THREAD_LIBS_INIT)
  list(APPEND PTXDWARF_PC_CXX_RUNTIME "${CMAKE_THREAD_LIBS_INIT}")
endif()
list(JOIN PTXDWARF_PC_CXX_RUNTIME " " PTXDWARF_PC_CXX_RUNTIME)
get_target_property(PTXDWARF_TYPE ptxdwarf TYPE)
if(PTXDWARF_TYPE STREQUAL "STATIC_LIBRARY")
  set(PTXDWARF_PC_LIBS "-lptxdwarf ${PTXDWARF_PC_CXX_RUNTIME}")
  set(PTXDWARF_PC_LIBS_PRIVATE "")
else()
  set(PTXDWARF_PC_LIBS "-lptxdwarf")
  set(PTXDWARF_PC_LIBS_PRIVATE "${PTXDWARF_PC_CXX_RUNTIME}")
endif()
string(STRIP "${PTXDWARF_PC_LIBS}" PTXDWARF_PC_LIBS)
configure_file(${PROJECT_SOURCE_DIR}/cmake/ptxdwarf.pc.in ${PROJECT_BINARY_DIR}/ptxdwarf.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/ptxdwarf.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
