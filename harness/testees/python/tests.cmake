# The Python testee adapter's tests (pytest), included from
# suite/tests/CMakeLists.txt. They need only Python and pytest (pypy3 is
# used when installed); without pytest the test is skipped with a reason.
add_test(NAME testee.python.adapter
         COMMAND ${Python3_EXECUTABLE} -c
                 "import sys, subprocess\ntry:\n    import pytest\nexcept ImportError:\n    print('SKIP: pytest is not installed for ' + sys.executable + ' (Debian: python3-pytest)')\n    sys.exit(77)\nsys.exit(subprocess.call([sys.executable, '-m', 'pytest', '-q', '-p', 'no:cacheprovider', sys.argv[1]]))"
                 ${CMAKE_SOURCE_DIR}/harness/testees/python
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
set_tests_properties(testee.python.adapter PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120
                     LABELS "python;testee;no-native" COST 300)  # among the longest: started first
