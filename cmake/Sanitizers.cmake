# Sanitizer and fuzzing instrumentation for every target.
#
# SERIALCHECK_SANITIZE is a -fsanitize= list ("address,undefined"); it is
# applied to the compile and link of every target defined after this file is
# included (scripts/test-sanitized). Undefined behaviour aborts the process
# instead of printing and going on, so a test that hits it fails.
#
# SERIALCHECK_FUZZ adds libFuzzer's coverage instrumentation to every target
# (clang only) so the fuzz targets in suite/fuzz see inside the libraries
# they call (scripts/fuzz).
if(SERIALCHECK_SANITIZE)
  add_compile_options(-fsanitize=${SERIALCHECK_SANITIZE} -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${SERIALCHECK_SANITIZE})
  # Executables not position-independent: UndefinedBehaviorSanitizer gives
  # every check a record in .data (about 50 MB here) that points at its file
  # name and type, and a PIE's loader would patch each of those 1.8 million
  # pointers at every start. Linked at a fixed address they need no patching,
  # and a process starts in 0.17 s instead of 0.30 s; the tests start
  # thousands of them (the command, testees, shards).
  add_link_options($<$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>:-no-pie>)
  if(SERIALCHECK_SANITIZE MATCHES "undefined")
    add_compile_options(-fno-sanitize-recover=undefined)
  endif()
  # Bounds checks in the standard library: an out-of-range operator[] on a
  # vector or string is reported where it happens, even inside the object.
  add_compile_definitions(_GLIBCXX_ASSERTIONS)
  message(STATUS "serialcheck: sanitizers ${SERIALCHECK_SANITIZE}")
endif()

if(SERIALCHECK_FUZZ)
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    add_compile_options(-fsanitize=fuzzer-no-link)
  else()
    message(WARNING "SERIALCHECK_FUZZ needs clang (CC=clang CXX=clang++); "
                    "the fuzz targets are left out")
  endif()
endif()
