# Oracles for `ptxdump verify`: LLVM's DebugInfo/DWARF (14 or newer) and libdwarf.
# Included from ptxdump/oracles/CMakeLists.txt after ptxdump_verify_core is defined. Only
# ptxdump_verify_core (so ptxdump-verify and the tests) links them; libptxdwarf and
# ptxdump stay free of them. A missing oracle leaves ptxdump-verify buildable:
# `verify --with <it>` then says so and exits 2.
if(PTXDWARF_BUILD_TESTS)
  set(_ptxdwarf_require_oracles_default ON)
else()
  set(_ptxdwarf_require_oracles_default OFF)
endif()
option(PTXDWARF_REQUIRE_ORACLES "Fail the configure step when LLVM DebugInfo or libdwarf is missing"
       ${_ptxdwarf_require_oracles_default})

# LLVM: its config package, found without a version (LLVMConfigVersion accepts only
# its own major version) and checked here. Debian keeps it under /usr/lib/llvm-N;
# the newest there is used unless -DLLVM_DIR=/usr/lib/llvm-N/lib/cmake/llvm names
# one. The oracle builds against LLVM 14 to 22 (ptxdump/oracles/oracle_llvm_compat.h).
# clang (14, 19 and 22 alike) cannot compile LLVM 14's headers in C++20 mode
# against libstdc++ 12 (llvm::json::Value is incomplete where std::vector needs
# it); LLVM 15 to 22's headers compile with each. The fuzz build (clang) turns
# this oracle off: its targets do not use it.
option(PTXDWARF_LLVM_ORACLE "Build `ptxdump verify --with llvm` (LLVM DebugInfo)" ON)
file(GLOB _ptxdwarf_llvm_dirs LIST_DIRECTORIES true /usr/lib/llvm-*/lib/cmake/llvm)
list(SORT _ptxdwarf_llvm_dirs COMPARE NATURAL ORDER DESCENDING)
if(PTXDWARF_LLVM_ORACLE)
  find_package(LLVM CONFIG QUIET HINTS ${_ptxdwarf_llvm_dirs})
endif()
if(LLVM_FOUND AND LLVM_VERSION_MAJOR VERSION_LESS 14)
  message(STATUS "ptxdump verify: LLVM ${LLVM_PACKAGE_VERSION} at ${LLVM_DIR} is older than 14; not used")
  set(LLVM_FOUND FALSE)
endif()
if(LLVM_FOUND AND NOT TARGET LLVM)
  message(STATUS "ptxdump verify: LLVM ${LLVM_PACKAGE_VERSION} has no shared LLVM library target; not used")
  set(LLVM_FOUND FALSE)
endif()
if(LLVM_FOUND)
  message(STATUS "ptxdump verify: LLVM ${LLVM_PACKAGE_VERSION} DebugInfo (${LLVM_DIR}; "
                 "-DLLVM_DIR=/usr/lib/llvm-N/lib/cmake/llvm chooses another)")
  if(LLVM_VERSION_MAJOR VERSION_GREATER 22)
    message(STATUS "ptxdump verify: LLVM ${LLVM_VERSION_MAJOR} is newer than the 14 to 22 the oracle is known to "
                   "build against")
  endif()
  target_sources(ptxdump_verify_core PRIVATE ${CMAKE_CURRENT_LIST_DIR}/oracle_llvm.cpp)
  # SYSTEM: LLVM's headers are not ours to keep -Werror clean. Not llvm-config
  # --cxxflags: it would add -fno-exceptions and -std=c++14.
  target_include_directories(ptxdump_verify_core SYSTEM PRIVATE ${LLVM_INCLUDE_DIRS})
  target_link_libraries(ptxdump_verify_core PRIVATE LLVM)
  target_compile_definitions(ptxdump_verify_core PUBLIC PTXDWARF_HAVE_LLVM=1)
elseif(PTXDWARF_REQUIRE_ORACLES)
  message(FATAL_ERROR "ptxdump verify: LLVM 14 to 22 (llvm-22-dev, llvm-14-dev) not found; "
                      "set LLVM_DIR, or -DPTXDWARF_REQUIRE_ORACLES=OFF to build without it")
else()
  message(STATUS "ptxdump verify: LLVM DebugInfo not found; `verify --with llvm` will be unavailable")
endif()

find_package(Libdwarf QUIET)  # cmake/FindLibdwarf.cmake
if(Libdwarf_FOUND)
  message(STATUS "ptxdump verify: libdwarf (${Libdwarf_LIBRARY})")
  target_sources(ptxdump_verify_core PRIVATE ${CMAKE_CURRENT_LIST_DIR}/oracle_libdwarf.cpp)
  target_link_libraries(ptxdump_verify_core PRIVATE Libdwarf::Libdwarf)
  target_compile_definitions(ptxdump_verify_core PUBLIC PTXDWARF_HAVE_LIBDWARF=1)
elseif(PTXDWARF_REQUIRE_ORACLES)
  message(FATAL_ERROR "ptxdump verify: libdwarf (libdwarf-dev) not found; "
                      "-DPTXDWARF_REQUIRE_ORACLES=OFF to build without it")
else()
  message(STATUS "ptxdump verify: libdwarf not found; `verify --with libdwarf` will be unavailable")
endif()
