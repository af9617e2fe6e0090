#pragma once
// One converter per HDU kind, chosen from an explicit registry (first match wins), and what
// they share: the HDU's cards and bytes in, tree nodes and blocks out.
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "asdfcore/format/container_writer.h"
#include "asdfcore/io/buffer.h"
#include "asdfcore/tree/node.h"
#include "fits/fits_file.h"
#include "fitsasdf/convert.h"
#include "fitsasdf/header.h"
#include "fitsasdf/options.h"

namespace fitsasdf::hdu {

/// Return `s` without trailing blanks (not significant in a FITS string), in upper case: how
/// EXTNAME and other names are compared.
std::string upper_trimmed(std::string_view s);

/// Looks keywords up in a parsed header (the first card with the keyword wins).
class HeaderView {
 public:
  explicit HeaderView(const std::vector<Card>& cards) : cards_(cards) {}
  /// Return the value of `keyword`, or nullptr when absent or undefined.
  asdfcore::tree::NodePtr value(std::string_view keyword) const;
  /// Return an integer value, or `fallback` when absent. Throws for a non-integer value.
  long long integer(std::string_view keyword, long long fallback) const;
  /// Return a numeric value as double, or `fallback` when absent.
  double number(std::string_view keyword, double fallback) const;
  /// Return a string value, or "" when absent.
  std::string string(std::string_view keyword) const;
  bool has(std::string_view keyword) const { return value(keyword) != nullptr; }
  /// Return the cards looked up.
  const std::vector<Card>& cards() const noexcept { return cards_; }

 private:
  const std::vector<Card>& cards_;
};

/// Collects the blocks of the output. Pieces point into buffers kept alive here, so mapped
/// input bytes are written without a copy.
class BlockSink {
 public:
  /// Add a block viewing `bytes` (kept alive); return its index.
  std::int64_t add_view(asdfcore::io::Buffer bytes);
  /// Add a block owning `bytes`; return its index.
  std::int64_t add_owned(std::vector<std::uint8_t> bytes);
  /// Changes bytes on their way to the output: called with consecutive pieces of the data in
  /// order, each with its offset from the start of the data.
  using Transform = std::function<void(std::span<std::uint8_t> piece, std::uint64_t offset)>;
  /// Add a block of `bytes` that lie at `offset` of `file`, changed by `transform` (if any) on
  /// the way: streamed from the plain file when there is one (bounded memory), else taken from
  /// memory (copied only when transformed). Return its index.
  std::int64_t add_input(const fits::FitsFile& file, std::uint64_t offset,
                         asdfcore::io::Buffer bytes, Transform transform = {});
  /// Pulls a block's bytes in order: fills `buffer` from its start, returns how many.
  using Source = std::function<std::size_t(std::span<std::uint8_t> buffer)>;
  /// Add a block of exactly `size` bytes pulled from `source` as the block is written (bytes
  /// made on the way, such as a tile-compressed image's pixels); return its index.
  std::int64_t add_source(std::uint64_t size, Source source);
  /// Return the blocks to write, each compressed with `compression` at `level` (-1: the codec's
  /// default).
  std::vector<asdfcore::format::BlockToWrite> blocks(const std::string& compression,
                                                     int level = -1) const;

 private:
  struct Entry {
    asdfcore::io::Buffer bytes;                   ///< In memory (empty for a file range).
    std::optional<asdfcore::format::FileRange> range;  ///< Streamed from the input file.
    Source source;                                     ///< Pulled, `source_size` bytes.
    std::uint64_t source_size = 0;
  };
  std::deque<Entry> entries_;
};

/// Everything a converter gets for one HDU.
struct HduInput {
  const fits::FitsFile& file;
  const fits::HduExtent& extent;
  const std::vector<Card>& cards;    ///< The header as read (for a tile-compressed image: the
                                     ///< header of the compressed table), `file`'s.
  asdfcore::io::Buffer data;         ///< The data as stored (unpadded; tables include the heap).
  /// False when only the data is wanted (an array an ASDF extension pulls in from this HDU):
  /// the image and table converters then leave the cards out of the item's `header`, which
  /// would be built only to be dropped; the other converters add it anyway.
  bool item_header = true;

