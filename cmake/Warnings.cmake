# serialcheck_warnings(target): the project's warning set; errors under CI.
function(serialcheck_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow=local
                                           -Wno-missing-field-initializers)
  if(SERIALCHECK_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
