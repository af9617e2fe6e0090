#pragma once
/// \file
/// The C++ values of the core tags that are not arrays: complex numbers, arbitrary-size
/// integers, external arrays and tables.

#include <complex>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "asdfcore/tree/node.h"

namespace asdfcore::extension {

/// Parse the text of a `core/complex` node ("(1+2j)", "-1.5e3-2i", "nan+infj", "3j").
/// Throws `Error` (malformed) for anything else.
std::complex<double> parse_complex(std::string_view text);

/// Return the text python asdf writes for `value` ("(1+2j)", "(1.5-0j)", "(nan+infj)").
std::string format_complex(std::complex<double> value);

/// A `core/integer`: an integer of any size, kept as decimal text.
struct BigInteger {
  std::string decimal;  ///< "-1180591620717411303424"
};

/// Return the decimal text of the unsigned integer whose base-2^32 digits are `words`, least
/// significant first, with `negative` giving the sign.
std::string words_to_decimal(std::span<const std::uint32_t> words, bool negative);

/// A `core/externalarray`: data held by a file outside ASDF.
struct ExternalArray {
  std::string fileuri;               ///< URI of the file holding the data.
  tree::NodePtr target;              ///< Where in that file (an integer or a string node).
  std::string datatype;              ///< The element type, as the node writes it ("int16").
  std::vector<std::uint64_t> shape;  ///< Elements along each axis, slowest first.
};

/// One column of a `core/table`.
struct TableColumn {
  std::string name;         ///< The column's name.
  std::string description;  ///< Free text; empty when the node has none.
  tree::NodePtr data;  ///< Usually a `core/ndarray` node.
  tree::NodePtr unit;  ///< The column's unit node, or nullptr.
};

/// A `core/table`, read into a generic form.
struct Table {
  std::vector<TableColumn> columns;  ///< The columns, in order.
  tree::NodePtr meta;                ///< The table's `meta` mapping, or nullptr.
};

}  // namespace asdfcore::extension
