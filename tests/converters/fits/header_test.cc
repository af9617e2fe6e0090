// The FITS header model against astropy 5.2.1: every header of every FITS file of the corpus
// parses to the oracle's `[keyword, value, comment]` list (astropy's view) and its card images
// rebuild the header bytes; hand-made cards cover each parsing rule (expected values taken from
// astropy 5.2.1 `Header.fromstring` / `fits.open` on the same cards); `card_to_node` writes the
// lists the way asdf-astropy does.
#include "fitsasdf/header.h"

#include <bzlib.h>
#include <zlib.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <span>
#include <sstream>

#include "asdfcore/compression/md5.h"
#include "asdfcore/error.h"
#include "asdfcore/extension/core_types.h"
#include "support/catch.h"
#include "support/paths.h"

using asdfcore::tree::Node;
using asdfcore::tree::NodeKind;
using fitsasdf::Card;
using fitsasdf::card_to_node;
using fitsasdf::parse_header;
using fitsasdf::read_header;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// ---- the oracle, with integers beyond 64 bits kept exact ---------------------------------

/// A SAX handler that builds the DOM like nlohmann's own parser, except that an integer
/// literal too large for 64 bits becomes the string "$bigint:<digits>" instead of a double.
class ExactIntegers {
 public:
  explicit ExactIntegers(json& root) : dom_(root) {}
  bool null() { return dom_.null(); }
  bool boolean(bool v) { return dom_.boolean(v); }
  bool number_integer(json::number_integer_t v) { return dom_.number_integer(v); }
  bool number_unsigned(json::number_unsigned_t v) { return dom_.number_unsigned(v); }
  bool number_float(json::number_float_t v, const std::string& s) {
    if (s.find_first_of(".eE") == std::string::npos) {
      std::string text = "$bigint:" + s;
      return dom_.string(text);
    }
    return dom_.number_float(v, s);
  }
  bool string(std::string& v) { return dom_.string(v); }
  bool binary(json::binary_t& v) { return dom_.binary(v); }
  bool start_object(std::size_t n) { return dom_.start_object(n); }
  bool key(std::string& v) { return dom_.key(v); }
  bool end_object() { return dom_.end_object(); }
  bool start_array(std::size_t n) { return dom_.start_array(n); }
  bool end_array() { return dom_.end_array(); }
  template <class Exception>
  bool parse_error(std::size_t position, const std::string& token, const Exception& ex) {
    return dom_.parse_error(position, token, ex);
  }

 private:
  nlohmann::detail::json_sax_dom_parser<json> dom_;
};

json read_json_exact(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  json root;
  ExactIntegers sax(root);
  REQUIRE(json::sax_parse(in, &sax));
  return root;
}

const json& oracle() {
  static const json o = read_json_exact(fitsasdf::test::corpus_dir() / "oracle.json");
  return o;
}

// ---- the oracle's rendering of a card ------------------------------------------------------

json render_float(double v) {
  if (std::isnan(v)) return json{{"$float", "nan"}};
  if (std::isinf(v)) return json{{"$float", v > 0 ? "inf" : "-inf"}};
  return json(v);
}

json render_value(const asdfcore::tree::NodePtr& v) {
  REQUIRE(v);
  switch (v->kind()) {
    case NodeKind::kNull:
      return json{{"$undefined", true}};
    case NodeKind::kBool:
      return json(v->as_bool());
    case NodeKind::kInt:
      return json(v->as_int());
    case NodeKind::kBigInt: {
      const std::string text = v->integer_text();
      if (text[0] != '-' && text.size() <= 20) {
        std::uint64_t u = 0;
        std::istringstream(text) >> u;
        if (std::to_string(u) == text) return json(u);
      }
      return json("$bigint:" + text);
    }
    case NodeKind::kFloat:
      return render_float(v->as_double());
    case NodeKind::kString:
      if (v->tag() == fitsasdf::kComplexTag) {
        const std::complex<double> c = asdfcore::extension::parse_complex(v->as_string());
        return json{{"$complex", json::array({render_float(c.real()), render_float(c.imag())})}};
      }
      return json(v->as_string());
    default:
      FAIL("unexpected value kind " << asdfcore::tree::node_kind_name(v->kind()));
  }
  return json();
}

/// Render `card` as the oracle's `[keyword, value, comment]`.
json render(const Card& card) {
  return json::array({card.keyword, render_value(card.value), card.comment});
}

