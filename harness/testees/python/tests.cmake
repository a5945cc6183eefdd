# The Python testee adapter's tests, included from suite/tests/CMakeLists.txt.
#
# testee.python.adapter: the pytest files under Python3_EXECUTABLE (pypy3 is
# used when installed); without pytest the test is skipped with a reason.
add_test(NAME testee.python.adapter
         COMMAND ${Python3_EXECUTABLE} -c
                 "import sys, subprocess\ntry:\n    import pytest\nexcept ImportError:\n    print('SKIP: pytest is not installed for ' + sys.executable + ' (Debian: python3-pytest)')\n    sys.exit(77)\nsys.exit(subprocess.call([sys.executable, '-m', 'pytest', '-q', '-p', 'no:cacheprovider', sys.argv[1]]))"
                 ${CMAKE_SOURCE_DIR}/harness/testees/python
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
set_tests_properties(testee.python.adapter PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120
                     LABELS "python;testee;no-native" COST 300)  # among the longest: started first

# testee.python.adapter.pyX.Y: test_serialcheck_versions.py (no pytest
# needed) under each other Python found here when this is configured, one
# test per version: pyenv's versions ($PYENV_ROOT or ~/.pyenv), then
# python2.7 and python3.6 ... python3.15 on PATH, then pypy3. None is
# required. Each also runs `serialcheck testee-check` on the pickle presets.
set(SC_ADAPTER_PYTHONS)
if(DEFINED ENV{PYENV_ROOT})
  set(sc_pyenv $ENV{PYENV_ROOT})
else()
  set(sc_pyenv $ENV{HOME}/.pyenv)
endif()
file(GLOB sc_pyenv_pythons ${sc_pyenv}/versions/*/bin/python)
list(SORT sc_pyenv_pythons)
list(APPEND SC_ADAPTER_PYTHONS ${sc_pyenv_pythons})
foreach(sc_minor RANGE 6 15)
  list(APPEND sc_path_names python3.${sc_minor})
endforeach()
foreach(sc_name python2.7 ${sc_path_names} pypy3)
  unset(sc_found)
  find_program(sc_found NAMES ${sc_name} NO_CACHE)
  if(sc_found)
    list(APPEND SC_ADAPTER_PYTHONS ${sc_found})
  endif()
endforeach()
set(sc_adapter_seen)
foreach(sc_python ${SC_ADAPTER_PYTHONS})
  # Which Python it is (a pyenv shim may lead nowhere): skipped when it
  # does not answer.
  execute_process(
    COMMAND ${sc_python} -c
            "import platform, sys; print('%s%d.%d' % ('pypy' if platform.python_implementation() == 'PyPy' else 'py', sys.version_info[0], sys.version_info[1]))"
    OUTPUT_VARIABLE sc_tag OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE sc_rc
    TIMEOUT 20)
  if(NOT sc_rc EQUAL 0 OR sc_tag STREQUAL "" OR sc_tag IN_LIST sc_adapter_seen)
    continue()
  endif()
  list(APPEND sc_adapter_seen ${sc_tag})
  set(sc_test testee.python.adapter.${sc_tag})
  add_test(NAME ${sc_test}
           COMMAND ${sc_python} ${CMAKE_SOURCE_DIR}/harness/testees/python/test_serialcheck_versions.py
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  set_tests_properties(${sc_test} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120
                       ENVIRONMENT "SERIALCHECK=$<TARGET_FILE:serialcheck>"
                       LABELS "python;testee;no-native" COST 20)
endforeach()
