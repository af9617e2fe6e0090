// Tile-compressed images and tables (items with `compressed_header`): the image or table
// (`header` and `data`, written as the uncompressed HDU would be) is compressed again by CFITSIO
// with the parameters its compressed header records (images: ZCMPTYPE, ZTILEn, ZNAMEi/ZVALi,
// ZQUANTIZ, ZDITHER0; tables: ZTILELEN, as fpack -table does). When CFITSIO's table has the
// recorded layout (the same columns, algorithms, tiles and parameters), the recorded compressed
// header is written (its cards and images), with only the sizes CFITSIO's output decides
// (NAXIS1, NAXIS2, PCOUNT, TFORMn, THEAP) updated where they differ, then CFITSIO's data area:
// what the CFITSIO of this build compressed comes back byte for byte. Otherwise (floats
// quantized when they were written, which are recompressed without loss; algorithms or
// parameters CFITSIO does not choose) CFITSIO's own header is written, followed by the recorded
// header's other cards, and the report says so: the values are the same, the compressed bytes
// are not.
#include <set>

#include "fits/card_format.h"
#include "fits/tile_compress.h"
#include "fits/tile_writer.h"
#include "fitsasdf/header.h"
#include "to_fits/writers.h"

namespace fitsasdf::to_fits {
namespace {

using asdfcore::ErrorCode;
using asdfcore::tree::Node;

class MemorySink final : public DataSink {
 public:
  void write(std::span<const std::uint8_t> bytes) override {
    bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
  }
  std::vector<std::uint8_t>& bytes() { return bytes_; }
  void write(std::string_view text) { bytes_.insert(bytes_.end(), text.begin(), text.end()); }

 private:
  std::vector<std::uint8_t> bytes_;
};

/// Hands what it is given on to a `fits::ByteSink`.
class ForwardSink final : public DataSink {
 public:
  explicit ForwardSink(const fits::ByteSink& out) : out_(out) {}
  void write(std::span<const std::uint8_t> bytes) override { out_(bytes); }

