// Image HDUs (primary, IMAGE extensions, tile-compressed images decompressed by CFITSIO): the
// data block holds the FITS bytes as stored (big-endian, no swap) unless a transformation is
// asked for or needed (unsigned-integer offsets, physical scaling, native byte order).
#include <cmath>
#include <cstring>
#include <functional>
#include <thread>

#include "asdfcore/error.h"
#include "asdfcore/ndarray/ndarray.h"
#include "fits/fits_file.h"
#include "fits/fits_types.h"
#include "hdu/hdu_converter.h"
#include "hdu/native_table.h"

namespace fitsasdf::hdu {
namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::ErrorContext;
using asdfcore::ndarray::ByteOrder;
using asdfcore::ndarray::DType;
using asdfcore::ndarray::DTypeKind;
using asdfcore::tree::Node;
using asdfcore::tree::NodePtr;

constexpr char kQuantityTag[] = "tag:stsci.edu:asdf/unit/quantity-1.1.0";

/// Flip the top bit of every big-endian element: stored signed <-> offset unsigned.
void flip_sign_bits(std::span<std::uint8_t> bytes, std::size_t itemsize) noexcept {
  for (std::size_t i = 0; i < bytes.size(); i += itemsize) bytes[i] ^= 0x80;
}

/// Read element `i` of big-endian integers of `itemsize` bytes as a signed value.
long long load_be_signed(const std::uint8_t* p, std::size_t itemsize) noexcept {
  std::uint64_t v = 0;
  for (std::size_t k = 0; k < itemsize; ++k) v = (v << 8) | p[k];
  if (itemsize == 1) return static_cast<long long>(v);  // BITPIX 8 is unsigned
  const int shift = static_cast<int>(64 - 8 * itemsize);
  return static_cast<long long>(v << shift) >> shift;
}

/// The physical values of integer data as astropy 5.2.1 computes them (`_get_scaled_image_data`):
/// float32 for BITPIX 8 and 16, float64 for 32 and 64, converted first, then multiplied by
/// BSCALE (when not 1) and BZERO added (when not 0) in that same width, each step rounded, as
/// numpy's in-place float32 ufuncs do with a Python float; BLANK elements become NaN. Written in
/// the machine's byte order.
std::vector<std::uint8_t> physical_values(std::span<const std::uint8_t> raw, long long bitpix,
                                          double bscale, double bzero,
                                          std::optional<long long> blank) {
  const std::size_t itemsize = static_cast<std::size_t>(std::llabs(bitpix) / 8);
  const std::size_t n = raw.size() / itemsize;
  const bool narrow = bitpix == 8 || bitpix == 16;
  std::vector<std::uint8_t> out(n * (narrow ? 4 : 8));
  const auto scale32 = static_cast<float>(bscale);
  const auto zero32 = static_cast<float>(bzero);
  for (std::size_t i = 0; i < n; ++i) {
    const long long v = load_be_signed(raw.data() + i * itemsize, itemsize);
    const bool is_blank = blank && v == *blank;
    if (narrow) {
      auto f = static_cast<float>(v);
      if (bscale != 1.0) f = f * scale32;
      if (bzero != 0.0) f = f + zero32;
      if (is_blank) f = std::nanf("");
      std::memcpy(out.data() + 4 * i, &f, 4);
    } else {
      auto x = static_cast<double>(v);
      if (bscale != 1.0) x = x * bscale;
      if (bzero != 0.0) x = x + bzero;
      if (is_blank) x = std::nan("");
      std::memcpy(out.data() + 8 * i, &x, 8);
    }
  }
  return out;
}

/// Physical values of float data as astropy computes them: multiplied by BSCALE (when not 1),
/// then BZERO added (when not 0), in the data's own width; machine byte order.
std::vector<std::uint8_t> scaled_floats(std::span<const std::uint8_t> raw, long long bitpix,
                                        double bscale, double bzero) {
  const DType big = DType::numeric(*fits::kind_for_bitpix(bitpix), ByteOrder::kBig);
  std::vector<std::uint8_t> out(raw.begin(), raw.end());
  asdfcore::ndarray::apply_swap_plan(out, big.itemsize(),
                                     big.swap_plan(asdfcore::ndarray::native_byte_order()));
  const std::size_t n = out.size() / big.itemsize();
  for (std::size_t i = 0; i < n; ++i) {
    if (bitpix == -32) {
      float f;
      std::memcpy(&f, out.data() + 4 * i, 4);
      if (bscale != 1.0) f = f * static_cast<float>(bscale);
      if (bzero != 0.0) f = f + static_cast<float>(bzero);
      std::memcpy(out.data() + 4 * i, &f, 4);
    } else {
      double d;
      std::memcpy(&d, out.data() + 8 * i, 8);
      if (bscale != 1.0) d = d * bscale;
      if (bzero != 0.0) d = d + bzero;
      std::memcpy(out.data() + 8 * i, &d, 8);
    }
  }
  return out;
}

/// The `unit/quantity` or plain ndarray a pipeline reads for this HDU.
NodePtr native_node(const NodePtr& array, const HeaderView& header, HduReport& report) {
  NodePtr unit = unit_node(header.string("BUNIT"), "BUNIT", report);
  if (!unit) return array;
  NodePtr quantity = Node::make_mapping();
  quantity->set_tag(kQuantityTag);
  quantity->set("value", array);
  quantity->set("unit", unit);
  return quantity;
}

/// Convert image data with these cards; shared by plain and tile-compressed images.
/// `data_source` and `data_offset` say where `data` lies in the input file (so an untouched
/// image is streamed from it); nullptr for data that exists only in memory. `tiles` (with
/// `data` empty) is a tile-compressed image, decompressed band by band as its block is
/// written, or whole here when its values change (physical scaling). Without `item_header`
/// the item holds no `header` (see HduInput::item_header).
HduOutput convert_image(const std::vector<Card>& cards, asdfcore::io::Buffer data,
                        const fits::FitsFile* data_source, std::uint64_t data_offset,
                        const ErrorContext& where, BlockSink& sink, const ConvertOptions& options,
                        HduReport report, bool item_header,
                        std::shared_ptr<fits::TileReader> tiles = nullptr) {
  const HeaderView header(cards);
  HduOutput out;
  out.item = Node::make_mapping();
  if (item_header) out.item->set("header", header_node(cards));
  const long long bitpix = header.integer("BITPIX", 0);
  const auto kind = fits::kind_for_bitpix(bitpix);
  if (!kind) {
    throw Error(ErrorCode::kMalformed, "BITPIX = " + std::to_string(bitpix) + " is not a FITS type",
                where);
  }
  const long long naxis = header.integer("NAXIS", 0);
  std::vector<std::uint64_t> shape;
  for (long long i = naxis; i >= 1; --i) {
    shape.push_back(static_cast<std::uint64_t>(header.integer("NAXIS" + std::to_string(i), 0)));
  }
  const std::uint64_t size = declared_data_size(header, where);
  if (naxis == 0) {
    // An extension without data gets a zero-size array of its BITPIX type: asdf-astropy 0.3
    // builds every extension's HDU from its `data` and cannot from null (python asdf would not
    // open the file); astropy shows that HDU with NAXIS = 1, NAXIS1 = 0. The header list keeps
    // NAXIS = 0, and the way back writes no data. A primary HDU keeps `data: null`.
    if (header.has("XTENSION")) {
      asdfcore::ndarray::NDArrayNodeSpec spec;
      spec.dtype = DType::numeric(*kind, ByteOrder::kBig);
      spec.shape = {0};
      spec.source = sink.add_owned({});
      spec.version = "1.0.0";
      out.item->set("data", asdfcore::ndarray::make_ndarray_node(spec));
    } else {
      out.item->set("data", Node::make_null());
    }
    out.report = std::move(report);
    return out;
  }
  const std::uint64_t held = tiles ? tiles->data_size() : data.size();
  if (held < size) {
    throw Error(ErrorCode::kTruncated,
                "the data holds " + std::to_string(held) + " of the " + std::to_string(size) +
                    " bytes the header declares",
                where);
  }
  if (!tiles) data = data.slice(0, static_cast<std::size_t>(size));

  const double bscale = header.number("BSCALE", 1.0);
  const double bzero = header.number("BZERO", 0.0);
  const bool integer = bitpix > 0;
  std::optional<long long> blank;
  if (integer && header.has("BLANK")) blank = header.integer("BLANK", 0);
  const bool scaled = bscale != 1.0 || bzero != 0.0;
  const auto offset = integer && bscale == 1.0 ? fits::offset_kind(bitpix, bzero) : std::nullopt;

  DType dtype = DType::numeric(*kind, ByteOrder::kBig);
  // New values (physical scaling) are built in memory; changes of representation (a sign-bit
  // flip, a byte swap) are applied chunk by chunk while the input streams to the output.
  std::optional<std::vector<std::uint8_t>> owned;
  BlockSink::Transform transform;
  std::optional<double> mask_value;
  if (offset) {
    const std::size_t itemsize = dtype.itemsize();
    transform = [itemsize](std::span<std::uint8_t> chunk, std::uint64_t) {
      flip_sign_bits(chunk, itemsize);
    };
    dtype = DType::numeric(*offset, ByteOrder::kBig);
    if (blank) mask_value = static_cast<double>(*blank) + bzero;
    report.notes.push_back("BZERO offset read as " + dtype.name() + " (exact; cards kept)");
  } else if ((scaled || blank) && options.scaling == ScalingPolicy::kPhysical) {
    if (tiles) {
      data = tiles->read_whole();
      tiles.reset();
    }
    // As astropy reads it: integers with BLANK become floats with NaN even without a scale.
    owned = integer ? physical_values(data.span(), bitpix, bscale, bzero, blank)
                    : scaled_floats(data.span(), bitpix, bscale, bzero);
    const bool narrow = bitpix == 8 || bitpix == 16 || bitpix == -32;
    dtype = DType::numeric(narrow ? DTypeKind::kFloat32 : DTypeKind::kFloat64);
    report.notes.push_back(std::string(scaled ? "BSCALE/BZERO applied" : "BLANK applied") +
                           ": physical " + dtype.name() + " values written" +
                           (blank ? ", BLANK as NaN" : ""));
  } else {
    if (scaled) {
      report.notes.push_back("BSCALE/BZERO kept as cards; the data holds the stored values");
    }
    if (blank) mask_value = static_cast<double>(*blank);
  }
  if (options.native_byte_order && dtype.byte_order() != asdfcore::ndarray::native_byte_order()) {
    const auto plan = dtype.swap_plan(asdfcore::ndarray::native_byte_order());
    const std::uint64_t itemsize = dtype.itemsize();
    if (owned) {
      asdfcore::ndarray::apply_swap_plan(*owned, itemsize, plan);
    } else {
      transform = [before = std::move(transform), plan, itemsize](std::span<std::uint8_t> chunk,
                                                                  std::uint64_t at) {
        if (before) before(chunk, at);
        asdfcore::ndarray::apply_swap_plan(chunk, itemsize, plan);
      };
    }
    dtype = dtype.with_byte_order(asdfcore::ndarray::native_byte_order());
  }
  std::int64_t block = 0;
  if (owned) {
    block = sink.add_owned(std::move(*owned));
  } else if (tiles) {
    const unsigned threads =
        options.threads != 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
    block = sink.add_source(size, fits::TileReader::stream(std::move(tiles), threads,
                                                           std::move(transform)));
  } else if (data_source) {
    block = sink.add_input(*data_source, data_offset, data, std::move(transform));
  } else if (transform) {
    std::vector<std::uint8_t> copy(data.span().begin(), data.span().end());
    transform(copy, 0);
    block = sink.add_owned(std::move(copy));
  } else {
    block = sink.add_view(data);
  }

  asdfcore::ndarray::NDArrayNodeSpec spec;
  spec.dtype = dtype;
  spec.shape = shape;
  spec.source = block;
  spec.version = "1.0.0";
  const NodePtr array = asdfcore::ndarray::make_ndarray_node(spec);
  out.item->set("data", array);
  if (options.native_view) {
    NodePtr native_array = array;
    if (mask_value) {
      // The same block, with BLANK as the mask value (kept off the fits item, whose data
      // asdf-astropy hands to astropy as it is).
      native_array = asdfcore::ndarray::make_ndarray_node(spec);
      native_array->set("mask",
                        std::floor(*mask_value) == *mask_value && std::fabs(*mask_value) < 9.2e18
                            ? Node::make_int(static_cast<std::int64_t>(*mask_value))
                            : Node::make_float(*mask_value));
    }
    out.native = native_node(native_array, header, report);
  }
  out.report = std::move(report);
  return out;
}

class ImageConverter final : public HduConverter {
 public:
  std::string_view name() const noexcept override { return "image"; }
  bool accepts(const HduInput& input) const override {
    const HeaderView header(input.cards);
    // CFITSIO calls every HDU it cannot place an image; only the primary HDU and IMAGE
    // extensions are (astropy agrees: other XTENSION values are non-standard extensions).
    std::string xtension = header.string("XTENSION");
    while (!xtension.empty() && xtension.back() == ' ') xtension.pop_back();
    const bool image_kind = input.extent.index == 1 ? xtension.empty() : xtension == "IMAGE";
    return image_kind && input.extent.type == 0 && !input.extent.tile_compressed &&
           !(header.value("GROUPS") && header.integer("NAXIS1", -1) == 0 &&
             header.integer("NAXIS", 0) > 0);
  }
  HduOutput convert(const HduInput& input, BlockSink& sink,
                    const ConvertOptions& options) const override {
    HduReport report;
    report.index = input.extent.index;
    report.kind = "image";
    const ErrorContext where = input.where();
    return convert_image(input.cards, input.data, &input.file, input.extent.data_start, where, sink,
                         options, std::move(report), input.item_header);
  }
};

class CompressedImageConverter final : public HduConverter {
 public:
  std::string_view name() const noexcept override { return "tile-compressed image"; }
  bool accepts(const HduInput& input) const override { return input.extent.tile_compressed; }
  HduOutput convert(const HduInput& input, BlockSink& sink,
                    const ConvertOptions& options) const override {
    const ErrorContext where = input.where();
    // CFITSIO decompresses into an ordinary image HDU: its header is the image header astropy
    // shows; the compressed table's cards (ZCMPTYPE, ZTILEn, ZQUANTIZ, ...) are kept beside it
    // so the image can be compressed back the same way.
    auto tiles =
        std::make_shared<fits::TileReader>(input.file.open_compressed_image(input.extent.index));
    const std::string& header = tiles->header();
    auto [cards, end] = read_decompressed_header(
        std::span(reinterpret_cast<const std::uint8_t*>(header.data()), header.size()), input,
        "image");
    // astropy shows the structural cards of a compressed image with the comments of the cards
    // they come from (ZTENSION, ZBITPIX, ZNAXIS, ZNAXISn, ZPCOUNT, ZGCOUNT); CFITSIO writes its
    // own. Take astropy's view for the comments (the card images stay CFITSIO's; the table's
    // own cards are kept whole in `compressed_header`).
    const auto comment_of = [&input](std::string_view keyword) -> const std::string* {
      for (const auto& c : input.cards) {
        if (c.keyword == keyword) return &c.comment;
      }
      return nullptr;
    };
    for (Card& c : cards) {
      const std::string& k = c.keyword;
      std::string from;
      if (k == "XTENSION") {
        // A compressed primary (ZSIMPLE, no ZTENSION) keeps CFITSIO's comment of an image
        // extension: the table's XTENSION comment ("binary table extension") is not this card's.
        if (comment_of("ZTENSION")) from = "ZTENSION";
      } else if (k == "BITPIX" || k == "NAXIS" || k == "PCOUNT" || k == "GCOUNT" ||
                 (k.starts_with("NAXIS") && k.size() > 5 &&
                  k.find_first_not_of("0123456789", 5) == std::string::npos)) {
        from = "Z" + k;
      }
      if (const std::string* comment = from.empty() ? nullptr : comment_of(from)) {
        c.comment = *comment;
      }
    }
    HduOutput out = convert_image(cards, {}, nullptr, 0, where, sink, options,
                                  decompressed_report(input, "tile-compressed image"),
                                  input.item_header, std::move(tiles));
    keep_compressed_header(out, input, std::move(cards));
    return out;
  }
};

}  // namespace

std::shared_ptr<const HduConverter> make_image_converter() {
  return std::make_shared<ImageConverter>();
}
std::shared_ptr<const HduConverter> make_compressed_image_converter() {
  return std::make_shared<CompressedImageConverter>();
}

}  // namespace fitsasdf::hdu
