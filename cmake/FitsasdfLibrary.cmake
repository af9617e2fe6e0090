# fitsasdf_library(target [OUTPUT_NAME name]): what the project's two libraries share. Shared
# (BUILD_SHARED_LIBS), the file is lib<name>.so.${PROJECT_VERSION} with SONAME
# lib<name>.so.${FITSASDF_SOVERSION}, and it must name every library it needs: an undefined
# symbol fails its link, not the link of a program that uses it.
function(fitsasdf_library target)
  cmake_parse_arguments(ARG "" "OUTPUT_NAME" "" ${ARGN})
  set_target_properties(${target} PROPERTIES VERSION ${PROJECT_VERSION}
                                             SOVERSION ${FITSASDF_SOVERSION})
  if(ARG_OUTPUT_NAME)
    set_target_properties(${target} PROPERTIES OUTPUT_NAME ${ARG_OUTPUT_NAME})
  endif()
  # The sanitizer runtimes are linked into programs only, so their builds keep the default.
  if(BUILD_SHARED_LIBS AND NOT FITSASDF_SANITIZE AND NOT FITSASDF_FUZZ)
    target_link_options(${target} PRIVATE LINKER:--no-undefined)
  endif()
endfunction()
