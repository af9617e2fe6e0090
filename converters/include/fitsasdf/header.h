#pragma once
/// \file
/// The FITS header model: every card of a header as astropy 5.2.1 presents it (keyword, value,
/// comment; CONTINUE cards merged, HIERARCH prefix dropped, record-valued keywords expanded),
/// together with the raw 80-byte card images it was read from, so that the header can be written
/// back byte for byte. Pure C++: works on the raw 2880-byte header blocks, no CFITSIO.
///
/// Values in the tree:
///  * string, bool, integer (kInt, or kBigInt beyond 64 bits), float (non-finite when the text
///    overflows, like python's float());
///  * complex: a string node tagged `tag:stsci.edu:asdf/core/complex-1.0.0` holding python's
///    repr ("(1+2.5j)"), which is what python asdf writes for a complex card value;
///  * undefined (`KEY     =` with a blank value): a null node.
/// Bytes above 0x7f read as '?' in keywords, values and comments, as in astropy's `fits.open`
/// (or as Latin-1 on request, kept as UTF-8); the card images keep the original bytes.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "asdfcore/tree/node.h"

namespace fitsasdf {

/// The size of one FITS header record (card image), in bytes.
inline constexpr std::size_t kCardSize = 80;
/// The size of one FITS block, in bytes.
inline constexpr std::size_t kBlockSize = 2880;
/// The tag of the complex card values.
inline constexpr std::string_view kComplexTag = "tag:stsci.edu:asdf/core/complex-1.0.0";

/// One logical header entry as astropy shows it, with the raw card images it came from.
struct Card {
  /// "NAXIS1", "HISTORY", "" for a blank keyword, the HIERARCH name without the prefix (case
  /// kept), "DP1.AXIS.1" for a record-valued keyword card, the raw text of an invalid keyword.
  std::string keyword;
  /// string / bool / integer / float / complex (tagged string, see the file comment) / null for
  /// an undefined value. Commentary cards (COMMENT, HISTORY, blank keyword, cards without a value
  /// indicator) hold their text as a string.
  asdfcore::tree::NodePtr value;
  /// The comment, trailing blanks removed; "" when there is none.
  std::string comment;
  /// The 80-byte card images, the CONTINUE cards of a long string included, as read.
  std::vector<std::string> images;
  /// True when columns 9-10 of the first image hold the value indicator "= ".
  bool has_value_indicator = false;
  /// Why the value had to be fixed (only with `HeaderOptions::fix_unparsable_values`); "" when
  /// the card parsed as it is.
  std::string problem;
};

/// How lenient the header reader is.
struct HeaderOptions {
  /// Keep a card whose value astropy cannot parse (its `Card.value` raises, e.g.
  /// "SKEW    = -1.38E+00, -1.69E+00 / Measure of skew") instead of throwing: fix it as
  /// astropy's `verify('fix')` does (the text before the first '/' becomes a string value, the
  /// text after it the comment) and say why in `Card::problem`. Broken CONTINUE sequences and
  /// missing END cards still throw.
  bool fix_unparsable_values = false;
  /// Read bytes above 0x7f as Latin-1 (astropy's `Header.fromstring` on bytes) instead of
  /// replacing each with '?' (what `fits.open` does, with a warning).
  bool latin1_text = false;
};

/// A whole header: its cards, and what follows them up to the data, kept for a byte-identical
/// rebuild: `images` of every card + `end_image` + `padding`, then blanks up to `size`, are
/// the header bytes.
struct Header {
  std::vector<Card> cards;  ///< Every card before END, in file order (duplicates kept).
  std::string end_image;    ///< The 80-byte END card as read.
  /// The bytes after the END card up to the end of its block when any of them is not a blank;
  /// empty when they are all blanks, as FITS pads a header (a file of 100,000 HDUs would
  /// otherwise hold 200 MB of them).
  std::string padding;
  std::size_t size = 0;  ///< Bytes from the start of the header to the start of the data.
};

/// Read the header at the start of `bytes` (the header of HDU `hdu`, 1-based, of `file_name`):
/// find its END card the way astropy does and parse every card before it. `bytes` may run on
/// into the data; only the header blocks are read. Throws `asdfcore::Error` (kMalformed, with
/// the HDU and the card number in the message) when there is no END card, or when a card
/// cannot be parsed where astropy cannot parse it either (unclosed string quote, non-printable
/// character in a string value, text after a value, ...); kTruncated when the block holding the
/// END card is cut short.
Header read_header(std::string_view bytes, int hdu, const std::string& file_name,
                   const HeaderOptions& options = {});

/// Parse the header text (a multiple of 80 bytes, up to and including END; padding after END is
/// allowed) of HDU `hdu` (1-based) of `file_name`. Same rules and errors as `read_header`.
std::vector<Card> parse_header(std::string_view header_bytes, int hdu, const std::string& file_name,
                               const HeaderOptions& options = {});

/// Render `card` as the [keyword, value, comment] sequence of the fits schemas, the way
/// asdf-astropy writes it: [KW, value] when the comment is empty, [KW] for an undefined value
/// without a comment, [] for a blank card; an undefined value with a comment is
/// [KW, null, comment] (asdf-astropy reads null back as undefined). Unlike asdf-astropy, falsy
/// values (0, false, "") are kept, and a HIERARCH keyword keeps its "HIERARCH " prefix so that
/// astropy rebuilds the card without a warning.
asdfcore::tree::NodePtr card_to_node(const Card& card);

}  // namespace fitsasdf
