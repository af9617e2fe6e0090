// A FITS file described as astropy 5.2's `HDUList.info()` and `fitsheader` describe it: each
// HDU's class by its first card (hdu/*.py `match_header`), its row of the table by that class's
// `_summary()` computed from the header alone (as astropy does while the data is not loaded).
#include "fitsasdf/fits_info.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <utility>

#include "asdfcore/error.h"
#include "compare/file_kind.h"
#include "embedded/asdf_extension.h"
#include "fits/fits_file.h"
#include "hdu/hdu_converter.h"
#include "info/image_header.h"

namespace fitsasdf {
namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::ErrorContext;
using asdfcore::tree::Node;
using asdfcore::tree::NodeKind;
using asdfcore::tree::NodePtr;

/// Return the value of the first card with `keyword`, or nullptr.
NodePtr value_of(const std::vector<Card>& cards, std::string_view keyword) {
  for (const auto& c : cards) {
    if (c.keyword == keyword) return c.value;
  }
  return nullptr;
}

/// Return Python's `repr()` of a float, close enough for the values headers hold.
std::string python_float(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[40];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  std::string s = buf;
  const std::size_t e = s.find('e');
  const std::string mantissa = e == std::string::npos ? s : s.substr(0, e);
  if (e == std::string::npos) {
    if (s.find('.') == std::string::npos) s += ".0";
    return s;
  }
  // Python writes 1e-05 and 1e+16, as %g does.
  return mantissa + s.substr(e);
}

/// Return Python's `str()` of a card value.
std::string python_str(const NodePtr& v) {
  if (!v || v->is_null()) return "";
  switch (v->kind()) {
    case NodeKind::kBool:
      return v->as_bool() ? "True" : "False";
    case NodeKind::kInt:
    case NodeKind::kBigInt:
      return v->integer_text();
    case NodeKind::kFloat:
      return python_float(v->as_double());
    case NodeKind::kString:
      return v->as_string();
    default:
      return "";
  }
}

/// Return an integer value, or `fallback` when the card is absent; throw when it is not one.
std::int64_t integer_of(const std::vector<Card>& cards, std::string_view keyword,
                        std::int64_t fallback, const ErrorContext& where) {
  const NodePtr v = value_of(cards, keyword);
  if (!v) return fallback;
  if (v->kind() != NodeKind::kInt) {
    throw Error(ErrorCode::kMalformed,
                std::string(keyword) + " is not an integer: the HDU cannot be described", where);
  }
  return v->as_int();
}

/// Return a numeric value as a double, or `fallback` when absent or not a number.
double number_of(const std::vector<Card>& cards, std::string_view keyword, double fallback) {
  const NodePtr v = value_of(cards, keyword);
  return v && v->is_number() ? v->as_double() : fallback;
}

/// astropy's BITPIX2DTYPE, "" for a BITPIX it does not know.
std::string dtype_for(std::int64_t bitpix) {
  switch (bitpix) {
    case 8:
      return "uint8";
    case 16:
      return "int16";
    case 32:
      return "int32";
    case 64:
      return "int64";
    case -32:
      return "float32";
    case -64:
      return "float64";
    default:
      return "";
  }
}

/// NAXIS1 ... NAXISn in FITS order.
std::vector<std::int64_t> axes_of(const std::vector<Card>& cards, const ErrorContext& where) {
  const std::int64_t naxis = integer_of(cards, "NAXIS", 0, where);
  std::vector<std::int64_t> axes;
  for (std::int64_t i = 1; i <= naxis; ++i) {
    axes.push_back(integer_of(cards, "NAXIS" + std::to_string(i), 0, where));
  }
  return axes;
}

bool all_nonzero(const std::vector<std::int64_t>& axes) {
  return !axes.empty() && std::none_of(axes.begin(), axes.end(), [](auto a) { return a == 0; });
}

/// `ImageHDU._summary()` for an image whose data is not loaded: the dtype of BITPIX when every
/// axis is non-zero, with what BSCALE/BZERO rescale it to (`_dtype_for_bitpix`, uint=True).
void summarize_image(const std::vector<Card>& cards, const ErrorContext& where, FitsHduInfo& h) {
  h.axes = axes_of(cards, where);
  const std::int64_t bitpix = integer_of(cards, "BITPIX", 0, where);
  if (!all_nonzero(h.axes)) return;
  h.format = dtype_for(bitpix);
  const double bscale = number_of(cards, "BSCALE", 1.0);
  const double bzero = number_of(cards, "BZERO", 0.0);
  if (h.format.empty() || (bscale == 1.0 && bzero == 0.0)) return;
  std::string to;
  if (bscale == 1.0 && bitpix == 8 && bzero == -128.0) to = "int8";
  for (int bits : {16, 32, 64}) {
    if (bscale == 1.0 && bitpix == bits && bzero == std::ldexp(1.0, bits - 1)) {
      to = "uint" + std::to_string(bits);
    }
  }
  if (to.empty() && bitpix > 16) to = "float64";
  if (to.empty() && bitpix > 0) to = "float32";
  if (!to.empty()) h.format += " (rescales to " + to + ")";
}

void summarize_table(const std::vector<Card>& cards, const ErrorContext& where, FitsHduInfo& h) {
  h.table = true;
  h.rows = integer_of(cards, "NAXIS2", 0, where);
  h.columns = integer_of(cards, "TFIELDS", 0, where);
  std::string format = "[";
  for (std::int64_t i = 1; i <= h.columns; ++i) {
    const std::string keyword = "TFORM" + std::to_string(i);
    const NodePtr v = value_of(cards, keyword);
    if (!v || !v->is_string()) {
      throw Error(ErrorCode::kMalformed,
                  "the table has no " + keyword + " (a string) for its column " +
                      std::to_string(i) + " of TFIELDS = " + std::to_string(h.columns),
                  where);
    }
    if (i > 1) format += ", ";
    format += v->as_string();
  }
  h.format = format + "]";
}

/// The HDU at `extent`, whose cards `cards` are moved into it.
FitsHduInfo describe_hdu(const fits::HduExtent& extent, std::vector<Card> cards,
                         const ErrorContext& where) {
  FitsHduInfo h;
  h.index = extent.index - 1;
  const bool primary = extent.index == 1;
  std::string default_name;
  std::vector<Card> table;
  if (extent.type == fits::kForeignHdu) {
    h.type = primary ? "NonstandardHDU" : "NonstandardExtHDU";
    if (!primary) h.axes = {static_cast<std::int64_t>(extent.data_size)};
  } else if (extent.tile_compressed) {
    h.type = "CompImageHDU";
    default_name = info::kCompressedImageName;
    table = cards;
    info::remove_default_extnames(table);
    h.cards = info::compressed_image_header(table, where);
    h.axes = axes_of(h.cards, where);
    h.format = dtype_for(integer_of(h.cards, "BITPIX", 0, where));
  } else if (extent.type == fits::kAsciiTableHdu) {
    h.type = "TableHDU";
    summarize_table(cards, where, h);
  } else if (extent.type == fits::kBinaryTableHdu) {
    h.type = "BinTableHDU";
    summarize_table(cards, where, h);
  } else if (primary) {
    default_name = "PRIMARY";
    summarize_image(cards, where, h);
    const NodePtr groups = value_of(cards, "GROUPS");
    if (groups && groups->kind() == NodeKind::kBool && groups->as_bool()) {
      // `GroupsHDU._summary()`: the first axis (NAXIS1 = 0) dropped, the parameters' dtype.
      h.type = "GroupsHDU";
      if (!h.axes.empty()) {
        h.axes.erase(h.axes.begin());
        if (all_nonzero(h.axes)) h.format = dtype_for(integer_of(cards, "BITPIX", 0, where));
      }
      h.extra =
          python_str(value_of(cards, "GCOUNT") ? value_of(cards, "GCOUNT") : Node::make_int(1)) +
          " Groups  " +
          python_str(value_of(cards, "PCOUNT") ? value_of(cards, "PCOUNT") : Node::make_int(0)) +
          " Parameters";
    } else {
      h.type = "PrimaryHDU";
    }
  } else {
    h.type = "ImageHDU";
    summarize_image(cards, where, h);
  }
  const NodePtr name = value_of(extent.tile_compressed ? h.cards : cards, "EXTNAME");
  h.name = name ? python_str(name) : default_name;
  const NodePtr ver = value_of(extent.tile_compressed ? table : cards, "EXTVER");
  h.ver = ver ? ver : Node::make_int(1);
  (extent.tile_compressed ? h.stored_cards : h.cards) = std::move(cards);
  return h;
}

/// A name as astropy's `HDUList.index_of` compares it: stripped at both ends, upper case.
std::string upper_trimmed(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  return hdu::upper_trimmed(s);
}

/// Parse a whole decimal integer (Python's `int()` of a plain number), or nullopt.
std::optional<long long> parse_int(std::string_view s) {
  const std::string t = upper_trimmed(s);
  if (t.empty()) return std::nullopt;
  std::size_t i = t[0] == '-' || t[0] == '+' ? 1 : 0;
  if (i == t.size() || t.find_first_not_of("0123456789", i) != std::string::npos) {
    return std::nullopt;
  }
  if (t.size() > 18) return std::nullopt;
  return std::stoll(t);
}

}  // namespace

