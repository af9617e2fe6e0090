# Find CFITSIO through pkg-config (Debian ships no CMake config) and wrap it in the imported
# target CFITSIO::cfitsio.
find_package(PkgConfig REQUIRED)
pkg_check_modules(PC_CFITSIO QUIET cfitsio)
find_path(CFITSIO_INCLUDE_DIR fitsio.h HINTS ${PC_CFITSIO_INCLUDE_DIRS})
find_library(CFITSIO_LIBRARY NAMES cfitsio HINTS ${PC_CFITSIO_LIBRARY_DIRS})
set(CFITSIO_VERSION ${PC_CFITSIO_VERSION})
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(CFITSIO REQUIRED_VARS CFITSIO_LIBRARY CFITSIO_INCLUDE_DIR
                                  VERSION_VAR CFITSIO_VERSION)
if(CFITSIO_FOUND AND NOT TARGET CFITSIO::cfitsio)
  add_library(CFITSIO::cfitsio UNKNOWN IMPORTED)
  set_target_properties(CFITSIO::cfitsio PROPERTIES
    IMPORTED_LOCATION "${CFITSIO_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${CFITSIO_INCLUDE_DIR}")
endif()
mark_as_advanced(CFITSIO_INCLUDE_DIR CFITSIO_LIBRARY)
