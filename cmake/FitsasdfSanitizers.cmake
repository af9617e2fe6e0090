# FITSASDF_SANITIZE: a list of compiler sanitizers ("address;undefined") applied to every target
# of the project (libraries, the CLI, the tests). Empty (the default) builds without them.
# Include this before the add_subdirectory() calls: the flags are set for the whole directory tree.
#
# Any finding ends the program with a non-zero status (-fno-sanitize-recover=all), so a test that
# touches undefined behaviour fails instead of printing a warning nobody reads. Runtime options
# (leak checking, suppressions) are set by scripts/sanitize.sh through ASAN_OPTIONS,
# UBSAN_OPTIONS and LSAN_OPTIONS.
set(FITSASDF_SANITIZE "" CACHE STRING
    "Sanitizers for every target, e.g. \"address;undefined\" (empty: none)")

if(FITSASDF_SANITIZE)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    message(FATAL_ERROR "FITSASDF_SANITIZE needs GCC or Clang, not ${CMAKE_CXX_COMPILER_ID}")
  endif()
  list(JOIN FITSASDF_SANITIZE "," _fitsasdf_sanitizers)
  message(STATUS "fitsasdf: building with -fsanitize=${_fitsasdf_sanitizers}")
  add_compile_options(-fsanitize=${_fitsasdf_sanitizers} -fno-sanitize-recover=all
                      -fno-omit-frame-pointer)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # With the sanitizers' instrumentation GCC 12 gives -Wmaybe-uninitialized false positives
    # inside libstdc++'s <regex>, which would break -Werror. The normal build keeps the warning.
    add_compile_options(-Wno-maybe-uninitialized)
  endif()
  add_link_options(-fsanitize=${_fitsasdf_sanitizers})
  unset(_fitsasdf_sanitizers)
endif()
