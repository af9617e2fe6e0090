#pragma once
/// \file
/// Comparing two FITS files or two ASDF files, and the reports the comparisons return.
///
/// FITS files are compared HDU by HDU in one of two modes: `kVerify` (what a round trip must
/// keep: every card in place with its text, data byte for byte, NaN payloads included) or
/// `kDiff` (astropy's `fitsdiff` rules: cards by keyword, order ignored, data by value). ASDF
/// files are compared node by node, in the manner of `asdftool diff`: tree paths whose values
/// differ, and ndarrays by their values (not by block layout or compression).
///
/// Element indexes in the reports: FITS indexes are 1-based and in FITS axis order (NAXIS1
/// first), as `fitsdiff` prints them; ASDF indexes are 0-based and in C order.
///
/// Every function throws `asdfcore::Error` for an input that cannot be read (not FITS or ASDF,
/// damaged, missing); a difference is never an exception.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fitsasdf/progress.h"

namespace fitsasdf {

/// How strictly two FITS files are compared.
enum class CompareMode {
  /// A round trip's promise: the same HDUs in the same order, each card at its place with the
  /// same value, comment and 80-byte text, data bytes identical (NaN payloads included),
  /// tile-compressed HDUs compared as stored.
  kVerify,
  /// astropy's `fitsdiff`: cards by keyword (order ignored; blank cards skipped; trailing blanks
  /// of string values ignored; duplicates compared occurrence by occurrence), data by value
  /// (NaN equals NaN, -0.0 equals 0.0), tile-compressed images decompressed first.
  kDiff,
};

/// Settings for the comparisons.
struct CompareOptions {
  CompareMode mode = CompareMode::kDiff;  ///< FITS only.
  /// FITS keywords whose cards are not compared (case-insensitive; `*` and `?` wildcards as in
  /// fitsdiff's `-k`; "*" ignores every keyword difference).
  std::vector<std::string> ignore_keywords;
  /// ASDF tree paths (JSON Pointers, "/asdf_library") whose subtrees are not compared.
  std::vector<std::string> ignore_paths;
  /// List at most this many differences per header, per HDU's data, per array, and tree
  /// differences in all; the counts are always complete.
  std::size_t max_listed = 10;
  /// Progress reports and cancellation: `total` is the data bytes of both FITS files (HDU by
  /// HDU), or of both ASDF files' blocks (array by array).
  RunControl control;
};

/// How two headers compare.
enum class HeaderMatch {
  kIdentical,    ///< The same card images (and, in kVerify mode, the same END card and padding).
  kEqualValues,  ///< Only the text of some cards differs (number formatting, spacing).
  kDifferent,    ///< A keyword, value, comment, count or (kVerify) order differs.
};

/// One difference between the cards of two headers.
struct CardDifference {
  /// What differs.
  enum class Kind {
    kValue,    ///< The same keyword (and occurrence) has another value.
    kComment,  ///< The same keyword (and occurrence) has another comment.
    kMissing,  ///< The keyword (occurrence) is in A and not in B.
    kExtra,    ///< The keyword (occurrence) is in B and not in A.
    kMoved,    ///< kVerify: the card is in both, but at another place among the other cards.
    kCount,    ///< kDiff: the keyword occurs a different number of times (a, b are the counts).
    kText,     ///< kVerify: the same value and comment, written differently (a, b: card text).
  };
  Kind kind = Kind::kValue;    ///< What differs.
  std::string keyword;         ///< As astropy shows it ("" for a blank keyword).
  std::size_t occurrence = 1;  ///< 1-based, among the cards of this keyword (the 3rd HISTORY: 3).
  std::size_t position_a = 0;  ///< 1-based card number in A's header; 0 when not in A.
  std::size_t position_b = 0;  ///< 1-based card number in B's header; 0 when not in B.
  /// A's side as text: the value (kValue, kMissing, kMoved; strings in single quotes, logicals
  /// T/F, "(undefined)"), the comment (kComment), the count (kCount) or the card image (kText);
  /// "" when not in A.
  std::string a;
  std::string b;  ///< B's side, as `a`.
};

/// One element whose values differ.
struct ElementDifference {
  /// FITS: images [i1, i2, ...] (1-based, NAXIS1 first); tables [row] or [row, item] for a
  /// field with several items (both 1-based); random groups [group, item]; other data
  /// [byte] (1-based). ASDF: the 0-based index in C order ([] for a 0-d array); records
  /// [element].
  std::vector<std::uint64_t> index;
  /// The table column (TTYPEn, else "col<n>"), the record field, "PAR<n>" or "DATA" for random
  /// groups, "heap" for a table's heap bytes; "" otherwise.
  std::string column;
  std::string a;  ///< A's value as text (NaN with its bits in kVerify mode: "nan(0x7fc00001)").
  std::string b;  ///< B's value as text.
};

/// How the data of two HDUs (or two arrays) compare.
struct DataComparison {
  bool identical = true;  ///< Bytes (kVerify) or values (kDiff, ASDF) all equal.
  /// Why the data could not be compared element by element, or what else differs ("dimensions
  /// differ: 10 x 20 vs 10 x 21", "the padding after the data differs"); "" when nothing.
  std::string summary;
  std::uint64_t compared = 0;   ///< Elements (table cells, group items, bytes) compared.
  std::uint64_t differing = 0;  ///< Of those, how many differ.
  std::vector<ElementDifference> elements;  ///< The first `max_listed` differing elements.
};

/// Whether a FITS checksum card is present and right (CFITSIO's `fits_verify_chksum`).
enum class ChecksumState {
  kAbsent,   ///< No such card.
  kValid,    ///< The card matches the bytes.
  kInvalid,  ///< The card does not match the bytes.
};

/// The comparison of one HDU of A with one of B.
struct HduComparison {
  int hdu_a = 0;     ///< 1-based HDU number in A.
  int hdu_b = 0;     ///< 1-based HDU number in B.
  std::string name;  ///< A's EXTNAME (EXTNAME,EXTVER when EXTVER > 1), "PRIMARY" for HDU 1.
  /// "image", "tile-compressed image", "binary table", "ASCII table", "random groups",
  /// "empty" (no data) or the XTENSION of anything else.
  std::string kind;
  HeaderMatch header = HeaderMatch::kIdentical;  ///< How the two headers compare.
  std::size_t cards_a = 0;            ///< Cards in A's header (kDiff: not counting blank cards).
  std::size_t cards_b = 0;            ///< Cards in B's header.
  std::size_t card_differences = 0;   ///< All card differences.
  std::vector<CardDifference> cards;  ///< The first `max_listed` of them.
  DataComparison data;                ///< How the two HDUs' data compare.
  ChecksumState datasum_a = ChecksumState::kAbsent;   ///< DATASUM of A.
  ChecksumState checksum_a = ChecksumState::kAbsent;  ///< CHECKSUM of A.
  ChecksumState datasum_b = ChecksumState::kAbsent;   ///< DATASUM of B.
  ChecksumState checksum_b = ChecksumState::kAbsent;  ///< CHECKSUM of B.
  std::vector<std::string> notes;  ///< Remarks that do not make the HDUs different.