 private:
  const fits::ByteSink& out_;
};

bool numbered(std::string_view keyword, std::string_view stem) {
  return keyword.size() > stem.size() && keyword.starts_with(stem) &&
         keyword.find_first_not_of("0123456789", stem.size()) == std::string_view::npos;
}

/// Keywords whose presence and value CFITSIO's compressed output decides: the table's layout
/// and sizes, and the compression cards (not the cards that keep the original HDU's own
/// keywords, ZTENSION, ZPCOUNT, ZHECKSUM, ...).
bool decided_keyword(std::string_view k) {
  static const std::set<std::string_view> kFixed{
      "NAXIS1",   "NAXIS2",   "PCOUNT", "TFIELDS",  "THEAP",  "ZIMAGE", "ZBITPIX", "ZNAXIS",
      "ZCMPTYPE", "ZQUANTIZ", "ZTABLE", "ZTILELEN", "ZSCALE", "ZZERO",  "ZBLANK",  "ZMASKCMP"};
  for (const std::string_view stem :
       {"TTYPE", "TFORM", "TUNIT", "TDIM", "TSCAL", "TZERO", "TNULL", "TDISP", "ZNAXIS", "ZTILE",
        "ZNAME", "ZVAL", "ZCTYP", "ZFORM"}) {
    if (numbered(k, stem)) return true;
  }
  return kFixed.count(k) != 0;
}

/// Keywords whose values follow from the compressed bytes.
bool size_keyword(std::string_view k) {
  return k == "NAXIS1" || k == "NAXIS2" || k == "PCOUNT" || k == "THEAP" || numbered(k, "TFORM");
}

/// The type part of a TFORM ("1PB" of "1PB(3)").
std::string tform_type(const TreeCard& c) {
  if (!c.value->is_string()) return "";
  std::string s = c.value->as_string();
  s = s.substr(0, s.find('('));
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

fits::TileCompression read_params(const CardLookup& z) {
  fits::TileCompression p;
  p.type = z.string("ZCMPTYPE");
  const long long naxis = z.integer("ZNAXIS", 0);
  for (long long i = 1; i <= naxis; ++i) {
    const long long t = z.integer("ZTILE" + std::to_string(i), -1);
    if (t <= 0) {
      p.tile.clear();
      break;
    }
    p.tile.push_back(static_cast<long>(t));
  }
  for (int i = 1;; ++i) {
    const std::string name = z.string("ZNAME" + std::to_string(i));
    if (name.empty()) break;
    const std::string val = "ZVAL" + std::to_string(i);
    if (name == "SCALE") p.hcomp_scale = static_cast<float>(z.number(val, 0));
    if (name == "SMOOTH") p.hcomp_smooth = static_cast<int>(z.integer(val, 0));
    if (name == "NOISEBIT") p.noise_bits = static_cast<int>(z.integer(val, 0));
  }
  p.quantize = z.string("ZQUANTIZ");
  if (z.find("ZDITHER0")) p.dither_seed = static_cast<int>(z.integer("ZDITHER0", 0));
  return p;
}

/// The plan for the compressed HDU that CFITSIO made with the header at the start of `text`,
/// of an item recorded with `compressed_header`: the recorded cards in their order (with their
/// images), where CFITSIO's output decides a keyword (the table's layout and sizes, the
/// compression cards) with CFITSIO's value, without the decided keywords CFITSIO did not
/// write, and with those it wrote that the recorded header lacks after the last decided card.
/// `data_size` is the data area CFITSIO's header declares; `write_data` is left to the caller.
/// Sets `header_size` to the bytes of CFITSIO's header.
HduPlan plan_from_made_header(const ItemInput& input, std::string_view text,
                              const std::string& kind, std::uint64_t& header_size) {
  const std::vector<TreeCard>& recorded = input.item.compressed_header;
  const Header made = read_header(text, input.item.index, "CFITSIO's compressed HDU");
  header_size = made.size;
  std::vector<TreeCard> made_cards;
  for (const Card& c : made.cards) {
    made_cards.push_back(TreeCard{c.keyword, c.value ? c.value : Node::make_null(), c.comment});
  }
  const CardLookup made_lookup(made_cards);
  const CardLookup recorded_lookup(recorded);

  HduPlan plan = plan_header(recorded, input.item.compressed_images);
  std::vector<std::string> changed;  // decided keywords whose value or presence changed
  std::size_t insert_at = 0;
  for (std::size_t i = 0; i < plan.cards.size();) {
    const TreeCard& r = plan.cards[i].card;
    if (!decided_keyword(r.keyword)) {
      ++i;
      continue;
    }
    const TreeCard* m = made_lookup.find(r.keyword);
    if (!m) {
      changed.push_back(r.keyword + " removed");
      plan.cards.erase(plan.cards.begin() + static_cast<std::ptrdiff_t>(i));
      continue;
    }
    const bool same = asdfcore::tree::deep_equal(*r.value, *m->value) ||
                      (numbered(r.keyword, "TFORM") && r.value->is_string() &&
                       r.value->as_string().find('(') == std::string::npos &&
                       tform_type(r) == tform_type(*m));  // (max) is optional
    if (!same) {
      if (!size_keyword(r.keyword)) changed.push_back(r.keyword);
      plan.cards[i].card.value = m->value;
    }
    insert_at = ++i;
  }
  for (const auto& m : made_cards) {
    if (!decided_keyword(m.keyword) || recorded_lookup.find(m.keyword)) continue;
    changed.push_back(m.keyword + " added");
    PlannedCard c{m, m, std::nullopt};
    plan.cards.insert(plan.cards.begin() + static_cast<std::ptrdiff_t>(insert_at++), c);
  }
  plan.report.kind = kind;
  if (!changed.empty()) {
    std::string list;
    for (const auto& c : changed) list += (list.empty() ? "" : ", ") + c;
    plan.report.notes.push_back(
        "CFITSIO's compressed table differs from the recorded one (" + list +
        "): the values are the same, the compressed bytes and those cards are CFITSIO's");
  }
  const auto n1 = static_cast<std::uint64_t>(made_lookup.integer("NAXIS1", 0));
  const auto n2 = static_cast<std::uint64_t>(made_lookup.integer("NAXIS2", 0));
  const auto pcount = static_cast<std::uint64_t>(made_lookup.integer("PCOUNT", 0));
  plan.data_size = n1 * n2 + pcount;
  return plan;
}

/// The plan for the compressed HDU `hdu` (header and data area, as CFITSIO wrote it).
HduPlan plan_from_compressed(const ItemInput& input, const std::vector<std::uint8_t>& hdu,
                             const std::string& kind) {
  const std::string_view text(reinterpret_cast<const char*>(hdu.data()), hdu.size());
  std::uint64_t header_size = 0;
  HduPlan plan = plan_from_made_header(input, text, kind, header_size);
  if (header_size + plan.data_size > hdu.size()) {
    throw input.error(ErrorCode::kMalformed,
                      "CFITSIO's compressed HDU is shorter than its header says");
  }
  auto data = std::make_shared<std::vector<std::uint8_t>>(
      hdu.begin() + static_cast<std::ptrdiff_t>(header_size),
      hdu.begin() + static_cast<std::ptrdiff_t>(header_size + plan.data_size));
  plan.write_data = [data](DataSink& sink) { sink.write(*data); };
  return plan;
}

/// The plan for an image compressed band by band: its header and data area as
/// `plan_from_compressed` would have them from the same HDU whole.
HduPlan plan_from_banded(const ItemInput& input, fits::BandedImage image, const std::string& kind) {
  std::uint64_t header_size = 0;
  HduPlan plan = plan_from_made_header(input, image.header, kind, header_size);
  if (plan.data_size != image.data_size()) {
    throw input.error(ErrorCode::kMalformed,
                      "the compressed image's header declares " + std::to_string(plan.data_size) +
                          " bytes of rows and heap, its bands hold " +
                          std::to_string(image.data_size()));
  }
  auto data = std::make_shared<fits::BandedImage>(std::move(image));
  plan.write_data = [data](DataSink& sink) {
    data->write_data([&sink](std::span<const std::uint8_t> piece) { sink.write(piece); });
  };
  return plan;
}

/// The item without its compressed form: the image or table as the uncompressed HDU.
FitsItem uncompressed(const FitsItem& item) {
  FitsItem plain = item;
  plain.compressed = false;
  plain.images.clear();
  return plain;
}

}  // namespace

HduPlan plan_compressed_image(const ItemInput& input) {
  // The image's stored values, as the image writer would write them uncompressed.
  const FitsItem image = uncompressed(input.item);
  const ItemInput image_input{input.blocks, image, input.where};
  HduPlan image_plan = plan_image(image_input);
  const std::vector<TreeCard> image_cards = image_plan.written_cards();
  const CardLookup image_lookup(image_cards);
  const auto bitpix = static_cast<int>(image_lookup.integer("BITPIX", 0));
  std::vector<long> naxes;
  for (const std::uint64_t n : c_order_axes(image_lookup, image_input)) {
    naxes.insert(naxes.begin(), static_cast<long>(n));
  }
  std::vector<std::string> scaling;
  for (const auto& c : image_cards) {
    if (c.keyword == "BSCALE" || c.keyword == "BZERO" || c.keyword == "BLANK") {
      // CFITSIO reads the compressed image's null value back as an integer, and 4.2 aborts the
      // process reporting one of 29 characters or more that is not a number (fuzz finding 24).
      if (c.keyword == "BLANK" && !c.value->is_number()) {
        throw input.error(ErrorCode::kMalformed,
                          "the tile-compressed image's BLANK is not a number: a null value must "
                          "be an integer");
      }
      scaling.push_back(fits::format_card(c.keyword, c.value, c.comment).images);
    }
  }
  fits::TileCompression params = read_params(CardLookup(input.item.compressed_header));
  std::string lossless;
  if (bitpix < 0 && params.type != "GZIP_1" && params.type != "GZIP_2" &&
      params.type != "NOCOMPRESS") {
    // CFITSIO compresses floats without loss only with GZIP; the values are what they are now,
    // and quantizing them again would change them.
    lossless = "the float image is compressed again with GZIP_2 (" + params.type +
               " quantizes floats, which would change the values)";
    params.type = "GZIP_2";
  }
  if (params.hcomp_scale && *params.hcomp_scale != 0.0f) {
    // A positive SCALE is relative to the tile's noise, a negative one absolute: either
    // quantizes the values again.
    lossless = "HCOMPRESS_1 with SCALE = 0 (without loss) instead of SCALE = " +
               fits::format_real(*params.hcomp_scale) + ", which would change the values again";
    params.hcomp_scale = 0.0f;
  }
  // Band by band, in bounded memory and on every core; whole when the tiles are too large.
  const fits::PixelFeed feed = [&image_plan](const fits::ByteSink& out) {
    if (!image_plan.write_data) return;
    ForwardSink sink(out);
    image_plan.write_data(sink);
  };
  const char* kind = "tile-compressed image";
  std::optional<fits::BandedImage> banded = fits::compress_image_banded(
      bitpix, naxes, feed, scaling, params, input.threads, input.where);
  std::string substitution;
  HduPlan plan;
  if (banded) {
    substitution = banded->substitution;
    plan = plan_from_banded(input, std::move(*banded), kind);
  } else {
    MemorySink pixels;
    feed([&pixels](std::span<const std::uint8_t> piece) { pixels.write(piece); });
    const fits::CompressedImage compressed = fits::compress_image(
        bitpix, naxes, std::move(pixels.bytes()), scaling, params, input.where);
    substitution = compressed.substitution;
    plan = plan_from_compressed(input, compressed.hdu, kind);
  }
  if (!lossless.empty()) plan.report.notes.push_back(lossless);
  if (!substitution.empty()) plan.report.notes.push_back(substitution);
  for (auto& note : image_plan.report.notes) plan.report.notes.push_back(std::move(note));
  return plan;
}

HduPlan plan_compressed_table(const ItemInput& input) {
  // The table as its uncompressed HDU: header and padded data area.
  const FitsItem table = uncompressed(input.item);
  const ItemInput table_input{input.blocks, table, input.where};
  HduPlan table_plan = plan_bintable(table_input);
  MemorySink hdu;
  hdu.write(build_header(table_plan).bytes);
  if (table_plan.write_data) table_plan.write_data(hdu);
  hdu.bytes().resize((hdu.bytes().size() + kBlockSize - 1) / kBlockSize * kBlockSize, 0);
  const long long rows = CardLookup(input.item.compressed_header).integer("ZTILELEN", 0);
  const std::vector<std::uint8_t> compressed =
      fits::compress_table(hdu.bytes(), static_cast<long>(rows), input.where);
  HduPlan plan = plan_from_compressed(input, compressed, "tile-compressed table");
  for (auto& note : table_plan.report.notes) plan.report.notes.push_back(std::move(note));
  return plan;
}

}  // namespace fitsasdf::to_fits
