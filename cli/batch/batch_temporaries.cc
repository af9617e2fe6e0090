// Finding and removing the temporaries an interrupted batch left behind; probing OUTDIR.
#include "batch/batch_temporaries.h"

#include <system_error>

#include "asdfcore/error.h"
#include "asdfcore/io/atomic_file.h"

namespace fs = std::filesystem;

namespace fitsasdf::cli::batch {
namespace {

constexpr std::string_view kTempMark = ".tmp-";
constexpr std::size_t kSuffixSize = 6;  // mkstemp's XXXXXX

/// Return the final name `name` is a temporary of, or "" when it is not shaped like one.
std::string final_name_of(const std::string& name) {
  if (name.size() < 1 + kTempMark.size() + kSuffixSize || name[0] != '.') return "";
  const std::size_t mark = name.size() - kSuffixSize - kTempMark.size();
  if (name.compare(mark, kTempMark.size(), kTempMark) != 0) return "";
  return name.substr(1, mark - 1);
}

}  // namespace

Temporaries temporaries_in(const fs::path& folder) {
  Temporaries found;
  std::error_code ec;
  fs::directory_iterator it(folder, ec);
  if (ec) return found;  // not made yet: nothing in it
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    std::string final_name = final_name_of(it->path().filename().string());
    if (final_name.empty()) continue;
    std::error_code type_ec;
    if (it->is_regular_file(type_ec)) found[std::move(final_name)].push_back(it->path());
  }
  return found;
}

std::size_t remove_temporaries_of(const Temporaries& found, const std::string& final_name) {
  const auto it = found.find(final_name);
  if (it == found.end()) return 0;
  std::size_t removed = 0;
  for (const auto& path : it->second) {
    std::error_code ec;
    if (fs::remove(path, ec)) ++removed;
  }
  return removed;
}

std::size_t remove_own_temporaries(const fs::path& outdir, const fs::path& report) {
  std::size_t removed = remove_temporaries_of(temporaries_in(outdir), kProbeName);
  if (!report.empty()) {
    const fs::path folder = report.parent_path().empty() ? fs::path(".") : report.parent_path();
    removed += remove_temporaries_of(temporaries_in(folder), report.filename().string());
  }
  return removed;
}

void probe_output_folder(const fs::path& outdir) {
  std::error_code ec;
  fs::create_directories(outdir, ec);
  if (fs::exists(outdir) && !fs::is_directory(outdir)) {
    throw asdfcore::Error(asdfcore::ErrorCode::kIo,
                          "the output folder is an existing file, not a folder",
                          asdfcore::ErrorContext{.file = outdir.string()});
  }
  if (ec || !fs::is_directory(outdir)) {
    throw asdfcore::Error(
        asdfcore::ErrorCode::kIo,
        "cannot create the output folder" + (ec ? ": " + ec.message() : std::string()),
        asdfcore::ErrorContext{.file = outdir.string()});
  }
  // Throws, saying why, when no file can be made there; the destructor removes the temporary.
  asdfcore::io::AtomicFile probe((outdir / kProbeName).string(), false);
}

}  // namespace fitsasdf::cli::batch