bool is_fits_file(const std::string& path) {
  try {
    return compare::file_kind(path) == compare::FileKind::kFits;
  } catch (const Error&) {
    return false;  // unreadable, or neither format: the ASDF path says what is wrong
  }
}

FitsInfo describe_fits(const std::string& path, std::uint64_t max_memory) {
  fits::FitsFile file = fits::FitsFile::open(path, max_memory);
  FitsInfo info;
  info.file = path;
  info.container = file.container();
  info.embedded_asdf_hdu = embedded::asdf_extension_index(file) - 1;
  // The cards are moved into the HDUs, not copied: a file of many HDUs is held once.
  std::vector<Header> headers = file.take_headers();
  info.hdus.reserve(file.hdus().size());
  for (std::size_t i = 0; i < file.hdus().size(); ++i) {
    const ErrorContext where{.file = path, .hdu = file.hdus()[i].index};
    info.hdus.push_back(describe_hdu(file.hdus()[i], std::move(headers[i].cards), where));
  }
  return info;
}

std::size_t find_hdu(const FitsInfo& info, std::string_view key) {
  const ErrorContext where{.file = info.file};
  const std::size_t count = info.hdus.size();
  if (const auto number = parse_int(key)) {
    if (*number < 0 || static_cast<std::uint64_t>(*number) >= count) {
      throw Error(ErrorCode::kNotFound,
                  "there is no HDU " + std::to_string(*number) + ": the file has " +
                      std::to_string(count) + " HDU" + (count == 1 ? "" : "s") +
                      ", numbered from 0 to " + std::to_string(count - 1),
                  where);
    }
    return static_cast<std::size_t>(*number);
  }
  // astropy's `HDUList.index_of`: "NAME" or "NAME,VER", names compared trimmed and in upper
  // case; PRIMARY also names the first HDU.
  std::string name(key);
  std::optional<long long> ver;
  if (const std::size_t comma = name.rfind(','); comma != std::string::npos) {
    ver = parse_int(name.substr(comma + 1));
    if (!ver) {
      throw Error(
          ErrorCode::kInvalidArgument,
          "'" + std::string(key) + "' names no HDU: write NUMBER, EXTNAME or EXTNAME,EXTVER",
          where);
    }
    name.resize(comma);
  }
  const std::string wanted = upper_trimmed(name);
  for (std::size_t i = 0; i < count; ++i) {
    const FitsHduInfo& h = info.hdus[i];
    if (upper_trimmed(h.name) != wanted && !(wanted == "PRIMARY" && i == 0)) continue;
    if (ver && !(h.ver && h.ver->kind() == NodeKind::kInt && h.ver->as_int() == *ver)) continue;
    return i;
  }
  throw Error(ErrorCode::kNotFound,
              "no HDU is named '" + std::string(key) + "'" +
                  (ver ? " (EXTNAME,EXTVER)" : " (EXTNAME, any case)") +
                  "; `fitsasdf info FILE` lists the HDUs",
              where);
}

std::string dimensions_text(const FitsHduInfo& hdu) {
  if (hdu.table) {
    return std::to_string(hdu.rows) + "R x " + std::to_string(hdu.columns) + "C";
  }
  std::string s = "(";
  for (std::size_t i = 0; i < hdu.axes.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(hdu.axes[i]);
  }
  if (hdu.axes.size() == 1) s += ",";
  return s + ")";
}

std::string card_text(const Card& card) {
  std::string s;
  for (const auto& image : card.images) s += image;
  for (char& c : s) {
    if (static_cast<unsigned char>(c) > 0x7f) c = '?';
  }
  return s;
}

}  // namespace fitsasdf
