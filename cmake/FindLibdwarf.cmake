# FindLibdwarf: Debian's libdwarf-dev ships neither a CMake config nor a pkg-config file.
# Defines Libdwarf::Libdwarf (headers under <libdwarf/...>).
find_path(Libdwarf_INCLUDE_DIR NAMES libdwarf/libdwarf.h)
find_library(Libdwarf_LIBRARY NAMES dwarf)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Libdwarf REQUIRED_VARS Libdwarf_LIBRARY Libdwarf_INCLUDE_DIR)
if(Libdwarf_FOUND AND NOT TARGET Libdwarf::Libdwarf)
  add_library(Libdwarf::Libdwarf UNKNOWN IMPORTED)
  set_target_properties(Libdwarf::Libdwarf PROPERTIES
    IMPORTED_LOCATION "${Libdwarf_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${Libdwarf_INCLUDE_DIR}")
endif()
mark_as_advanced(Libdwarf_INCLUDE_DIR Libdwarf_LIBRARY)
