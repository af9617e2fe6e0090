# The Debian package (scripts/package-deb.sh configures with FITSASDF_PACKAGE=ON and runs
# `cpack -G DEB`): one package, fitsasdf, with the command, its man pages and bash completion,
# the shared libraries and the development files (headers, CMake package, pkg-config files).
# Its Depends come from the shared libraries' own dependencies (dpkg-shlibdeps), its shlibs and
# ldconfig trigger from the libraries it ships. The Python module is not in it.
option(FITSASDF_PACKAGE "Set up CPack for the Debian package (scripts/package-deb.sh)" OFF)
if(NOT FITSASDF_PACKAGE)
  return()
endif()
if(NOT BUILD_SHARED_LIBS)
  message(FATAL_ERROR "FITSASDF_PACKAGE needs BUILD_SHARED_LIBS=ON: the package ships the shared \
libraries")
endif()
if(NOT FITSASDF_BUILD_MAN)
  message(FATAL_ERROR "FITSASDF_PACKAGE needs the man pages (apt-get install help2man)")
endif()

set(FITSASDF_MAINTAINER "fitsasdf maintainers <maintainers@users.noreply.a-seed-347d2118.example>")
# The Debian changelog and copyright files every package carries, in /usr/share/doc/fitsasdf.
string(TIMESTAMP FITSASDF_PACKAGE_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)  # SOURCE_DATE_EPOCH wins
set(FITSASDF_DEB_RELEASE 1)
set(doc_dir ${PROJECT_BINARY_DIR}/package-doc)
configure_file(${PROJECT_SOURCE_DIR}/packaging/deb/changelog.in ${doc_dir}/changelog.Debian @ONLY)
add_custom_command(OUTPUT ${doc_dir}/changelog.Debian.gz
  COMMAND gzip -9nf ${doc_dir}/changelog.Debian
  DEPENDS ${doc_dir}/changelog.Debian VERBATIM)
add_custom_target(fitsasdf_package_doc ALL DEPENDS ${doc_dir}/changelog.Debian.gz)
install(FILES ${doc_dir}/changelog.Debian.gz ${PROJECT_SOURCE_DIR}/packaging/deb/copyright
        DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT cli)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME fitsasdf)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${FITSASDF_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "convert astronomical data between FITS and ASDF, bit-exactly")
# (CPack puts the summary first, indents the lines and turns the empty line into " .")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "fitsasdf converts FITS files (images, tables, random groups,
tile-compressed HDUs, every header card) to ASDF, the Advanced Scientific Data
Format, and back, byte for byte. It verifies round trips, compares files,
converts whole archives in parallel with resume, validates ASDF files and
edits them in place, crash-safe.

This package holds the fitsasdf command with its man pages and bash
completion, and the libraries asdfcore (a complete ASDF library, with a C API
compatible with libasdf's) and fitsasdf (the converters), with their headers,
CMake package and pkg-config files.")
set(CPACK_DEBIAN_PACKAGE_RELEASE ${FITSASDF_DEB_RELEASE})
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
# dpkg runs ldconfig once after the packages of a run are unpacked (Debian policy 8.1.1).
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${PROJECT_SOURCE_DIR}/packaging/deb/triggers)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# `fitsasdf validate` reads the ASDF Standard's schemas from python3-asdf-standard (and
# astropy's from python3-asdf-astropy) where Debian installs them.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3-asdf-standard")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "python3-asdf-astropy")
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_COMPONENTS_ALL library cli)
set(CPACK_OUTPUT_FILE_PREFIX ${PROJECT_BINARY_DIR}/package)
include(CPack)