  /// Return true when B's DATASUM or CHECKSUM is wrong where A's was right (or absent).
  bool checksums_broken() const noexcept;
  /// Return true when headers are identical or equal in value, the data identical, and no
  /// checksum broken.
  bool equivalent() const noexcept;
};

/// The comparison of two FITS files.
struct FitsComparison {
  std::string a;  ///< Path of A.
  std::string b;  ///< Path of B.
  CompareMode mode = CompareMode::kDiff;  ///< The rules the files were compared by.
  int hdus_a = 0;                   ///< Number of HDUs in A.
  int hdus_b = 0;                   ///< Number of HDUs in B.
  std::vector<HduComparison> hdus;  ///< The HDUs of A matched with one of B, in A's order.
  std::vector<int> missing_hdus;    ///< A's HDUs (1-based) with no counterpart in B.
  std::vector<int> extra_hdus;      ///< B's HDUs (1-based) with no counterpart in A.

  /// Return true when the files have the same HDUs and every pair is equivalent.
  bool equivalent() const noexcept;
};

/// One difference between two ASDF trees.
struct TreeDifference {
  /// What differs.
  enum class Kind {
    kValue,    ///< Two scalars of the same type with different values.
    kType,     ///< Different kinds of node (a string against a mapping, ...).
    kTag,      ///< Different tags (the contents are compared as well).
    kMissing,  ///< In A, not in B.
    kExtra,    ///< In B, not in A.
    kArray,    ///< Two ndarrays whose datatype, shape, mask or values differ (see `array`).
  };
  Kind kind = Kind::kValue;  ///< What differs.
  std::string path;      ///< JSON Pointer of the node ("" is the root).
  std::string a;         ///< A's side as short text ("'abc'", "42", "a mapping of 3 entries", "").
  std::string b;         ///< B's side.
  DataComparison array;  ///< kArray only.
};

/// The comparison of two ASDF files.
struct AsdfComparison {
  std::string a;                            ///< Path of A.
  std::string b;                            ///< Path of B.
  std::size_t total = 0;                    ///< All differences.
  std::size_t arrays_compared = 0;          ///< ndarray pairs compared by value.
  std::vector<TreeDifference> differences;  ///< The first `max_listed`, in document order.

  /// Return true when no difference was found.
  bool identical() const noexcept { return total == 0; }
};

/// Compare the FITS files `a` and `b` (plain, .gz, .bz2, .Z). Throws `asdfcore::Error` when
/// either cannot be read as FITS.
FitsComparison compare_fits(const std::string& a, const std::string& b,
                            const CompareOptions& options = {});

/// Compare the ASDF files `a` and `b`: trees node by node (mappings by key, sequences by
/// position, numbers by value so 1 equals 1.0, tags), ndarrays by datatype (byte order
/// aside), shape, mask and values. Throws `asdfcore::Error` when either cannot be read.
AsdfComparison compare_asdf(const std::string& a, const std::string& b,
                            const CompareOptions& options = {});

/// The outcome of `diff_files`: one of the two comparisons.
struct DiffReport {
  std::string a;  ///< Path of A as given.
  std::string b;  ///< Path of B as given.
  /// Set when one side was converted to compare a FITS file with an ASDF file: "b" or "a" is the
  /// side converted to FITS in a temporary folder.
  std::string converted;
  std::optional<FitsComparison> fits;  ///< Two FITS files (or FITS against ASDF).
  std::optional<AsdfComparison> asdf;  ///< Two ASDF files.

  /// Return true when the comparison found no difference.
  bool identical() const noexcept;
};

/// Compare `a` and `b`, each a FITS or an ASDF file (recognised by content): two FITS files
/// with `compare_fits`, two ASDF files with `compare_asdf`, a FITS file and an ASDF file by
/// converting the ASDF file to FITS in a temporary folder (removed afterwards) and comparing
/// the FITS files. Throws `asdfcore::Error` (not-fits) for a file that is neither.
DiffReport diff_files(const std::string& a, const std::string& b,
                      const CompareOptions& options = {});

}  // namespace fitsasdf
