# fitsasdf_add_test_suite(name SOURCES ... LIBS ...): one Catch2 executable whose test cases
# become individual ctest tests (catch_discover_tests), with the shared test support linked in.
include(Catch)
function(fitsasdf_add_test_suite name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE fitsasdf_test_support ${ARG_LIBS})
  fitsasdf_warnings(${name})
  catch_discover_tests(${name} TEST_PREFIX "${name}:" PROPERTIES TIMEOUT 300)
endfunction()
