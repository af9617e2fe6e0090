# fitsasdf_add_test_suite(name SOURCES ... LIBS ...): one Catch2 executable whose test cases
# become individual ctest tests (catch_discover_tests), with the shared test support linked in.
include(Catch)

# Each test's time limit: 300 s, three times that in a sanitizer build (ASan + UBSan make every
# CLI run and every python-checked conversion several times slower).
if(FITSASDF_SANITIZE)
  set(FITSASDF_TEST_TIMEOUT 900)
else()
  set(FITSASDF_TEST_TIMEOUT 300)
endif()

function(fitsasdf_add_test_suite name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE fitsasdf_test_support ${ARG_LIBS})
  fitsasdf_warnings(${name})
  # FITSASDF_VALIDATE_WRITES: every ASDF file a test makes (through the library or the command)
  # is checked against its schemas before it is written; one that breaks them fails the test.
  # --warn NoTests: a test whose name does not select its test case fails instead of passing
  # with nothing run (CMake's lists cut a name at a ';', which Catch2 2.x's discovery does not
  # escape: test names must not hold one).
  catch_discover_tests(${name} TEST_PREFIX "${name}:" EXTRA_ARGS --warn NoTests
                       PROPERTIES TIMEOUT ${FITSASDF_TEST_TIMEOUT}
                       ENVIRONMENT "FITSASDF_VALIDATE_WRITES=1")
endfunction()
