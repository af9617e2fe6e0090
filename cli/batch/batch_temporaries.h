#pragma once
// Temporary files of `fitsasdf batch`: an output is written to ".NAME.tmp-XXXXXX" beside its
// final NAME (asdfcore::io::AtomicFile) and renamed into place when complete. A kill -9 or a
// power loss leaves that temporary behind; the next run removes the ones it owns before it
// starts.
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "batch/batch_inputs.h"

namespace fitsasdf::cli::batch {

/// The name of the file `probe_output_folder` writes (and removes) in OUTDIR.
inline constexpr const char* kProbeName = ".fitsasdf-batch-probe";

/// Return true when `name` is a temporary of the final name `final_name`: "." + final_name +
/// ".tmp-" + 6 characters (mkstemp's suffix).
bool is_temporary_of(const std::string& name, const std::string& final_name);

/// Remove the temporaries of `outputs` (in their folders, only those named after one of them,
/// so other shards' files in the same OUTDIR are left alone), of the probe in `outdir` and of
/// `report` (when not empty). Return the paths removed. Errors are ignored (the file stays).
std::vector<std::filesystem::path> remove_stale_temporaries(const std::vector<Item>& items,
                                                            const std::filesystem::path& outdir,
                                                            const std::filesystem::path& report);

/// Create `outdir` (and its parents) and check that a file can be written in it, by making and
/// removing a temporary there. Throws `asdfcore::Error` (io) saying why not.
void probe_output_folder(const std::filesystem::path& outdir);

}  // namespace fitsasdf::cli::batch
