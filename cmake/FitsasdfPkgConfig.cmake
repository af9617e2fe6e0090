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
# What the libraries need besides themselves. Shared, each library names its own dependencies, so
# they are private (for --static); static, a plain `pkg-config --libs` must list them all, and
# the C++ runtime, since a C program's link does not add it.
set(asdfcore_deps "yaml-0.1 liblz4 zlib libcrypto libisal libdeflate libpcre2-8")
set(fitsasdf_deps "cfitsio zlib libdeflate libpng")
if(BUILD_SHARED_LIBS)
  set(FITSASDF_PC_ASDFCORE_REQUIRES "Requires.private: ${asdfcore_deps}")
  set(FITSASDF_PC_ASDFCORE_LIBS "Libs: -L\${libdir} -lasdfcore\nLibs.private: -lbz2 -pthread")
  set(FITSASDF_PC_FITSASDF_REQUIRES "Requires: asdfcore = ${PROJECT_VERSION}\nRequires.private: ${fitsasdf_deps}")
  set(FITSASDF_PC_FITSASDF_LIBS "Libs: -L\${libdir} -lfitsasdf\nLibs.private: -lbz2")
else()
  set(FITSASDF_PC_ASDFCORE_REQUIRES "Requires: ${asdfcore_deps}")
  set(FITSASDF_PC_ASDFCORE_LIBS "Libs: -L\${libdir} -lasdfcore -lbz2 -pthread -lstdc++ -lm")
  set(FITSASDF_PC_FITSASDF_REQUIRES "Requires: asdfcore = ${PROJECT_VERSION} ${fitsasdf_deps}")
  set(FITSASDF_PC_FITSASDF_LIBS "Libs: -L\${libdir} -lfitsasdf -lbz2 -lstdc++ -lm")
endif()
foreach(pc asdfcore fitsasdf)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/${pc}.pc.in ${PROJECT_BINARY_DIR}/pkgconfig/${pc}.pc
                 @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/${pc}.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT library)
endforeach()
