#pragma once
// How `fitsasdf verify` and `fitsasdf diff` show their reports: text for people (in the manner
// of fitsdiff and asdftool diff) and JSON for programs (documented in README.md).
#include <nlohmann/json.hpp>
#include <ostream>

#include "fitsasdf/diff.h"
#include "fitsasdf/verify.h"

namespace fitsasdf::cli {

/// Return the JSON object of a FITS comparison (`mode`, HDU counts, `missing_hdus`,
/// `extra_hdus`, `hdus`).
nlohmann::ordered_json fits_comparison_json(const FitsComparison& c);
/// Return the JSON object of an ASDF comparison (`total`, `arrays_compared`, `differences`).
nlohmann::ordered_json asdf_comparison_json(const AsdfComparison& c);
/// Return the JSON object of a verification.
nlohmann::ordered_json verify_json(const VerifyReport& r);
/// Return the JSON object of a diff.
nlohmann::ordered_json diff_json(const DiffReport& r);

/// Write a verification for people: one line per HDU, then the differences under it.
void print_verify(std::ostream& out, const VerifyReport& r);
/// Write a diff for people: fitsdiff's layout for FITS, one line per tree path for ASDF.
void print_diff(std::ostream& out, const DiffReport& r);

}  // namespace fitsasdf::cli
