#include "fits/header_guard.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fits/cfitsio.h"

namespace fitsasdf::fits {
namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::ErrorContext;

constexpr std::uint64_t kBlock = 2880;
constexpr std::size_t kCard = 80;

/// A keyword's value as written, and where its card is.
struct Card {
  std::string value;  ///< A string's text without its quotes; otherwise the field before any '/'.
  std::uint64_t offset = 0;
  std::size_t written = 0;  ///< Characters of the value as written (a string with its quotes).
  bool quoted = false;      ///< Written as a string.
};

/// The cards of the keywords the walk needs, by name, every one in header order (CFITSIO's
/// keyword search may find a later duplicate; the sizes use the first).
using Keywords = std::multimap<std::string, Card, std::less<>>;

bool wanted(std::string_view keyword) {
  return keyword == "XTENSION" || keyword == "TFIELDS" || keyword == "BITPIX" ||
         keyword.starts_with("NAXIS") || keyword == "PCOUNT" || keyword == "GCOUNT" ||
         keyword == "BLANK" || keyword.starts_with("Z");
}

/// The keyword of `card` (a C string) as CFITSIO 4.2 names it (ffgknm) when it parses a header
/// and when it looks a keyword up: the text up to the first blank, '=' or NUL, at most 74
/// characters; for a HIERARCH card, the name between "HIERARCH " and the '=' (so "HIERARCH ZVAL1
/// = 0" is ZVAL1 to its look-up). Letters are left as written.
std::string keyword_name(std::string_view card) {
  card = card.substr(0, card.find('\0'));
  if (card.starts_with("HIERARCH ")) {
    const auto equals = card.find('=');
    if (equals == std::string_view::npos) return "HIERARCH";
    const auto first = std::min(card.find_first_not_of(' ', 9), equals);
    const auto last = card.find_last_not_of(' ', equals - 1);
    return last == std::string_view::npos || last < first
               ? std::string()
               : std::string(card.substr(first, last - first + 1));
  }
  const std::size_t end = std::min<std::size_t>(card.find_first_of(" ="), 74);
  return std::string(card.substr(0, std::min(end, card.size())));
}

/// `name` as CFITSIO's keyword look-up (ffgcrd) compares it: ASCII letters in upper case.
std::string upper(std::string name) {
  for (char& c : name) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return name;
}

std::string trimmed(std::string_view s) {
  const auto first = s.find_first_not_of(' ');
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(' ');
  return std::string(s.substr(first, last - first + 1));
}

/// Where CFITSIO 4.2 (ffpsvc) starts reading the value of `card` (a C string): after "= " in
/// columns 9-10, or else after the card's first '='; nothing without one.
std::optional<std::size_t> value_start(std::string_view card) {
  if (card.size() >= 10 && card.substr(8, 2) == "= ") return 10;
  const auto equals = card.find('=');
  if (equals == std::string_view::npos) return std::nullopt;
  return equals + 1;
}

/// Where an unquoted value starting at `start` ends for CFITSIO: a complex value after its ')'
/// (npos without one), anything else at the first blank or '/' (or the card's end).
std::size_t unquoted_end(std::string_view card, std::size_t start) {
  if (card[start] == '(') {
    const auto close = card.find(')', start);
    return close == std::string_view::npos ? close : close + 1;
  }
  return std::min(card.find_first_of(" /", start), card.size());
}

/// The value of `card` as CFITSIO 4.2 reads it (ffpsvc), or nothing without a value indicator:
/// it starts after "= " in columns 9-10, or else after the card's first '='; a quoted string
/// runs to its closing quote (two quotes are one), a complex value to its ')', anything else is
/// the token up to a blank or '/' ("0      32" is 0). Gives the text (a string's without its
/// quotes, trimmed) and how many characters it is written in (a string's with its quotes).
std::optional<Card> value_of(std::string_view card, std::uint64_t offset) {
  card = card.substr(0, card.find('\0'));  // CFITSIO reads the card as a C string
  const auto pos = value_start(card);
  if (!pos) return std::nullopt;
  const auto start = card.find_first_not_of(' ', *pos);
  if (start == std::string_view::npos || card[start] == '/') return Card{{}, offset, 0};
  if (card[start] != '\'') {
    const std::size_t stop = std::min(unquoted_end(card, start), card.size());
    return Card{std::string(card.substr(start, stop - start)), offset, stop - start};
  }
  std::string text;
  std::size_t k = start + 1;
  for (; k < card.size(); ++k) {
    if (card[k] != '\'') {
      text += card[k];
    } else if (k + 1 < card.size() && card[k + 1] == '\'') {
      text += '\'';
      ++k;
    } else {
      break;
    }
  }
  const std::size_t written = std::min(k + 1, card.size()) - start;  // through the closing quote
  return Card{trimmed(text), offset, written, true};
}

/// `text` read the way CFITSIO reads an integer keyword: a number (a quoted one too, and D
/// exponents) truncated toward zero. Nothing when it is not a number or lies beyond `limit`,
/// which CFITSIO refuses itself.
std::optional<long long> as_integer(std::string text, double limit) {
  for (char& c : text) {
    if (c == 'D' || c == 'd') c = 'E';
  }
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !(std::fabs(value) < limit)) return std::nullopt;
  return static_cast<long long>(value);
}

