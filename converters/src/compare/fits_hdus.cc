#include "compare/fits_hdus.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

#include "asdfcore/error.h"
#include "fits/fits_file.h"

namespace fitsasdf::compare {
namespace {

using asdfcore::tree::NodeKind;
using asdfcore::tree::NodePtr;

NodePtr card_value(const std::vector<Card>& cards, std::string_view keyword) {
  for (const auto& c : cards) {
    if (c.keyword == keyword) return c.value;
  }
  return nullptr;
}

std::string trim_right(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

/// Bytes per item of a binary-table TFORM letter (X: 0, counted in bits).
std::uint64_t binary_item_size(char type) {
  switch (type) {
    case 'L':
    case 'B':
    case 'A':
      return 1;
    case 'I':
      return 2;
    case 'J':
    case 'E':
      return 4;
    case 'K':
    case 'D':
    case 'C':
    case 'P':
      return 8;
    case 'M':
    case 'Q':
      return 16;
    default:
      return 0;
  }
}

/// Read a binary-table TFORM ("1J", "20A", "E", "1PE(20)", "QD") into `column`; false when the
/// text is not one.
bool parse_binary_tform(std::string text, Column& column) {
  text = upper(trim_right(text));
  std::size_t i = 0;
  while (i < text.size() && text[i] == ' ') ++i;
  std::uint64_t repeat = 1;
  if (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    repeat = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      if (repeat > (std::uint64_t{1} << 40)) return false;
      repeat = repeat * 10 + static_cast<std::uint64_t>(text[i++] - '0');
    }
  }
  if (i >= text.size()) return false;
  const char type = text[i++];
  if (type != 'X' && binary_item_size(type) == 0) return false;
  column.type = type;
  column.repeat = repeat;
  if (type == 'P' || type == 'Q') {
    if (i >= text.size() || (binary_item_size(text[i]) == 0 && text[i] != 'X')) return false;
    column.heap_type = text[i];
  }
  column.width = type == 'X' ? (repeat + 7) / 8 : repeat * binary_item_size(type);
  return true;
}

/// Read an ASCII-table TFORM ("A8", "I6", "F10.3", "E15.7", "D25.17") into `column`.
bool parse_ascii_tform(std::string text, Column& column) {
  text = upper(trim_right(text));
  std::size_t i = 0;
  while (i < text.size() && text[i] == ' ') ++i;
  if (i >= text.size()) return false;
  const char type = text[i++];
  if (std::string_view("AIFED").find(type) == std::string_view::npos) return false;
  std::uint64_t width = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    if (width > 1000000) return false;
    width = width * 10 + static_cast<std::uint64_t>(text[i++] - '0');
  }
  if (width == 0) return false;
  column.type = type;
  column.repeat = type == 'A' ? width : 1;
  column.width = width;
  return true;
}

TableLayout read_table_layout(const std::vector<Card>& cards, bool ascii) {
  TableLayout t;
  t.ascii = ascii;
  t.row_size = static_cast<std::uint64_t>(std::max(0LL, card_integer(cards, "NAXIS1", 0)));
  t.rows = static_cast<std::uint64_t>(std::max(0LL, card_integer(cards, "NAXIS2", 0)));
  t.heap_offset = static_cast<std::uint64_t>(
      std::max(0LL, card_integer(cards, "THEAP", static_cast<long long>(t.row_size * t.rows))));
  const long long fields = card_integer(cards, "TFIELDS", 0);
  if (fields < 0 || fields > 999) {
    t.problem = "TFIELDS = " + std::to_string(fields) + " is not between 0 and 999";
    return t;
  }
  std::set<std::string> used;
  std::uint64_t offset = 0;
  for (int n = 1; n <= fields; ++n) {
    const std::string num = std::to_string(n);
    Column c;
    c.number = n;
    c.name = trim_right(card_string(cards, "TTYPE" + num));
    if (c.name.empty()) c.name = "col" + num;
    if (used.count(upper(c.name)) != 0) c.name += "_" + num;
    used.insert(upper(c.name));
    const std::string tform = card_string(cards, "TFORM" + num);
    const bool ok = ascii ? parse_ascii_tform(tform, c) : parse_binary_tform(tform, c);
    if (!ok) {
      t.problem = "TFORM" + num + " = '" + tform + "' is not a valid format";
      return t;
    }
    if (ascii) {
      const long long col = card_integer(cards, "TBCOL" + num, 0);
      if (col < 1) {
        t.problem = "TBCOL" + num + " is missing or not positive";
        return t;
      }
      c.offset = static_cast<std::uint64_t>(col - 1);
    } else {
      c.offset = offset;
      offset += c.width;
    }
    if (c.offset + c.width > t.row_size) {
      t.problem = "column " + num + " ends beyond NAXIS1 = " + std::to_string(t.row_size);
      return t;
    }
    t.columns.push_back(std::move(c));
  }
  return t;
}

std::string hdu_name(const std::vector<Card>& cards, int index) {
  std::string name = trim_right(card_string(cards, "EXTNAME"));
  const long long ver = card_integer(cards, "EXTVER", 1);
  if (!name.empty() && ver > 1) name += "," + std::to_string(ver);
  if (name.empty() && index == 1) name = "PRIMARY";
  return name;
}

/// Fill the structure of `h` from its cards and take its data from `bytes` at `data_start`
/// (`data_end`: where the HDU's padding ends; for the last HDU, the end of the file, so that
/// bytes after it count as its padding). `size`, when given, is the data's size instead of the
/// one the cards declare (a SIMPLE = F primary's data is the rest of the file).
void describe(FitsHdu& h, const asdfcore::io::Buffer& bytes, std::uint64_t data_start,
              std::uint64_t data_end, std::optional<std::uint64_t> size = std::nullopt) {
  const auto& cards = h.header.cards;
  h.name = hdu_name(cards, h.index);
  h.xtension = trim_right(card_string(cards, "XTENSION"));
  h.bitpix = card_integer(cards, "BITPIX", 8);
  const long long naxis = std::clamp(card_integer(cards, "NAXIS", 0), 0LL, 999LL);
  for (long long i = 1; i <= naxis; ++i) {
    h.axes.push_back(static_cast<std::uint64_t>(
        std::max(0LL, card_integer(cards, "NAXIS" + std::to_string(i), 0))));
  }
  h.pcount = std::max(0LL, card_integer(cards, "PCOUNT", 0));
  h.gcount = std::max(0LL, card_integer(cards, "GCOUNT", 1));
  const NodePtr groups = card_value(cards, "GROUPS");
  h.groups = h.index == 1 && groups && groups->kind() == NodeKind::kBool && groups->as_bool() &&
             !h.axes.empty() && h.axes[0] == 0;

  std::uint64_t items = 0;
  if (!h.axes.empty()) {
    items = 1;
    for (std::size_t i = h.groups ? 1 : 0; i < h.axes.size(); ++i) items *= h.axes[i];
  }
  const std::uint64_t itemsize = static_cast<std::uint64_t>(std::llabs(h.bitpix) / 8);
  h.declared_size = h.axes.empty() ? 0
                                   : itemsize * static_cast<std::uint64_t>(h.gcount) *
                                         (static_cast<std::uint64_t>(h.pcount) + items);

  if (h.tile_compressed && h.decompressed) {
    h.kind = "tile-compressed image";
  } else if (h.xtension == "BINTABLE" || h.xtension == "TABLE") {
    h.kind = h.tile_compressed ? "tile-compressed image"
                               : (h.xtension == "TABLE" ? "ASCII table" : "binary table");
    h.table = read_table_layout(cards, h.xtension == "TABLE");
  } else if (h.groups) {
    h.kind = "random groups";
  } else if (h.index == 1 || h.xtension == "IMAGE") {
    h.kind = h.declared_size == 0 ? "empty" : "image";
  } else {
    h.kind = h.xtension.empty() ? "unknown" : h.xtension;
  }

  if (size) {
    h.declared_size = *size;
    h.kind = "non-standard (SIMPLE = F)";
  }
  const std::uint64_t available = data_start < bytes.size() ? bytes.size() - data_start : 0;
  const std::uint64_t present = std::min(h.declared_size, available);
  h.data = bytes.slice(static_cast<std::size_t>(std::min<std::uint64_t>(data_start, bytes.size())),
                       static_cast<std::size_t>(present));
  const std::uint64_t pad_start = data_start + present;
  const std::uint64_t pad_end =
      std::min<std::uint64_t>(std::max(data_end, pad_start), bytes.size());
  if (pad_start < pad_end) {
    h.padding = bytes.slice(static_cast<std::size_t>(pad_start),
                            static_cast<std::size_t>(pad_end - pad_start));
  }
}

}  // namespace

