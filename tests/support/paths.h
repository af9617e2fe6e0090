#pragma once
// Where the tests find their inputs and tools; the values come from tests/CMakeLists.txt.
#include <filesystem>
#include <string>

namespace fitsasdf::test {

/// The project's tests/data folder.
inline std::filesystem::path data_dir() { return FITSASDF_TEST_DATA_DIR; }
/// The project's samples folder.
inline std::filesystem::path samples_dir() { return FITSASDF_SAMPLES_DIR; }
/// The shared corpus of real files (../shared/corpus from the project root).
inline std::filesystem::path corpus_dir() { return FITSASDF_CORPUS_DIR; }
/// The built `fitsasdf` executable.
inline std::filesystem::path cli_path() { return FITSASDF_CLI_PATH; }
/// The folder holding the Python helper scripts of the interop tests.
inline std::filesystem::path scripts_dir() { return FITSASDF_TEST_SCRIPTS_DIR; }
/// The Debian interpreter that has python3-asdf and astropy.
inline std::string reference_python() { return "/usr/bin/python3"; }

}  // namespace fitsasdf::test