/// `card`'s value read the way CFITSIO reads an integer keyword (ffc2j): an unquoted value that
/// starts with T or F is a logical, 1 or 0 whatever follows ("FILENAME=" is 0: fuzz finding
/// 35); anything else as `as_integer` reads it.
std::optional<long long> as_integer(const Card& card, double limit) {
  if (!card.quoted && !card.value.empty() && (card.value[0] == 'T' || card.value[0] == 'F')) {
    return card.value[0] == 'T' ? 1 : 0;
  }
  return as_integer(card.value, limit);
}

std::optional<long long> integer(const Keywords& k, std::string_view name, double limit) {
  const auto it = k.lower_bound(name);
  if (it == k.end() || it->first != name) return std::nullopt;
  return as_integer(it->second, limit);
}

constexpr double kIntLimit = 2147483648.0;  // CFITSIO reads ZTILEn and ZVALn as int
constexpr double kLongLimit = 9.0e18;       // and the sizes as LONGLONG

/// The data size (without padding) the header gives, or nothing when it does not say.
std::optional<std::uint64_t> data_size(const Keywords& k) {
  const auto bitpix = integer(k, "BITPIX", kIntLimit);
  const auto naxis = integer(k, "NAXIS", kIntLimit);
  const auto pcount = integer(k, "PCOUNT", kLongLimit);
  const auto gcount = integer(k, "GCOUNT", kLongLimit);
  if (!bitpix || !naxis || !pcount || !gcount) return std::nullopt;
  if (*bitpix != 8 && *bitpix != 16 && *bitpix != 32 && *bitpix != 64 && *bitpix != -32 &&
      *bitpix != -64) {
    return std::nullopt;
  }
  if (*naxis < 0 || *naxis > 999 || *pcount < 0 || *gcount < 0) return std::nullopt;
  std::uint64_t pixels = *naxis == 0 ? 0 : 1;
  for (long long n = 1; n <= *naxis; ++n) {
    const auto length = integer(k, "NAXIS" + std::to_string(n), kLongLimit);
    if (!length || *length < 0) return std::nullopt;
    if (__builtin_mul_overflow(pixels, static_cast<std::uint64_t>(*length), &pixels)) {
      return std::nullopt;
    }
  }
  std::uint64_t size = 0;
  if (__builtin_add_overflow(pixels, static_cast<std::uint64_t>(*pcount), &size) ||
      __builtin_mul_overflow(size, static_cast<std::uint64_t>(*gcount), &size) ||
      __builtin_mul_overflow(size, static_cast<std::uint64_t>(std::abs(*bitpix) / 8), &size)) {
    return std::nullopt;
  }
  return size;
}

/// `text` cut to 40 characters, with anything unprintable as '?' (a message is one line).
std::string printable(std::string_view text) {
  std::string out(text.substr(0, 40));
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) c = '?';
  }
  return out;
}