/// Compare JSON values strictly: integers and floats are different kinds, -0.0 differs from 0.
bool same(const json& a, const json& b) {
  if (a.is_number() && b.is_number()) {
    if (a.is_number_float() != b.is_number_float()) return false;
    if (a.is_number_float()) {
      const double x = a.get<double>();
      const double y = b.get<double>();
      return x == y && std::signbit(x) == std::signbit(y);
    }
    return a == b;
  }
  if (a.type() != b.type()) return false;
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!same(a[i], b[i])) return false;
    }
    return true;
  }
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto it = a.begin(); it != a.end(); ++it) {
      if (!b.contains(it.key()) || !same(it.value(), b[it.key()])) return false;
    }
    return true;
  }
  return a == b;
}

// ---- whole-file decompression, as the oracle undoes it ------------------------------------

std::string gunzip(const std::string& in) {
  z_stream z{};
  REQUIRE(inflateInit2(&z, 15 + 32) == Z_OK);
  std::string out;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  char buf[65536];
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    REQUIRE((rc == Z_OK || rc == Z_STREAM_END));
    out.append(buf, sizeof buf - z.avail_out);
  }
  inflateEnd(&z);
  return out;
}

std::string bunzip2(const std::string& in) {
  bz_stream z{};
  REQUIRE(BZ2_bzDecompressInit(&z, 0, 0) == BZ_OK);
  std::string out;
  z.next_in = const_cast<char*>(in.data());
  z.avail_in = static_cast<unsigned>(in.size());
  char buf[65536];
  int rc = BZ_OK;
  while (rc != BZ_STREAM_END) {
    z.next_out = buf;
    z.avail_out = sizeof buf;
    rc = BZ2_bzDecompress(&z);
    REQUIRE((rc == BZ_OK || rc == BZ_STREAM_END));
    out.append(buf, sizeof buf - z.avail_out);
  }
  BZ2_bzDecompressEnd(&z);
  return out;
}

