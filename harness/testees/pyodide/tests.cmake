# The Pyodide host (harness/testees/pyodide/host.js): the Python adapter run
# inside CPython compiled to WebAssembly, under Node. One test per CPython
# version package.json declares (testee.pyodide.X.Y: `serialcheck
# testee-check` with the pickle and pickle-py presets), and
# testee.pyodide.host for the controls (a version that is not installed is
# refused as unavailable, standard output carries only messages, framing,
# deep values, by-value pickling in two processes). Each skips, with the
# reason, when node or that version's npm package is missing (scripts/setup
# runs `npm ci --prefix harness/testees/pyodide`).
find_program(SC_PYTHON3_FOR_PYODIDE NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(SC_PYTHON3_FOR_PYODIDE)
  set(sc_pyodide_dir ${CMAKE_CURRENT_LIST_DIR})
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${sc_pyodide_dir}/package.json)
  file(READ ${sc_pyodide_dir}/package.json sc_pyodide_package)
  string(JSON sc_pyodide_count LENGTH "${sc_pyodide_package}" dependencies)
  set(sc_pyodide_tests host)
  if(sc_pyodide_count GREATER 0)
    math(EXPR sc_pyodide_last "${sc_pyodide_count} - 1")
    foreach(i RANGE ${sc_pyodide_last})
      string(JSON sc_pyodide_alias MEMBER "${sc_pyodide_package}" dependencies ${i})
      if(sc_pyodide_alias MATCHES "^pyodide-([0-9]+\\.[0-9]+)$")
        list(APPEND sc_pyodide_tests ${CMAKE_MATCH_1})
      endif()
    endforeach()
  endif()
  foreach(sc_pyodide_test ${sc_pyodide_tests})
    if(sc_pyodide_test STREQUAL "host")
      set(sc_pyodide_only controls)
    else()
      set(sc_pyodide_only ${sc_pyodide_test})
    endif()
    add_test(NAME testee.pyodide.${sc_pyodide_test}
             COMMAND ${SC_PYTHON3_FOR_PYODIDE} -m pytest -q -p no:cacheprovider -rs
                     ${sc_pyodide_dir}/test_pyodide_host.py
             WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
    # Each Pyodide takes 3-4 s to start, and a loaded machine doubles that.
    set_tests_properties(testee.pyodide.${sc_pyodide_test} PROPERTIES
                         TIMEOUT 600 SKIP_REGULAR_EXPRESSION "(^|\n)[0-9]+ skipped in"
                         ENVIRONMENT "SC_PYODIDE_ONLY=${sc_pyodide_only};SERIALCHECK_CLI=$<TARGET_FILE:serialcheck>"
                         LABELS "testee;no-native" COST 60)
  endforeach()
endif()
