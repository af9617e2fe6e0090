# fitsasdf_warnings(target): the project's warning set, errors when FITSASDF_WERROR is on.
function(fitsasdf_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
                         -Wno-sign-conversion -Wno-missing-field-initializers)
  if(FITSASDF_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
