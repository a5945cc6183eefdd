# The Node testee (harness/testees/node) driven over the testee protocol by
# its pytest file. It skips, with the reason, when node or node_modules is
# missing (scripts/setup runs `npm ci --prefix harness/testees/node`).
find_program(SC_PYTHON3_FOR_TESTEES NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(SC_PYTHON3_FOR_TESTEES)
  add_test(NAME testee.node.protocol
           COMMAND ${SC_PYTHON3_FOR_TESTEES} -m pytest -q -p no:cacheprovider -rs
                   ${CMAKE_SOURCE_DIR}/harness/testees/node/test_node_testee.py
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  set_tests_properties(testee.node.protocol PROPERTIES TIMEOUT 120 SKIP_REGULAR_EXPRESSION "(^|\n)[0-9]+ skipped in"
                       LABELS no-native)
endif()
