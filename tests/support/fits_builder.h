#pragma once
// Tiny FITS files built byte by byte for the tests (cards, headers, HDUs, big-endian values, a
// sample file of three HDUs), and the byte edits that alter them (a flipped bit, a changed
// card, two swapped cards).
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace fitsasdf::test::fits_builder {

/// A card "KEY     = value / comment" in the fixed format: numbers and logicals right-aligned
/// to column 30, strings (given with their quotes) from column 11.
inline std::string card(std::string key, const std::string& value,
                        const std::string& comment = "") {
  key.resize(8, ' ');
  std::string v = value;
  if (!v.starts_with("'") && v.size() < 20) v.insert(0, 20 - v.size(), ' ');
  std::string c = key + "= " + v;
  if (!comment.empty()) c += " / " + comment;
  if (c.size() > 80) throw std::runtime_error("card too long: " + c);
  c.resize(80, ' ');
  return c;
}

/// `value` as a fixed-format string: quoted, padded with blanks to at least 8 characters.
inline std::string quoted(std::string value) {
  if (value.size() < 8) value.resize(8, ' ');
  return "'" + value + "'";
}

/// A card with an integer value.
inline std::string num(const std::string& key, long long value) {
  return card(key, std::to_string(value));
}

/// A card with a string value (given without its quotes).
inline std::string text(const std::string& key, const std::string& value) {
  return card(key, quoted(value));
}

/// `bytes` padded with `fill` to whole 2880-byte blocks.
inline std::string padded(std::string bytes, char fill = '\0') {
  bytes.resize((bytes.size() + 2879) / 2880 * 2880, fill);
  return bytes;
}

/// The header blocks of `cards` (each padded to 80 bytes), END, then blanks to 2880 bytes.
inline std::string header(const std::vector<std::string>& cards) {
  std::string out;
  for (std::string c : cards) {
    c.resize(80, ' ');
    out += c;
  }
  out += std::string("END").append(77, ' ');
  return padded(std::move(out), ' ');
}

/// One HDU: `cards`, END, blanks to 2880 bytes, then `data` padded with zeros to 2880 bytes.
inline std::string hdu(const std::vector<std::string>& cards, const std::string& data) {
  return header(cards) + padded(data);
}

/// The header of an empty primary HDU (SIMPLE, BITPIX 8, NAXIS 0, EXTEND).
inline std::string empty_primary() {
  return header({card("SIMPLE", "T"), num("BITPIX", 8), num("NAXIS", 0), card("EXTEND", "T")});
}

/// Big-endian bytes of `value`.
template <typename T>
std::string big_endian(T value) {
  char raw[sizeof(T)];
  std::memcpy(raw, &value, sizeof(T));
  std::string out(raw, sizeof(T));
  if constexpr (std::endian::native == std::endian::little) std::reverse(out.begin(), out.end());
  return out;
}

/// The mandatory cards of a table extension, `xtension` "BINTABLE" or "TABLE": XTENSION,
/// BITPIX, NAXIS 2, NAXIS1 (bytes a row), NAXIS2 (rows), PCOUNT, GCOUNT 1 and TFIELDS.
inline std::vector<std::string> table_cards(const std::string& xtension, long long naxis1,
                                            long long naxis2, long long pcount, long long tfields,
                                            long long bitpix = 8) {
  return {text("XTENSION", xtension), num("BITPIX", bitpix),  num("NAXIS", 2),
          num("NAXIS1", naxis1),      num("NAXIS2", naxis2),  num("PCOUNT", pcount),
          num("GCOUNT", 1),           num("TFIELDS", tfields)};
}

/// The low `size` bytes of `value`, big-endian.
inline std::string big_endian(std::uint64_t value, int size) {
  std::string out;
  for (int i = size - 1; i >= 0; --i) out += static_cast<char>((value >> (8 * i)) & 0xff);
  return out;
}

/// Size of each HDU of `sample()`: one header block and one data block.
inline constexpr std::size_t kHduSize = 5760;
/// Where the data of HDU `n` (1-based) of `sample()` starts.
inline constexpr std::size_t data_start(int n) {
  return kHduSize * static_cast<std::size_t>(n - 1) + 2880;
}

/// A file of three HDUs, each one header block and one data block:
///  1. primary int16 image 4 x 3 (values 10 * i), OBJECT = 'M31' / target, EXPTIME = 12.5 /
///     seconds, HISTORY lines;
///  2. IMAGE float32 of 5 (0.5, 1.5, NaN 0x7fc00000, 3.5, -0.0), EXTNAME = 'SCI';
///  3. BINTABLE of 3 rows (id J, name 8A), EXTNAME = 'TAB'.
inline std::string sample() {
  std::string pixels;
  for (int i = 0; i < 12; ++i)
    pixels += big_endian<std::int16_t>(static_cast<std::int16_t>(10 * i));
  std::string floats;
  for (std::uint32_t bits : {0x3f000000u, 0x3fc00000u, 0x7fc00000u, 0x40600000u, 0x80000000u}) {
    floats += big_endian(bits);
  }
  std::string rows;
  const char* names[] = {"alpha", "bb", "c"};
  for (int r = 0; r < 3; ++r) {
    std::string name = names[r];
    name.resize(8, ' ');
    rows += big_endian<std::int32_t>(100 + r) + name;
  }
  return hdu({card("SIMPLE", "T", "conforms to FITS standard"), card("BITPIX", "16"),
              card("NAXIS", "2"), card("NAXIS1", "4"), card("NAXIS2", "3"),
              card("OBJECT", "'M31'", "target"), card("EXPTIME", "12.5", "seconds"),
              "HISTORY first line", "HISTORY second line"},
             pixels) +
         hdu({card("XTENSION", "'IMAGE   '", "image extension"), card("BITPIX", "-32"),
              card("NAXIS", "1"), card("NAXIS1", "5"), card("PCOUNT", "0"), card("GCOUNT", "1"),
              card("EXTNAME", "'SCI'")},
             floats) +
         hdu({card("XTENSION", "'BINTABLE'", "binary table extension"), card("BITPIX", "8"),
              card("NAXIS", "2"), card("NAXIS1", "12"), card("NAXIS2", "3"), card("PCOUNT", "0"),
              card("GCOUNT", "1"), card("TFIELDS", "2"), card("TTYPE1", "'id'"),
              card("TFORM1", "'J'"), card("TTYPE2", "'name'"), card("TFORM2", "'8A'"),
              card("EXTNAME", "'TAB'")},
             rows);
}

/// Return `bytes` with the first occurrence of `from` replaced by `to` (the same length).
inline std::string replace(std::string bytes, const std::string& from, const std::string& to) {
  if (from.size() != to.size()) throw std::runtime_error("replace: sizes differ");
  const auto at = bytes.find(from);
  if (at == std::string::npos) throw std::runtime_error("replace: not found: " + from);
  bytes.replace(at, from.size(), to);
  return bytes;
}

/// Return `bytes` with the 80-byte cards starting with `first` and `second` swapped.
inline std::string swap_cards(std::string bytes, const std::string& first,
                              const std::string& second) {
  const auto a = bytes.find(first);
  const auto b = bytes.find(second);
  if (a == std::string::npos || b == std::string::npos || a % 80 || b % 80) {
    throw std::runtime_error("swap_cards: card not found");
  }
  const std::string ca = bytes.substr(a, 80);
  bytes.replace(a, 80, bytes.substr(b, 80));
  bytes.replace(b, 80, ca);
  return bytes;
}

/// Return `bytes` with bit `bit` of byte `offset` flipped.
inline std::string flip_bit(std::string bytes, std::size_t offset, int bit = 0) {
  bytes.at(offset) = static_cast<char>(bytes.at(offset) ^ (1 << bit));
  return bytes;
}

/// Write `bytes` to `path`.
inline void write(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
  if (!out.good()) throw std::runtime_error("cannot write " + path.string());
}

/// Read the file at `path`.
inline std::string read(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace fitsasdf::test::fits_builder
