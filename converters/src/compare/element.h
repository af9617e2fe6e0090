#pragma once
// Single elements of array data, as the comparisons see them: read one element of a numeric
// kind from its bytes (big- or little-endian), compare two elements bit for bit or by value,
// and write an element as text for a report; and two scalar tree values compared as numbers.
#include <cstdint>
#include <optional>
#include <string>

#include "asdfcore/ndarray/dtype.h"
#include "asdfcore/tree/node.h"

namespace fitsasdf::compare {

/// How two elements are compared.
enum class ElementRule {
  kBytes,   ///< Equal when every byte is equal (NaN payloads and the sign of zero count).
  kValues,  ///< Equal when the values are equal, NaN equal to NaN (numbers); bytes otherwise.
};

/// Return true when the element of `kind` at `a` equals the one at `b` under `rule`; both are
/// stored big-endian when `big_endian`, else little-endian.
bool elements_equal(const std::uint8_t* a, const std::uint8_t* b, asdfcore::ndarray::DTypeKind kind,
                    bool big_endian, ElementRule rule) noexcept;

/// Return true when two numeric elements of possibly different kinds hold the same value
/// (NaN equal to NaN; complex numbers part by part).
bool values_equal(const std::uint8_t* a, asdfcore::ndarray::DTypeKind kind_a, const std::uint8_t* b,
                  asdfcore::ndarray::DTypeKind kind_b, bool big_endian) noexcept;

/// Return the element of numeric `kind` at `p` as text: integers in decimal, floats as Python's
/// repr ("1.0", "1e-10", "inf"), a NaN with its bits when `nan_bits` ("nan(0x7fc00001)"),
/// complex numbers as "(1.0+2.0j)", bool8 as "True"/"False".
std::string format_element(const std::uint8_t* p, asdfcore::ndarray::DTypeKind kind,
                           bool big_endian, bool nan_bits);

/// Return `bytes` (`size` of them) as Python shows a bytes value: b'ab\x00'.
std::string format_bytes(const std::uint8_t* p, std::size_t size);

/// Compare two scalar nodes as Python compares numbers (a bool as 0 or 1, NaN equal to NaN):
/// whether they are equal, or nothing when either is not a bool, integer or float.
std::optional<bool> numbers_equal(const asdfcore::tree::Node& a, const asdfcore::tree::Node& b);

/// Return `value` as Python's repr of a float ("1.0", "2.5e-08", "nan", "-inf").
std::string format_double(double value);

}  // namespace fitsasdf::compare