/// Undo unix `compress` (LZW, magic 1f 9d) the way gzip's unlzw.c does, including its quirk of
/// skipping to the end of the current n_bits-byte group when the code width changes.
std::string uncompress_lzw(const std::string& in) {
  REQUIRE(in.size() >= 3);
  const int max_bits = static_cast<unsigned char>(in[2]) & 0x1f;
  const bool block_mode = (static_cast<unsigned char>(in[2]) & 0x80) != 0;
  REQUIRE((max_bits >= 9 && max_bits <= 16));
  const std::int64_t max_max_code = std::int64_t{1} << max_bits;
  std::vector<std::uint16_t> prefix(static_cast<std::size_t>(max_max_code));
  std::vector<std::uint8_t> suffix(static_cast<std::size_t>(max_max_code));
  for (int i = 0; i < 256; ++i) suffix[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(i);
  const std::uint64_t in_bits = (in.size() - 3) * 8;
  std::uint64_t pos = 0;
  std::uint64_t origin = 0;  // where the current code width started
  int n_bits = 9;
  std::int64_t max_code = (1 << n_bits) - 1;
  std::int64_t free_ent = block_mode ? 257 : 256;
  std::int64_t old_code = -1;
  int fin_char = 0;
  std::string out;
  std::string stack;
  auto realign = [&] {
    const std::uint64_t group = static_cast<std::uint64_t>(n_bits) * 8;
    pos = origin + (pos - origin + group - 1) / group * group;
  };
  while (true) {
    if (free_ent > max_code) {
      realign();
      origin = pos;
      ++n_bits;
      max_code = n_bits == max_bits ? max_max_code : (std::int64_t{1} << n_bits) - 1;
    }
    if (pos + static_cast<std::uint64_t>(n_bits) > in_bits) break;
    std::int64_t code = 0;
    for (int b = 0; b < n_bits; ++b) {
      const std::uint64_t bit = pos + static_cast<std::uint64_t>(b);
      if ((static_cast<unsigned char>(in[3 + bit / 8]) >> (bit % 8)) & 1)
        code |= std::int64_t{1} << b;
    }
    pos += static_cast<std::uint64_t>(n_bits);
    if (old_code == -1) {
      REQUIRE(code < 256);
      fin_char = static_cast<int>(code);
      old_code = code;
      out += static_cast<char>(code);
      continue;
    }
    if (code == 256 && block_mode) {
      realign();
      origin = pos;
      free_ent = 256;
      n_bits = 9;
      max_code = (1 << n_bits) - 1;
      continue;
    }
    const std::int64_t in_code = code;
    stack.clear();
    if (code >= free_ent) {
      REQUIRE(code == free_ent);
      stack += static_cast<char>(fin_char);
      code = old_code;
    }
    while (code >= 256) {
      stack += static_cast<char>(suffix[static_cast<std::size_t>(code)]);
      code = prefix[static_cast<std::size_t>(code)];
    }
    fin_char = suffix[static_cast<std::size_t>(code)];
    stack += static_cast<char>(fin_char);
    out.append(stack.rbegin(), stack.rend());
    if (free_ent < max_max_code) {
      prefix[static_cast<std::size_t>(free_ent)] = static_cast<std::uint16_t>(old_code);
      suffix[static_cast<std::size_t>(free_ent)] = static_cast<std::uint8_t>(fin_char);
      ++free_ent;
    }
    old_code = in_code;
  }
  return out;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string md5_hex(std::string_view bytes) {
  return asdfcore::compression::to_hex(asdfcore::compression::md5(
      {reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()}));
}

// ---- hand-made headers ------------------------------------------------------------------

/// Build a header from card texts (each padded to 80 bytes), an END card and block padding.
std::string header_of(const std::vector<std::string>& cards) {
  std::string h;
  for (const std::string& c : cards) {
    std::string card = c;
    card.resize(fitsasdf::kCardSize, ' ');
    h += card;
  }
  h += std::string("END").append(77, ' ');
  h.resize((h.size() + fitsasdf::kBlockSize - 1) / fitsasdf::kBlockSize * fitsasdf::kBlockSize,
           ' ');
  return h;
}

/// Parse `cards` and render every card as the oracle would.
json parsed(const std::vector<std::string>& cards) {
  json out = json::array();
  for (const Card& c : parse_header(header_of(cards), 1, "hand-made.fits")) {
    out.push_back(render(c));
  }
  return out;
}

/// Parse `cards` and render the single card it must hold.
json one(const std::string& card) {
  const json all = parsed({card});
  REQUIRE(all.size() == 1);
  return all[0];
}

json undefined() { return json{{"$undefined", true}}; }

/// astropy `CompImageHDU._remove_unnecessary_default_extnames` on rendered cards.
void drop_default_extnames(std::vector<json>& cards) {
  std::vector<std::size_t> extnames;
  std::vector<std::size_t> defaults;
  for (std::size_t i = 0; i < cards.size(); ++i) {
    if (cards[i][0] != "EXTNAME") continue;
    extnames.push_back(i);
    if (cards[i][1] == "COMPRESSED_IMAGE") defaults.push_back(i);
  }
  if (extnames.size() < 2) return;
  if (defaults.size() == extnames.size()) defaults.erase(defaults.begin());
  for (auto it = defaults.rbegin(); it != defaults.rend(); ++it) {
    cards.erase(cards.begin() + static_cast<std::ptrdiff_t>(*it));
  }
}

/// astropy `GroupsHDU.__init__`: a random-groups HDU without axes gets NAXIS = 1, NAXIS1 = 0.
void add_groups_axis(std::vector<json>& cards) {
  for (std::size_t i = 0; i < cards.size(); ++i) {
    if (cards[i][0] == "NAXIS" && cards[i][1] == 0) {
      cards[i][1] = 1;
      cards.insert(cards.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                   json::array({"NAXIS1", 0, ""}));
      return;
    }
  }
}

}  // namespace

TEST_CASE("every header of the corpus reads as astropy 5.2.1 shows it", "[header]") {
  std::size_t files = 0;
  std::size_t hdus = 0;
  std::size_t cards = 0;
  std::size_t equal = 0;
  for (const auto& [path, record] : oracle()["files"].items()) {
    if (record.value("format", "") != "fits" || !record.contains("hdus")) continue;
    const fs::path file = fitsasdf::test::corpus_dir() / path;
    if (!fs::exists(file)) continue;
    std::string raw = read_file(file);
    const std::string container =
        record["container_compression"].is_string() ? record["container_compression"] : "";
    if (container == "gzip") raw = gunzip(raw);
    if (container == "bzip2") raw = bunzip2(raw);
    if (container == "compress-lzw") raw = uncompress_lzw(raw);
    if (record.contains("decompressed_md5") &&
        md5_hex(raw) != record["decompressed_md5"].get<std::string>()) {
      FAIL_CHECK(path << ": the decompressed bytes differ from the oracle's");
      continue;
    }
    ++files;
    for (const json& h : record["hdus"]) {
      if (!h.contains("header_offset") || !h.contains("data_offset")) continue;
      const std::size_t begin = h["header_offset"];
      const std::size_t end = h["data_offset"];
      const int index = h["index"].get<int>() + 1;
      INFO(path << " HDU " << index << " (" << h.value("type", "") << ")");
      if (begin > end || end > raw.size()) {
        FAIL_CHECK("the oracle's header offsets lie outside the file");
        continue;
      }
      const std::string_view bytes = std::string_view(raw).substr(begin, end - begin);
      const bool compressed = h.contains("compressed_header");
      const json& want = compressed ? h["compressed_header"] : h["header"];

      // Where astropy cannot read a value (the oracle has "$error"), the default reader
      // refuses the header and the fixing reader keeps the card.
      bool unparsable = false;
      for (const json& c : want) {
        if (c[1].is_object() && c[1].contains("$error")) unparsable = true;
      }
      if (unparsable) CHECK_THROWS_AS(read_header(bytes, index, path), asdfcore::Error);
      fitsasdf::HeaderOptions options;
      options.fix_unparsable_values = unparsable;
      fitsasdf::Header header;
      try {
        header = read_header(bytes, index, path, options);
      } catch (const asdfcore::Error& e) {
        FAIL_CHECK(e.what());
        continue;
      }
      ++hdus;

      // The images rebuild the header byte for byte.
      std::string rebuilt;
      for (const Card& c : header.cards) {
        for (const std::string& image : c.images) rebuilt += image;
      }
      rebuilt += header.end_image + header.padding;
      rebuilt.resize(header.size, ' ');  // blank padding is not kept
      CHECK(rebuilt == bytes);
      CHECK(header.size == bytes.size());

      // astropy shows the image header of a tile-compressed image; compare the table's, from
      // which astropy's CompImageHDU drops the default EXTNAME = 'COMPRESSED_IMAGE' when there
      // is another EXTNAME. The HDU classes' own header edits are replayed on our cards.
      std::vector<json> got_cards;
      for (const Card& c : header.cards) {
        got_cards.push_back(render(c));
        if (!c.problem.empty()) got_cards.back()[1] = "$error";
      }
      if (compressed) drop_default_extnames(got_cards);
      if (h.value("type", "") == "GroupsHDU") add_groups_axis(got_cards);
      CHECK(got_cards.size() == want.size());
      for (std::size_t i = 0; i < got_cards.size() && i < want.size(); ++i) {
        ++cards;
        const json& got = got_cards[i];
        json expected = want[i];
        if (expected[1].is_object() && expected[1].contains("$error")) expected[1] = "$error";
        if (same(got, expected)) {
          ++equal;
        } else {
          FAIL_CHECK("card " << i + 1 << "\n  oracle: " << want[i].dump()
                             << "\n  ours:   " << got.dump());
        }
      }
    }
  }
  INFO(files << " files, " << hdus << " HDUs, " << equal << " of " << cards << " cards equal");
  CHECK(files > 0);
  CHECK(equal == cards);
}

TEST_CASE("fixed- and free-format values take astropy's types", "[header]") {
  CHECK(same(one("SIMPLE  =                    T / conforms"),
             json::array({"SIMPLE", true, "conforms"})));
  CHECK(same(one("FALSEV  =                    F"), json::array({"FALSEV", false, ""})));
  CHECK(same(one("NAXIS   =                    0 / number of axes"),
             json::array({"NAXIS", 0, "number of axes"})));
  CHECK(same(one("FREE    =    'free'   / c"), json::array({"FREE", "free", "c"})));
  CHECK(same(one("FREEN   =   -12   / c"), json::array({"FREEN", -12, "c"})));
  CHECK(same(one("FL5     = +0012"), json::array({"FL5", 12, ""})));
  CHECK(same(one("NEG     = -000"), json::array({"NEG", 0, ""})));
  CHECK(same(one("SIGNSP  = -  5"), json::array({"SIGNSP", -5, ""})));
  CHECK(same(one("FL1     = .5"), json::array({"FL1", 0.5, ""})));
  CHECK(same(one("FL2     = 1."), json::array({"FL2", 1.0, ""})));
  CHECK(same(one("FL3     = -1.5d-3"), json::array({"FL3", -0.0015, ""})));
  CHECK(same(one("DEXP    = 1.5D3"), json::array({"DEXP", 1500.0, ""})));
  CHECK(same(one("FL4     = 1.5 E 3"), json::array({"FL4", 1500.0, ""})));
  CHECK(same(one("EXPSP   = 1.0E +  5"), json::array({"EXPSP", 100000.0, ""})));
  CHECK(same(one("I       = 1e5"), json::array({"I", 100000.0, ""})));
  CHECK(same(one("FL8     = -0.0"), json::array({"FL8", -0.0, ""})));
  CHECK(same(one("FL6     = 1E999"), json::array({"FL6", json{{"$float", "inf"}}, ""})));
  CHECK(same(one("FL6N    = -1E999"), json::array({"FL6N", json{{"$float", "-inf"}}, ""})));
  CHECK(same(one("FL7     = 1e-400"), json::array({"FL7", 0.0, ""})));
  CHECK(same(one("FL9     = 0.0000e999"), json::array({"FL9", 0.0, ""})));
}

TEST_CASE("integers beyond 64 bits keep every digit", "[header]") {
  const std::vector<Card> cards = parse_header(
      header_of({"ABC     = 12345678901234567890123 / big", "NEG     = -9223372036854775809",
                 "MAX     = 9223372036854775807", "U64     = 18446744073709551615"}),
      1, "x.fits");
  REQUIRE(cards.size() == 4);
  CHECK(cards[0].value->kind() == NodeKind::kBigInt);
  CHECK(cards[0].value->integer_text() == "12345678901234567890123");
  CHECK(cards[0].comment == "big");
  CHECK(cards[1].value->integer_text() == "-9223372036854775809");
  CHECK(cards[2].value->kind() == NodeKind::kInt);
  CHECK(cards[2].value->as_int() == std::numeric_limits<std::int64_t>::max());
  CHECK(cards[3].value->integer_text() == "18446744073709551615");
}

TEST_CASE("complex values are core/complex strings", "[header]") {
  const std::vector<Card> cards =
      parse_header(header_of({"CPLX    = (1.0, 2.5) / complex value", "CPL     = ( 1 , -2.5D1 )",
                              "CPL2    = (1.0,2.0) / c", "CPL3    = (0, 3)"}),
                   1, "x.fits");
  REQUIRE(cards.size() == 4);
  CHECK(cards[0].value->tag() == "tag:stsci.edu:asdf/core/complex-1.0.0");
  CHECK(cards[0].value->as_string() == "(1+2.5j)");
  CHECK(cards[0].comment == "complex value");
  CHECK(cards[1].value->as_string() == "(1-25j)");
  CHECK(cards[2].value->as_string() == "(1+2j)");
  CHECK(cards[2].comment == "c");
  CHECK(cards[3].value->as_string() == "3j");
}

TEST_CASE("strings: doubled quotes, trailing blanks, and astropy's shortest match", "[header]") {
  CHECK(same(one("QUOTE   = 'it''s  ' / q"), json::array({"QUOTE", "it's", "q"})));
  CHECK(same(one("EMPTYS  = ''"), json::array({"EMPTYS", "", ""})));
  CHECK(same(one("SPACES  = '   '"), json::array({"SPACES", "", ""})));
  CHECK(same(one("SPC     = 'a  ' / trailing"), json::array({"SPC", "a", "trailing"})));
  CHECK(same(one("LEAD    = '  a'"), json::array({"LEAD", "  a", ""})));
  CHECK(same(one("Q       = ''''"), json::array({"Q", "'", ""})));
  CHECK(same(one("Q2      = 'a''''b'"), json::array({"Q2", "a''b", ""})));
  // The empty string loses to any longer match that ends the field: astropy's regex.
  CHECK(same(one("E       = '' / x 'y'"), json::array({"E", "' / x 'y", ""})));
  CHECK(same(one("NANS    = 'NaN'"), json::array({"NANS", "NaN", ""})));
  CHECK(same(one("KEY     = 'a'/c"), json::array({"KEY", "a", "c"})));
}

TEST_CASE("undefined values and comments", "[header]") {
  CHECK(same(one("UNDEF   =                      / undefined with comment"),
             json::array({"UNDEF", undefined(), "undefined with comment"})));
  CHECK(same(one("UNDEF2  ="), json::array({"UNDEF2", undefined(), ""})));
  CHECK(same(one("NOCOMM  = 5"), json::array({"NOCOMM", 5, ""})));
  CHECK(same(one("EMPTYC  = 5 /"), json::array({"EMPTYC", 5, ""})));
  CHECK(same(one("EMPTYC2 = 5 /   "), json::array({"EMPTYC2", 5, ""})));
  const std::vector<Card> cards = parse_header(header_of({"UNDEF2  ="}), 1, "x.fits");
  CHECK(cards[0].value->is_null());
  CHECK(cards[0].has_value_indicator);
}

TEST_CASE("commentary cards, blank cards and cards without a value indicator", "[header]") {
  CHECK(same(parsed({"COMMENT hello", "HISTORY I updated this file", "        blank keyword text",
                     "", "COMMENT", "COMMENT   indented  ", "HISTORY"}),
             json::parse(R"([["COMMENT", "hello", ""], ["HISTORY", "I updated this file", ""],
                             ["", "blank keyword text", ""], ["", "", ""], ["COMMENT", "", ""],
                             ["COMMENT", "  indented", ""], ["HISTORY", "", ""]])")));
  // No "= " in columns 1-10: astropy keeps the card as text under its raw keyword.
  CHECK(same(one("KEYWORD  = 7"), json::array({"KEYWORD", " = 7", ""})));
  CHECK(same(one("X       =8"), json::array({"X", "=8", ""})));
  CHECK(same(one("HISTORY='x'"), json::array({"HISTORY=", "'x'", ""})));
  CHECK(same(one("COMMENT= 5"), json::array({"COMMENT", " 5", ""})));
  CHECK(same(one("COMMENT X =  'abc' / hmm"), json::array({"COMMENT", "X =  'abc' / hmm", ""})));
  const std::vector<Card> cards = parse_header(header_of({"COMMENT hello"}), 1, "x.fits");
  CHECK_FALSE(cards[0].has_value_indicator);
}

TEST_CASE("lower-case and misplaced keywords", "[header]") {
  CHECK(same(parsed({"naxis   = 0", "lower   = 'x'", "DATE-OBS= '2000'", "KEY= 5", "  IND   = 6"}),
             json::parse(R"([["NAXIS", 0, ""], ["LOWER", "x", ""], ["DATE-OBS", "2000", ""],
                             ["KEY", 5, ""], ["IND", 6, ""]])")));
  CHECK(same(one("ENDX    = 1"), json::array({"ENDX", 1, ""})));
}

TEST_CASE("duplicated keywords stay in order", "[header]") {
  CHECK(same(parsed({"A       = 1", "A       = 2 / second", "HISTORY x", "A       = 'three'"}),
             json::parse(R"([["A", 1, ""], ["A", 2, "second"], ["HISTORY", "x", ""],
                             ["A", "three", ""]])")));
}

TEST_CASE("CONTINUE cards merge into one long string", "[header]") {
  const std::vector<Card> cards =
      parse_header(header_of({"LONG    = 'abcdefghij&'", "CONTINUE  'klmno&' / comment one",
                              "CONTINUE  'pqr' / comment two", "NEXT    = 1"}),
                   1, "x.fits");
  REQUIRE(cards.size() == 2);
  CHECK(same(render(cards[0]),
             json::array({"LONG", "abcdefghijklmnopqr", "comment one comment two"})));
  CHECK(cards[0].images.size() == 3);
  CHECK(cards[0].images[1].substr(0, 8) == "CONTINUE");
  CHECK(cards[1].images.size() == 1);

  CHECK(same(
      parsed({"STR     = 'abc&'", "CONTINUE  'def&'", "CONTINUE  '&' / c1", "CONTINUE  '' / c2"}),
      json::parse(R"([["STR", "abcdef", "c1 c2"]])")));
  CHECK(same(parsed({"STR     = 'it''s &'", "CONTINUE  'a''''b&' / it's", "CONTINUE  'zz&'"}),
             json::parse(R"([["STR", "it's a'bzz", "it's"]])")));
  CHECK(same(parsed({"STR     = 'ab&' / c0", "CONTINUE  'c'' /x&' / it's 'q'",
                     "CONTINUE  ' zz  '  / last  "}),
             json::parse(R"([["STR", "abc' zz", "c0 x&' / it's 'q' last"]])")));
  CHECK(same(parsed({"STR     = 'ab  &' / c0", "CONTINUE  'cd' ''"}),
             json::parse(R"([["STR", "ab  cd", "c0"]])")));
  CHECK(same(parsed({"STR     = 'abc'", "CONTINUE  'def'"}),
             json::parse(R"([["STR", "abcdef", ""]])")));
  CHECK(same(parsed({"HIERARCH LONG KEY = 'abc&'", "CONTINUE  'def'"}),
             json::parse(R"([["LONG KEY", "abcdef", ""]])")));
  // A commentary card swallows the CONTINUE image as text; an orphan CONTINUE keeps its '&'.
  CHECK(same(
      parsed({"COMMENT first", "CONTINUE  'cont'"}),
      json::parse(
          R"([["COMMENT", "first                                                                   CONTINUE  'cont'", ""]])")));
  CHECK(same(parsed({"CONTINUE  'orphan&' / oc"}),
             json::parse(R"([["CONTINUE", "orphan&", "oc"]])")));
}

TEST_CASE("HIERARCH keywords drop the prefix and keep their case", "[header]") {
  CHECK(same(parsed({"HIERARCH ESO DET Chip = 5 / hier", "HIERARCH lower case key = 'x'",
                     "HIERARCH A B C = 'x' / c", "HIERARCH A=5", "HIERARCH  SPACED  KEY   =   7",
                     "HIERARCH ABC = 1.5D2 / hier comment", "HIERARCH NOEQ 5"}),
             json::parse(R"([["ESO DET Chip", 5, "hier"], ["lower case key", "x", ""],
                             ["A B C", "x", "c"], ["A", 5, ""], ["SPACED  KEY", 7, ""],
                             ["ABC", 150.0, "hier comment"], ["HIERARCH", " NOEQ 5", ""]])")));
}

TEST_CASE("record-valued keyword cards read as astropy expands them", "[header]") {
  CHECK(same(
      parsed({"DP1     = 'AXIS.1: 1'", "DP1     = 'NAXIS: 2' / c", "DP1     = 'AXIS.1: 1.5E2'",
              "DP2     = 'AXIS.1:1'", "DP1     = 'AXIS.1: 1' / c 'x'", "DP1     = 'AXIS.1 : 1'",
              "DP1     = 'A.B.C: -1'", "DP1 = 'AXIS.1: 1'", "dp1     = 'aXIS.1: 1'"}),
      json::parse(R"([["DP1.AXIS.1", 1.0, ""], ["DP1.NAXIS", 2.0, "c"],
                             ["DP1.AXIS.1", 150.0, ""], ["DP2", "AXIS.1:1", ""],
                             ["DP1.AXIS.1", 1.0, "c 'x'"], ["DP1", "AXIS.1 : 1", ""],
                             ["DP1.A.B.C", -1.0, ""], ["DP1 .AXIS.1", 1.0, ""],
                             ["DP1.aXIS.1", 1.0, ""]])")));
}

TEST_CASE("bytes above 0x7f read as '?' like fits.open, or as Latin-1 on request", "[header]") {
  std::vector<std::string> cards = {"COMMENT caf\xe9 \xa0",
                                    "HISTORY tab\there\t",
                                    "CTRL2   = 5 / a\001b  ",
                                    "DP1     = 'AXIS.1: 1'/c\xe9",
                                    "S       = 'caf\xe9' / \xe9t\xe9",
                                    "K\xe9      = 1 / c"};
  json got = json::array();
  for (const Card& c : parse_header(header_of(cards), 1, "x.fits")) got.push_back(render(c));
  CHECK(same(got, json::parse(R"([["COMMENT", "caf? ?", ""], ["HISTORY", "tab\there", ""],
                                  ["CTRL2", 5, "a\u0001b"], ["DP1.AXIS.1", 1.0, "c?"],
                                  ["S", "caf?", "?t?"], ["K?", 1, "c"]])")));
  // Header.fromstring's view: Latin-1 (python's str.strip() also drops \xa0); a non-ASCII
  // character inside a string value makes it unparsable, so that card is left out here.
  fitsasdf::HeaderOptions latin1;
  latin1.latin1_text = true;
  got = json::array();
  cards.resize(4);
  for (const Card& c : parse_header(header_of(cards), 1, "x.fits", latin1)) {
    got.push_back(render(c));
  }
  CHECK(same(got, json::parse(
                      "[[\"COMMENT\", \"caf\xc3\xa9\", \"\"], [\"HISTORY\", \"tab\\there\", \"\"],"
                      " [\"CTRL2\", 5, \"a\\u0001b\"], [\"DP1\", \"AXIS.1: 1\", \"c\xc3\xa9\"]]")));
  CHECK_THROWS_AS(parse_header(header_of({"S       = 'caf\xe9'"}), 1, "x.fits", latin1),
                  asdfcore::Error);
}

TEST_CASE("END ends the header as astropy's readers find it", "[header]") {
  const std::string a = std::string("A       = 1").append(69, ' ');
  const std::string b = std::string("B       = 2").append(69, ' ');
  const std::string end = std::string("END").append(77, ' ');
  auto block = [](std::string s) {
    s.resize((s.size() + 2879) / 2880 * 2880, ' ');
    return s;
  };
  auto keywords = [](const std::string& bytes) {
    std::vector<std::string> out;
    for (const Card& c : parse_header(bytes, 1, "x.fits")) out.push_back(c.keyword);
    return out;
  };
  auto card = [](std::string s) {
    s.resize(80, ' ');
    return s;
  };
  using V = std::vector<std::string>;
  // A valid END later on wins over an END card with junk (astropy's fast reader).
  CHECK(keywords(block(a + card("END     junk") + b + end)) == V{"A", "END", "B"});
  // No "= ": an invalid card, kept under its raw keyword.
  CHECK(keywords(block(a + card("ENDjunk") + b + end)) == V{"A", "ENDjunk", "B"});
  CHECK(keywords(block(a + card("end") + b + end)) == V{"A", "END", "B"});
  // Without a valid END the full reader accepts "END" followed by a non-keyword character.
  CHECK(keywords(block(a + card("END     = 5") + b)) == V{"A"});
  // ... and so it does when a byte above 0x7f makes the fast reader give up.
  CHECK(keywords(block(card("COMMENT caf\xe9") + card("END     junk") + b + end)) == V{"COMMENT"});
  // Cards after END, and the padding, are not cards; the images rebuild the bytes.
  const std::string bytes = block(a + end + b);
  const fitsasdf::Header h = read_header(bytes + "DATA", 1, "x.fits");
  REQUIRE(h.cards.size() == 1);
  CHECK(h.size == 2880);
  CHECK(h.end_image == end);
  CHECK(h.cards[0].images[0] + h.end_image + h.padding == bytes);
  // The END card is found in a later block.
  std::string many;
  for (int i = 0; i < 40; ++i) many += card("K" + std::to_string(i) + "      = 1");
  const fitsasdf::Header h2 = read_header(block(many + end), 1, "x.fits");
  CHECK(h2.cards.size() == 40);
  CHECK(h2.size == 5760);
  CHECK(h2.padding.empty());  // only blanks after END: not kept
  // The block's last byte counts, in both scans (they go eight bytes at a time).
  std::string high = block(a + card("END     junk") + b + end);
  high.back() = '\xe9';
  CHECK(keywords(high) == V{"A"});
  std::string marked = block(a + end);
  marked.back() = 'x';
  const fitsasdf::Header h3 = read_header(marked, 1, "x.fits");
  REQUIRE(h3.padding.size() == 2880 - 160);
  CHECK(h3.padding.back() == 'x');
}

TEST_CASE("card_to_node writes the lists asdf-astropy writes and reads back", "[header]") {
  const std::vector<Card> cards = parse_header(
      header_of({"SIMPLE  =                    T / conforms", "NAXIS   =                    0",
                 "UNDEF   =                      / undefined with comment", "UNDEF2  =", "",
                 "        blank keyword text", "COMMENT", "CPLX    = (1.0, 2.5)", "EMPTYS  = ''"}),
      1, "x.fits");
  REQUIRE(cards.size() == 9);
  auto text = [](const asdfcore::tree::NodePtr& n) {
    json out = json::array();
    for (const auto& item : n->items()) {
      if (item->is_null()) {
        out.push_back(nullptr);
      } else if (item->kind() == NodeKind::kBool) {
        out.push_back(item->as_bool());
      } else if (item->kind() == NodeKind::kInt) {
        out.push_back(item->as_int());
      } else {
        out.push_back((item->tag().empty() ? "" : "!" + item->tag() + " ") + item->as_string());
      }
    }
    return out;
  };
  CHECK(text(card_to_node(cards[0])) == json::parse(R"(["SIMPLE", true, "conforms"])"));
  CHECK(text(card_to_node(cards[1])) == json::parse(R"(["NAXIS", 0])"));
  CHECK(text(card_to_node(cards[2])) ==
        json::parse(R"(["UNDEF", null, "undefined with comment"])"));
  CHECK(text(card_to_node(cards[3])) == json::parse(R"(["UNDEF2"])"));
  CHECK(text(card_to_node(cards[4])) == json::array());
  CHECK(text(card_to_node(cards[5])) == json::parse(R"(["", "blank keyword text"])"));
  CHECK(text(card_to_node(cards[6])) == json::parse(R"(["COMMENT", ""])"));
  CHECK(text(card_to_node(cards[7])) ==
        json::parse(R"x(["CPLX", "!tag:stsci.edu:asdf/core/complex-1.0.0 (1+2.5j)"])x"));
  CHECK(text(card_to_node(cards[8])) == json::parse(R"(["EMPTYS", ""])"));
  CHECK(card_to_node(cards[0])->collection_style == asdfcore::tree::CollectionStyle::kFlow);
  // The value node is a copy: the card is not shared with the tree.
  CHECK(card_to_node(cards[1])->items()[1] != cards[1].value);
}

TEST_CASE("fix_unparsable_values keeps what astropy cannot read, fixed as verify('fix') does",
          "[header]") {
  const std::string bytes =
      header_of({"SKEW    = -1.3869888376036E+00, -1.6912592180432E+00 /Measure of skew",
                 "BADQ    = 'abc", "X       = 1 2 / a / b", "A       = 1"});
  CHECK_THROWS_AS(parse_header(bytes, 1, "x.fits"), asdfcore::Error);
  fitsasdf::HeaderOptions fix;
  fix.fix_unparsable_values = true;
  const std::vector<Card> cards = parse_header(bytes, 1, "x.fits", fix);
  REQUIRE(cards.size() == 4);
  CHECK(same(render(cards[0]), json::array({"SKEW", "-1.3869888376036E+00, -1.6912592180432E+00",
                                            "Measure of skew"})));
  CHECK(same(render(cards[1]), json::array({"BADQ", "'abc", ""})));
  CHECK(same(render(cards[2]), json::array({"X", "1 2", "a / b"})));
  CHECK_FALSE(cards[0].problem.empty());
  CHECK(cards[3].problem.empty());
  // The images are kept as they were.
  CHECK(cards[0].images[0] == bytes.substr(0, 80));
}
