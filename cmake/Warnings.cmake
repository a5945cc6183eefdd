# serialcheck_warnings(target): the project's warning set; errors under CI.
# gcc's -Wshadow=local (a local hiding another local) has no clang spelling;
# clang's -Wshadow is the nearest (it also names a local hiding a global).
function(serialcheck_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic
                                           -Wno-missing-field-initializers)
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    target_compile_options(${target} PRIVATE -Wshadow)
  else()
    target_compile_options(${target} PRIVATE -Wshadow=local)
  endif()
  if(SERIALCHECK_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
