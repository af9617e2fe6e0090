#pragma once
/// \file
/// The reports of the conversions, the verification, the comparisons and the validation as JSON
/// documents: what `fitsasdf convert --json`, `verify --json`, `diff --json` and `validate
/// --json` print (their fields are listed in README.md) and what the Python module's report
/// objects are made from.

#include <string>
#include <string_view>

#include "asdfcore/validate.h"
#include "fitsasdf/convert.h"
#include "fitsasdf/diff.h"
#include "fitsasdf/verify.h"

namespace fitsasdf {

/// Return `report` as a JSON object (`input`, `output`, `fits_tag`, `bytes_in`, `bytes_out`,
/// `hdus`, `findings`); `indent` spaces per level, or one line when negative.
std::string to_json(const ConversionReport& report, int indent = -1);
/// Return `report` as a JSON object (`fits`, `asdf`, `other`, `round_trip`, `equivalent`,
/// `blocks`, `comparison`); `indent` as above.
std::string to_json(const VerifyReport& report, int indent = -1);
/// Return `report` as a JSON object (`a`, `b`, `format`, `converted`, `identical`, and `fits`
/// or `asdf`); `indent` as above.
std::string to_json(const DiffReport& report, int indent = -1);

/// Return `result` as a JSON object (`file`, `status` "sound" or "findings", `asdf_standard`,
/// `findings` each with `kind`, `pointer`, `block`, `offset`, `schema`, `keyword`, `message`,
/// `value`; `notes`, `unknown_tags`, `missing_schemas`, `checked`); `indent` as above.
std::string to_json(const asdfcore::FileValidation& result, int indent = -1);

/// Return the name of `state` as the reports give it: "absent", "valid" or "invalid".
std::string_view checksum_state_name(ChecksumState state) noexcept;

}  // namespace fitsasdf