bool same_text(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(a[i])) !=
        std::toupper(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

/// Whether any card of `name` has one of `values`.
bool any_is(const Keywords& k, const std::string& name,
            std::initializer_list<std::string_view> values) {
  const auto [first, last] = k.equal_range(name);
  for (auto it = first; it != last; ++it) {
    for (const auto v : values) {
      if (same_text(it->second.value, v)) return true;
    }
  }
  return false;
}

/// Whether CFITSIO reads `keyword` of a tile-compressed HDU as an integer: the compression
/// keywords, and BLANK, which a compressed image without ZBLANK has read as its null value
/// (finding 24).
bool read_as_integer(std::string_view keyword) {
  if (keyword == "BLANK") return true;
  for (const std::string_view prefix : {"ZBITPIX", "ZNAXIS", "ZTILE", "ZVAL", "ZBLANK", "ZDITHER",
                                        "ZPCOUNT", "ZGCOUNT", "ZTHEAP", "ZHEAPPTR"}) {
    if (keyword.starts_with(prefix)) return true;
  }
  return false;
}

/// Whether `keyword` is one CFITSIO reads to decode a tile-compressed HDU: the table's own
/// structure, and the tiled-compression convention's keywords (ZNAXISn, ZTILEn, ZVALn, ...;
/// not a user keyword that merely starts with Z, such as ZP).
bool decoding_keyword(std::string_view keyword) {
  for (const std::string_view fixed :
       {"TFIELDS", "NAXIS", "PCOUNT", "ZIMAGE", "ZTABLE", "ZNAXIS", "ZCMPTYPE", "ZBITPIX",
        "ZTILELEN", "ZQUANTIZ", "ZDITHER0", "ZBLANK", "ZSCALE", "ZZERO", "ZMASKCMP", "ZTHEAP"}) {
    if (keyword == fixed) return true;
  }
  for (const std::string_view indexed :
       {"NAXIS", "ZNAXIS", "ZTILE", "ZNAME", "ZVAL", "ZCTYP", "ZFORM"}) {
    if (keyword.size() > indexed.size() && keyword.starts_with(indexed) &&
        std::all_of(keyword.begin() + static_cast<std::ptrdiff_t>(indexed.size()), keyword.end(),
                    [](char c) { return c >= '0' && c <= '9'; })) {
      return true;
    }
  }
  return false;
}

/// Whether two values of a keyword read the same to CFITSIO: the same text (a string's case
/// aside, as CFITSIO compares the algorithm names), or the same integer written two ways.
bool same_value(const Card& a, const Card& b) {
  if (same_text(a.value, b.value)) return true;
  const auto x = as_integer(a, kLongLimit);
  const auto y = as_integer(b, kLongLimit);
  return x && y && *x == *y;
}

/// A column name CFITSIO would copy past its field, and where its card is.
struct NameCard {
  OverlongColumnName name;
  std::uint64_t offset = 0;
};

/// The most columns any TFIELDS card of `k` declares (CFITSIO reads one of them; it ignores a
/// TTYPEn beyond its count), or 0.
long declared_columns(const Keywords& k) {
  long most = 0;
  const auto [first, last] = k.equal_range("TFIELDS");
  for (auto it = first; it != last; ++it) {
    if (const auto n = as_integer(it->second, kIntLimit))
      most = std::max(most, static_cast<long>(*n));
  }
  return most;
}

/// Throw for a header that would end the process inside CFITSIO: a table's column name it would
/// copy past its field, a tile-compressed image whose values it would divide by, and a
/// tile-compressed image or table whose integer keyword it cannot report. Every card of a
/// duplicated keyword counts.
void check_header(const Keywords& k, const std::vector<NameCard>& names, int hdu,
                  const ErrorContext& where) {
  const auto refuse = [&](std::uint64_t offset, const std::string& what) {
    ErrorContext at = where;
    at.hdu = hdu;
    at.offset = offset;
    throw Error(ErrorCode::kMalformed, what, at);
  };
  if (any_is(k, "XTENSION", {"BINTABLE", "TABLE", "A3DTABLE", "3DTABLE"})) {
    // CFITSIO ignores a TTYPEn beyond the columns it read from TFIELDS.
    // A TFIELDS this walk cannot read (its '=' out of column 9) CFITSIO may still read: then
    // every column number counts (fuzz finding 17).
    const long declared = declared_columns(k);
    const long columns = declared > 0 ? declared : 999;
    for (const auto& [name, offset] : names) {
      if (name.index >= 1 && name.index <= columns) {
        refuse(offset, "the table's column name " + name.keyword + " is an unquoted value of " +
                           std::to_string(name.length) +
                           " characters (a FITS string is quoted, and CFITSIO 4.2 would abort "
                           "the process copying it into its 70-byte name field)");
      }
    }
  }
  const bool image = any_is(k, "ZIMAGE", {"T"});
  if (!image && !any_is(k, "ZTABLE", {"T"})) return;
  // A keyword the decoding depends on, given twice with different values. CFITSIO looks a
  // keyword up from the card where its last look-up ended, so which card it takes depends on
  // the order of its reads, and a check made before it decodes (the tile guard) may take the
  // other one (fuzz finding 21: ZNAXIS = 2, then ZNAXIS = 32 in a mutated ZVAL1 card).
  for (auto it = k.begin(); it != k.end();) {
    const auto last = k.upper_bound(it->first);
    if (decoding_keyword(it->first)) {
      for (auto other = std::next(it); other != last; ++other) {
        if (!same_value(it->second, other->second)) {
          refuse(other->second.offset,
                 "the tile-compressed HDU gives " + it->first + " twice, as " +
                     printable(it->second.value) + " and as " + printable(other->second.value) +
                     " (which one CFITSIO reads depends on the order of its look-ups)");
        }
      }
    }
    it = last;
  }
  // CFITSIO 4.2's message for an integer keyword it cannot convert (ffc2j) appends up to 30
  // characters of the value to 52 in an 81-byte buffer: from 29 characters on, glibc's
  // overflow check aborts the process.
  for (const auto& [name, card] : k) {
    if (read_as_integer(name) && card.written >= 29 && !as_integer(card, kLongLimit)) {
      refuse(card.offset,
             "the tile-compressed HDU's " + name + " = " + printable(card.value) +
                 " is not an integer (CFITSIO 4.2 would abort the process reporting it)");
    }
  }
  if (!image) return;
  for (const auto& [name, card] : k) {
    if (!name.starts_with("ZTILE")) continue;
    const auto length = as_integer(card, kIntLimit);
    if (length == 0) {
      refuse(card.offset,
             "the tile-compressed image declares " + name + " = " + printable(card.value) +
                 ": a tile cannot be 0 pixels long on an axis (CFITSIO would divide by it)");
    }
    // A ZTILEn that is not a number after a sound one leaves CFITSIO with a tile of 0 pixels
    // on that axis, and it divides by it (fuzz finding 15).
    if (!length) {
      refuse(card.offset,
             "the tile-compressed image declares " + name + " = " + printable(card.value) +
                 ", which is not a tile length (CFITSIO could divide by 0 reading it)");
    }
  }
  // With no ZTILE1 card CFITSIO takes the first axis's length as the tile's, so an axis of 0
  // pixels makes a tile it divides by (fuzz finding 34). Other axes default to tiles of 1.
  if (k.find("ZTILE1") == k.end() && integer(k, "ZNAXIS1", kLongLimit) == 0) {
    refuse(k.find("ZNAXIS1")->second.offset,
           "the tile-compressed image has no ZTILE1 and ZNAXIS1 = 0: CFITSIO would take a tile "
           "of 0 pixels and divide by it");
  }
  if (!any_is(k, "ZCMPTYPE", {"RICE_1", "RICE_ONE"})) return;
  // CFITSIO takes ZVAL1 as the block size (32 when absent; ZVAL2 instead when ZVAL1 is below 16
  // and ZVAL2 above 8, an old writer's swapped order, which a ZVAL1 of 0 cannot be in a sound
  // header: it would be the bytes per pixel).
  const auto [first, last] = k.equal_range("ZVAL1");
  for (auto it = first; it != last; ++it) {
    if (as_integer(it->second, kIntLimit) == 0) {
      refuse(it->second.offset,
             "the RICE_1-compressed image declares ZVAL1 = " + printable(it->second.value) +
                 ": a block of 0 pixels, which CFITSIO would divide by");
    }
  }
}

/// Empties CFITSIO's buffers of `file` when it leaves scope, if `armed`.
struct BufferReset {
  fitsfile* file;
  bool armed = false;
  explicit BufferReset(fitsfile* f) : file(f) {}
  BufferReset(const BufferReset&) = delete;
  BufferReset& operator=(const BufferReset&) = delete;
  ~BufferReset() {
    if (!armed) return;
    int status = 0;
    fits_flush_buffer(file, 1 /* mark every buffer empty */, &status);
    fits_clear_errmsg();
  }
};

}  // namespace

