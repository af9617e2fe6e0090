#pragma once
// One input of `fitsasdf batch`: skipped when its output is complete already, else converted
// (the direction told by content) and, with --verify, checked by a round trip; the outcome as a
// report line, and whether the error met is fatal to the whole batch.
#include <filesystem>
#include <optional>
#include <string>

#include "batch/batch_inputs.h"
#include "batch/batch_report.h"
#include "fitsasdf/convert.h"
#include "fitsasdf/to_fits.h"

namespace fitsasdf::cli::batch {

/// What a batch asks of each conversion.
struct ConvertSettings {
  ConvertOptions to_asdf;     ///< FITS input.
  AsdfToFitsOptions to_fits;  ///< ASDF input.
  bool verify = false;        ///< Verify each output by a round trip.
};

/// The outcome of one input.
struct Outcome {
  Line line;          ///< The report line (input, output, status, error, bytes, seconds...).
  std::string fatal;  ///< Set when the error stops the batch (disk full, folder not writable);
                      ///< the input is then not done, and `line` not to be reported.
};

/// Return true when `output` is a complete conversion result: an ASDF file whose layout has no
/// problem and whose blocks all read (and match their MD5 when they have one), or a FITS file
/// whose last HDU is whole. Checked, not assumed from the name.
bool complete(const std::filesystem::path& output, bool asdf_output);

/// Convert (or skip) `item`. `earlier` is the report line a previous run wrote for it, if
/// any: with --verify, a skipped output it shows verified already is not verified again.
Outcome convert_one(const Item& item, const ConvertSettings& settings,
                    const std::optional<Line>& earlier);

}  // namespace fitsasdf::cli::batch
