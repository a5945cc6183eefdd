# Builds the Go adapter (harness/testees/go, stalecucumber) into
# build/testees/stalecucumber-testee, the command subjects.json names, where
# go and Debian's stalecucumber package are present; its build script exits
# 3 (skipped, with the reason) when they are not. Included by the top-level
# CMakeLists.txt, as every harness/testees/*/build.cmake is.
find_program(SC_GO NAMES go)
if(SC_GO)
  set(SC_GO_TESTEE ${CMAKE_BINARY_DIR}/testees/stalecucumber-testee)
  add_custom_command(
    OUTPUT ${SC_GO_TESTEE}
    COMMAND sh -c "${CMAKE_CURRENT_LIST_DIR}/build ${SC_GO_TESTEE}; rc=$?; [ $rc -eq 3 ] && exit 0; exit $rc"
    DEPENDS ${CMAKE_CURRENT_LIST_DIR}/main.go ${CMAKE_CURRENT_LIST_DIR}/build
    COMMENT "Building the Go testee (stalecucumber)"
    VERBATIM)
  add_custom_target(testee_go ALL DEPENDS ${SC_GO_TESTEE})
endif()
