#pragma once
// A private temporary folder for the intermediate files of a comparison, removed with its
// contents when the object goes away (also when an exception passes).
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>

#include "asdfcore/error.h"

namespace fitsasdf::compare {

class TempFolder {
 public:
  /// Create a folder "fitsasdf-<purpose>-XXXXXX" in the system's temporary folder. Throws
  /// `asdfcore::Error` (io) when it cannot be created.
  explicit TempFolder(const std::string& purpose) {
    std::string pattern =
        (std::filesystem::temp_directory_path() / ("fitsasdf-" + purpose + "-XXXXXX")).string();
    if (mkdtemp(pattern.data()) == nullptr) {
      throw asdfcore::Error(
          asdfcore::ErrorCode::kIo,
          std::string("cannot create a temporary folder: ") + std::strerror(errno),
          asdfcore::ErrorContext{.file = pattern});
    }
    path_ = pattern;
  }
  ~TempFolder() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;

  /// Return the path of `name` inside the folder.
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace fitsasdf::compare