std::optional<OverlongColumnName> overlong_column_name(std::string_view card) {
  card = card.substr(0, card.find('\0'));  // CFITSIO reads the card as a C string
  // CFITSIO's parse (ffgtbp) takes a card for a column name when its name starts with 'T', then
  // TYPE in any case, then the column's number (what is left of the name, all of it a number).
  // A HIERARCH card's value starts after column 16: it cannot reach 70 characters.
  if (card.starts_with("HIERARCH ")) return std::nullopt;
  std::string keyword = keyword_name(card);
  if (keyword.size() < 5 || keyword[0] != 'T' || upper(keyword.substr(1, 4)) != "TYPE") {
    return std::nullopt;
  }
  const std::string suffix = keyword.substr(5);
  if (suffix.empty()) return std::nullopt;
  char* end = nullptr;
  const long index = std::strtol(suffix.c_str(), &end, 10);
  if (*end != '\0') return std::nullopt;  // CFITSIO skips a keyword without a number
  const auto start = value_start(card);
  if (!start) return std::nullopt;
  const auto pos = card.find_first_not_of(' ', *start);
  // CFITSIO keeps a quoted name below 70 characters.
  if (pos == std::string_view::npos || card[pos] == '\'' || card[pos] == '/') return std::nullopt;
  const std::size_t stop = unquoted_end(card, pos);
  // A complex value without its ')' CFITSIO reports as an error.
  if (stop == std::string_view::npos || stop - pos < kColumnNameField) return std::nullopt;
  return OverlongColumnName{std::move(keyword), index, stop - pos};
}

