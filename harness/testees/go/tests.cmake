# The Go testee (harness/testees/go, stalecucumber) driven over the testee
# protocol by its pytest file. The binary is built into
# ${CMAKE_BINARY_DIR}/testees/ by ./build first; both steps skip, with the
# reason, when go or golang-github-hydrogen18-stalecucumber-dev is missing.
find_program(SC_PYTHON3_FOR_GO_TESTEE NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
find_program(SC_GO_FOR_TESTEE NAMES go)
if(SC_PYTHON3_FOR_GO_TESTEE AND SC_GO_FOR_TESTEE)
  set(SC_GO_TESTEE ${CMAKE_BINARY_DIR}/testees/stalecucumber-testee)
  add_test(NAME testee.go.build
           COMMAND ${CMAKE_SOURCE_DIR}/harness/testees/go/build ${SC_GO_TESTEE})
  set_tests_properties(testee.go.build PROPERTIES TIMEOUT 120 FIXTURES_SETUP sc_go_testee SKIP_RETURN_CODE 3
                       LABELS no-native)
  add_test(NAME testee.go.protocol
           COMMAND ${SC_PYTHON3_FOR_GO_TESTEE} -m pytest -q -p no:cacheprovider -rs
                   ${CMAKE_SOURCE_DIR}/harness/testees/go/test_go_testee.py
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  set_tests_properties(testee.go.protocol PROPERTIES TIMEOUT 120 FIXTURES_REQUIRED sc_go_testee
                       ENVIRONMENT "SERIALCHECK_GO_TESTEE=${SC_GO_TESTEE}" LABELS no-native)
endif()
