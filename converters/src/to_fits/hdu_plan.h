#pragma once
// What each HDU writer decides for one `fits` item: the cards of the header (with their recorded
// images), and how to produce the data unit. The writer of the FITS file (to_fits.cc) turns the
// plan into bytes, adding CHECKSUM/DATASUM when asked.
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fitsasdf/convert.h"
#include "to_fits/card_images.h"

namespace fitsasdf::to_fits {

/// Receives the bytes of a data unit in order (without the padding to 2880 bytes).
class DataSink {
 public:
  virtual ~DataSink() = default;
  /// Append `bytes`.
  virtual void write(std::span<const std::uint8_t> bytes) = 0;
};

/// One card of the header to write.
struct PlannedCard {
  TreeCard original;                 ///< As the tree holds it.
  TreeCard card;                     ///< As it is to be written (a writer may change the value).
  std::optional<std::string> image;  ///< The image recorded for `original`, if any.
};

/// Looks cards up by keyword (the first card with the keyword wins), as FITS readers do.
class CardLookup {
 public:
  explicit CardLookup(const std::vector<TreeCard>& cards) : cards_(cards) {}
  /// Return the card `keyword`, or nullptr.
  const TreeCard* find(std::string_view keyword) const;
  /// Return the integer value of `keyword`, `fallback` when absent; throw (malformed) when the
  /// value is not an integer.
  long long integer(std::string_view keyword, long long fallback) const;
  /// Return the numeric value of `keyword`, `fallback` when absent or undefined.
  double number(std::string_view keyword, double fallback) const;
  /// Return the string value of `keyword` with trailing blanks dropped, or "".
  std::string string(std::string_view keyword) const;
  /// Return true when `keyword` holds the logical value T.
  bool flag(std::string_view keyword) const;

 private:
  const std::vector<TreeCard>& cards_;
};

/// How to write one HDU.
struct HduPlan {
  std::vector<PlannedCard> cards;
  std::optional<std::string> end_image;  ///< Recorded END card and rest of its block.
  std::uint64_t data_size = 0;           ///< Bytes of the data unit before its padding.
  std::uint8_t fill = 0;  ///< Padding byte of the data unit (blank for ASCII tables).
  /// Pad the data unit to whole 2880-byte blocks; false for a SIMPLE = F primary's data (every
  /// byte after its header, as astropy reads it) and for the last HDU when the tree's
  /// `fits_trailer` holds what followed its data.
  bool pad = true;
  /// Write CHECKSUM and DATASUM as the tree has them (they did not verify in the FITS file this
  /// came from, and are kept as found), not computed afresh.
  bool keep_checksums = false;
  /// Write exactly `data_size` bytes to the sink (unset when `data_size` is 0).
  std::function<void(DataSink&)> write_data;
  HduReport report;

  /// Return the index of the first card `keyword`, or nothing.
  std::optional<std::size_t> index_of(std::string_view keyword) const;
  /// Give the first card `keyword` the value `value` (appending the card, with `comment`, when
  /// there is none).
  void set_value(std::string_view keyword, asdfcore::tree::NodePtr value,
                 std::string_view comment = "");
  /// Remove every card `keyword`; return how many there were.
  std::size_t erase(std::string_view keyword);
  /// Return the cards as they are to be written.
  std::vector<TreeCard> written_cards() const;
};

/// Start a plan from the cards of a header and their recorded images.
HduPlan plan_header(const std::vector<TreeCard>& cards, const CardImages& images);

/// A header turned into bytes.
struct BuiltHeader {
  std::string bytes;                      ///< The header blocks (a multiple of 2880 bytes).
  std::vector<std::size_t> card_offsets;  ///< Byte offset of each planned card's first image.
  std::size_t from_images = 0;            ///< Cards written from their recorded image.
  std::size_t formatted = 0;              ///< Cards formatted afresh.
  std::size_t images_not_used = 0;        ///< Cards whose recorded image no longer fits them.
  std::vector<std::string> notes;         ///< Comments that had to be cut, ...
};

/// Write the planned cards: a recorded image while the card still reads as it; a recorded image
/// with its string value replaced in place when only that value changed (same length: CHECKSUM,
/// DATASUM); else `fits::format_card`. Then END (or the recorded END and padding) and blanks to
/// the end of the block. Throws `asdfcore::Error` (malformed) naming the card for a card FITS
/// cannot hold.
BuiltHeader build_header(const HduPlan& plan);

}  // namespace fitsasdf::to_fits
