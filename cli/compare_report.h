#pragma once
// How `fitsasdf verify` and `fitsasdf diff` show their reports: text for people (in the manner
// of fitsdiff and asdftool diff) (the JSON documents are fitsasdf/report_json.h).
#include <ostream>

#include "fitsasdf/diff.h"
#include "fitsasdf/verify.h"

namespace fitsasdf::cli {

/// Write a verification for people: one line per HDU, then the differences under it.
void print_verify(std::ostream& out, const VerifyReport& r);
/// Write a diff for people: fitsdiff's layout for FITS, one line per tree path for ASDF.
void print_diff(std::ostream& out, const DiffReport& r);

}  // namespace fitsasdf::cli
