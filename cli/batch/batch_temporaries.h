#pragma once
// Temporary files of `fitsasdf batch`: an output is written to ".NAME.tmp-XXXXXX" beside its
// final NAME (asdfcore::io::AtomicFile) and renamed into place when complete. A kill -9 or a
// power loss leaves that temporary behind; the next run removes the ones it owns before it
// starts.
#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace fitsasdf::cli::batch {

/// The name of the file `probe_output_folder` writes (and removes) in OUTDIR.
inline constexpr const char* kProbeName = ".fitsasdf-batch-probe";

/// The temporaries found in one folder, by the final name they are a temporary of.
using Temporaries = std::map<std::string, std::vector<std::filesystem::path>>;

/// Return the files of `folder` named like a temporary (none when the folder cannot be read).
/// Memory: the temporaries, not the folder's other files.
Temporaries temporaries_in(const std::filesystem::path& folder);

/// Remove the temporaries of the final name `final_name` listed in `found`; return how many
/// went. Errors are ignored (the file stays).
std::size_t remove_temporaries_of(const Temporaries& found, const std::string& final_name);

/// Remove the temporaries of the probe in `outdir` and of `report` (when not empty). Return
/// how many went. The outputs' own are removed as the batch lists its inputs, folder by folder
/// (batch_plan.h), so that other shards' files in the same OUTDIR are left alone.
std::size_t remove_own_temporaries(const std::filesystem::path& outdir,
                                   const std::filesystem::path& report);

/// Create `outdir` (and its parents) and check that a file can be written in it, by making and
/// removing a temporary there. Throws `asdfcore::Error` (io) saying why not.
void probe_output_folder(const std::filesystem::path& outdir);

}  // namespace fitsasdf::cli::batch