void check_extension_headers(fitsfile* in, const ErrorContext& where) {
  int status = 0;
  int current = 0;
  fits_get_hdu_num(in, &current);
  LONGLONG head = 0, data = 0, end = 0;
  fits_get_hduaddrll(in, &head, &data, &end, &status);
  if (status != 0) {
    fits_clear_errmsg();
    return;
  }
  const auto total = static_cast<std::uint64_t>(in->Fptr->logfilesize);
  BufferReset primed{in};
  std::vector<char> block(kBlock);
  std::uint64_t at = static_cast<std::uint64_t>(end);
  for (int hdu = current + 1; at < total && total - at >= kCard; ++hdu) {
    Keywords keywords;
    std::vector<NameCard> names;
    std::uint64_t pos = at;
    bool ended = false;
    bool cut = false;  // the file ends inside the header (CFITSIO still parses its cards)
    while (!ended && !cut) {
      const std::size_t cards =
          pos >= total
              ? 0
              : static_cast<std::size_t>(std::min<std::uint64_t>(kBlock, total - pos) / kCard);
      if (cards == 0) {
        cut = true;
        break;
      }
      ffmbyt(in, static_cast<LONGLONG>(pos), 0 /* report EOF */, &status);
      ffgbyt(in, static_cast<LONGLONG>(cards * kCard), block.data(), &status);
      if (status != 0 && cards * kCard < kBlock) {
        // CFITSIO 4.2 fails its first load of a block the file ends in, but keeps what it read:
        // its next reads of that block succeed, and that is how it parses such a header. Its
        // buffers are emptied afterwards, so that its own reading starts as it would have.
        status = 0;
        fits_clear_errmsg();
        primed.armed = true;
        ffmbyt(in, static_cast<LONGLONG>(pos), 0 /* report EOF */, &status);
        ffgbyt(in, static_cast<LONGLONG>(cards * kCard), block.data(), &status);
      }
      if (status != 0) {
        fits_clear_errmsg();
        cut = true;
        break;
      }
      for (std::size_t c = 0; c < cards; ++c) {
        const std::string_view card(block.data() + c * kCard, kCard);
        if (pos == at && c == 0 && !card.starts_with("XTENSION")) return;
        // Named as CFITSIO names a card both when it parses the header and when it looks a
        // keyword up: up to the first blank or '=', in upper case (" END" does not end the
        // header, "zval1 = 0" is ZVAL1: fuzz finding 23); its value read as CFITSIO reads it
        // (fuzz finding 18).
        const std::string keyword = upper(keyword_name(card));
        if (keyword == "END") {
          ended = true;
          break;
        }
        if (auto name = overlong_column_name(card))
          names.push_back({std::move(*name), pos + c * kCard});
        if (!wanted(keyword)) continue;
        if (auto value = value_of(card, pos + c * kCard))
          keywords.emplace(keyword, std::move(*value));
      }
      if (!ended && cards * kCard < kBlock) cut = true;
      pos += kBlock;
    }
    check_header(keywords, names, hdu, where);
    if (cut) return;  // no HDU follows a header the file cuts
    const auto size = data_size(keywords);
    if (!size) return;
    const std::uint64_t padded = *size / kBlock * kBlock + (*size % kBlock != 0 ? kBlock : 0);
    if (padded > total - pos) return;  // the data runs past the end: the walk is over
    at = pos + padded;
  }
}

}  // namespace fitsasdf::fits