long long card_integer(const std::vector<Card>& cards, std::string_view keyword,
                       long long fallback) {
  const NodePtr v = card_value(cards, keyword);
  return v && v->kind() == NodeKind::kInt ? v->as_int() : fallback;
}

std::string card_string(const std::vector<Card>& cards, std::string_view keyword) {
  const NodePtr v = card_value(cards, keyword);
  return v && v->is_string() && v->tag().empty() ? v->as_string() : std::string();
}

std::vector<FitsHdu> read_fits_hdus(const std::string& path, bool decompress_tiles,
                                    std::vector<fits::HduChecksumVerdict>* checksums) {
  fits::FitsFile file = fits::FitsFile::open(path);
  if (checksums != nullptr) *checksums = fits::verify_checksums(file);
  const asdfcore::io::Buffer& bytes = file.bytes();
  // Moved into the HDUs, not copied: the file is let go on return.
  std::vector<Header> headers = file.take_headers();
  HeaderOptions lenient;
  lenient.fix_unparsable_values = true;
  std::vector<FitsHdu> out;
  for (const auto& extent : file.hdus()) {
    FitsHdu h;
    h.index = extent.index;
    h.tile_compressed = extent.tile_compressed;
    if (extent.tile_compressed && decompress_tiles) {
      const asdfcore::io::Buffer image = file.decompress_image(extent.index);
      const std::string_view text(reinterpret_cast<const char*>(image.data()), image.size());
      h.header = read_header(text, extent.index, path, lenient);
      h.decompressed = true;
      describe(h, image, h.header.size, image.size());
      h.padding = {};  // CFITSIO's padding, not the file's
    } else {
      h.header = std::move(headers[static_cast<std::size_t>(extent.index - 1)]);  // read by the walk
      const bool last = &extent == &file.hdus().back();
      describe(h, bytes, extent.data_start, last ? bytes.size() : extent.data_end,
               extent.nonstandard_primary ? std::optional(extent.data_size) : std::nullopt);
    }
    out.push_back(std::move(h));
  }
  return out;
}

}  // namespace fitsasdf::compare
