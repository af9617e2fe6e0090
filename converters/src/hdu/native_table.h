#pragma once
// The native view of a table HDU: a core/table whose columns are ndarrays (views into the HDU's
// block where the values are stored as they are read), with units in VOUnit and descriptions.
#include <string>
#include <vector>

#include "asdfcore/tree/node.h"
#include "fitsasdf/convert.h"
#include "hdu/hdu_converter.h"

namespace fitsasdf::hdu {

/// One column of a native table.
struct NativeColumn {
  std::string name;
  asdfcore::tree::NodePtr data;  ///< An ndarray node.
  std::string fits_unit;         ///< TUNITn as written ("" for none).
  std::string description;       ///< TCOMMn ("" for none).
};

/// Return the names of the `count` columns of a table header: TTYPEn without trailing blanks;
/// `col<n>` when missing or blank; `<name>_<n>` for a name already taken (FITS compares column
/// names without regard to case).
std::vector<std::string> column_names(const HeaderView& header, long long count);

/// Return a `unit/unit` node for the FITS unit string `fits_unit`, or nullptr when it is blank
/// or not a unit astropy parses (then a note naming `what` goes to `report`).
asdfcore::tree::NodePtr unit_node(const std::string& fits_unit, std::string_view what,
                                  HduReport& report);

/// Return a `core/table-1.0.0` of `core/column-1.0.0` entries, in order.
asdfcore::tree::NodePtr make_native_table(const std::vector<NativeColumn>& columns,
                                          HduReport& report);

}  // namespace fitsasdf::hdu
