# asdfcore.pc and fitsasdf.pc (from asdfcore.pc.in and fitsasdf.pc.in beside this file),
# installed to ${CMAKE_INSTALL_LIBDIR}/pkgconfig. With the usual relative install folders the
# files find the prefix from where they lie (${pcfiledir}), so an install moved or made with
# `cmake --install --prefix` still works; an absolute CMAKE_INSTALL_LIBDIR or
# CMAKE_INSTALL_INCLUDEDIR is written as it is.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(FITSASDF_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(FITSASDF_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  # From <prefix>/<libdir>/pkgconfig up to <prefix>: "../.." for lib, "../../.." for lib/<arch>.
  file(RELATIVE_PATH fitsasdf_pc_up "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
  string(REGEX REPLACE "/$" "" fitsasdf_pc_up "${fitsasdf_pc_up}")
  set(FITSASDF_PC_PREFIX "\${pcfiledir}/${fitsasdf_pc_up}")
  set(FITSASDF_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(FITSASDF_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(FITSASDF_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
foreach(pc asdfcore fitsasdf)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/${pc}.pc.in ${PROJECT_BINARY_DIR}/pkgconfig/${pc}.pc
                 @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/${pc}.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT library)
endforeach()