  /// Return the context of errors about this HDU: the file and the HDU number.
  asdfcore::ErrorContext where() const {
    return asdfcore::ErrorContext{.file = file.path(), .hdu = extent.index};
  }
};

/// Return the input of the HDU at `extent` of `file`: its header as the HDU walk read it, its
/// data (with as much of its padding as the file holds).
HduInput read_hdu_input(const fits::FitsFile& file, const fits::HduExtent& extent);

/// What a converter produces for one HDU.
struct HduOutput {
  asdfcore::tree::NodePtr item;      ///< The `fits` list item: {header: [...], data: ...}.
  asdfcore::tree::NodePtr native;    ///< The natural form for pipelines (nullptr: none).
  /// The header the item shows when it is not the one read from the file (a tile-compressed
  /// image's image header); empty otherwise. Names in the native view come from it.
  std::vector<Card> shown_cards;
  HduReport report;
};

/// A tile-compressed HDU as CFITSIO decompresses it (`FitsFile::decompress_image`,
/// `decompress_table`): the header of the plain HDU and where its data starts.
struct DecompressedHdu {
  std::vector<Card> cards;      ///< The plain HDU's header, as CFITSIO writes it.
  std::size_t data_offset = 0;  ///< Bytes from the start of the HDU to its data.
};

/// Parse the header of `bytes`, the tile-compressed HDU `input` as CFITSIO decompressed it
/// (header, data and padding). Throws `Error` (malformed) when the bytes hold no END card;
/// `what` names the HDU in the message ("image": "CFITSIO's decompressed image has no END").
DecompressedHdu read_decompressed_header(std::span<const std::uint8_t> bytes, const HduInput& input,
                                         std::string_view what);

/// Return the report of the tile-compressed HDU `input`, of `kind`, with the note that it was
/// decompressed through CFITSIO.
HduReport decompressed_report(const HduInput& input, std::string kind);

/// Finish `out`, converted from the decompressed HDU whose header is `cards`: the compressed
/// HDU's own cards are kept under `compressed_header`, and the item shows `cards`.
void keep_compressed_header(HduOutput& out, const HduInput& input, std::vector<Card> cards);

/// Converts one kind of HDU.
class HduConverter {
 public:
  virtual ~HduConverter() = default;
  /// Return a short name for reports ("image", "raw").
  virtual std::string_view name() const noexcept = 0;
  /// Return true when this converter handles `input`.
  virtual bool accepts(const HduInput& input) const = 0;
  /// Convert `input`, adding its blocks to `sink`.
  virtual HduOutput convert(const HduInput& input, BlockSink& sink,
                            const ConvertOptions& options) const = 0;
};

/// The HDU converters, tried in order.
class HduConverterRegistry {
 public:
  /// Return the built-in converters: tile-compressed image and table, image, random groups,
  /// binary table, ASCII table, then raw (anything else, carried as bytes so nothing is lost).
  static HduConverterRegistry with_builtins();
  void add(std::shared_ptr<const HduConverter> converter);
  /// Return the first converter that accepts `input` (the raw converter accepts everything).
  const HduConverter& find(const HduInput& input) const;

 private:
  std::vector<std::shared_ptr<const HduConverter>> converters_;
};

std::shared_ptr<const HduConverter> make_image_converter();
std::shared_ptr<const HduConverter> make_compressed_image_converter();
std::shared_ptr<const HduConverter> make_raw_converter();
std::shared_ptr<const HduConverter> make_bintable_converter();
std::shared_ptr<const HduConverter> make_compressed_table_converter();
std::shared_ptr<const HduConverter> make_ascii_table_converter();
std::shared_ptr<const HduConverter> make_groups_converter();

/// Return the cards as the fits schema's header list.
asdfcore::tree::NodePtr header_node(const std::vector<Card>& cards);

/// Return the number of data bytes the header declares: |BITPIX|/8 * GCOUNT * (PCOUNT +
/// NAXIS1 * ... * NAXISn), NAXIS1 left out for random groups. Throws for a size that overflows.
std::uint64_t declared_data_size(const HeaderView& header, const asdfcore::ErrorContext& where);

}  // namespace fitsasdf::hdu
