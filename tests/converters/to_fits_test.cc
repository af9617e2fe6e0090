// ASDF -> FITS (`convert_asdf_to_fits`) on trees built here: header cards in the fixed format
// for every kind of value (expected images are astropy 5.2.1's `Card(...).image` for the same
// card, except where fitsasdf keeps a value astropy would round or cut, said case by case),
// recorded card images used while they still read as the card, images of every BITPIX in both
// byte orders, unsigned and physically scaled images, raw HDUs, checksums, and the refusals.
#include "fitsasdf/to_fits.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "asdfcore/asdf_file.h"
#include "asdfcore/asdf_writer.h"
#include "asdfcore/error.h"
#include "asdfcore/ndarray/ndarray.h"
#include "fitsasdf/convert.h"
#include "support/catch.h"
#include "support/scoped_env.h"
#include "support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::ndarray::ByteOrder;
using asdfcore::ndarray::DType;
using asdfcore::ndarray::DTypeKind;
using asdfcore::tree::Node;
using asdfcore::tree::NodePtr;
using fitsasdf::test::TempDir;
using fitsasdf::test::WritesUnvalidated;

constexpr char kAstropyTag[] = "tag:astropy.org:astropy/fits/fits-1.0.0";
constexpr char kStandardTag[] = "tag:stsci.edu:asdf/fits/fits-1.0.0";

NodePtr str(const std::string& s) { return Node::make_string(s); }
NodePtr num(std::int64_t v) { return Node::make_int(v); }
NodePtr real(double v) { return Node::make_float(v); }
NodePtr flag(bool v) { return Node::make_bool(v); }

/// A header card [keyword, value, comment] as the fits schemas hold it.
NodePtr card(const std::string& keyword, NodePtr value = nullptr, const std::string& comment = "") {
  NodePtr c = Node::make_sequence();
  if (keyword.empty() && !value && comment.empty()) return c;
  c->push_back(str(keyword));
  if (value || !comment.empty()) c->push_back(value ? value : Node::make_null());
  if (!comment.empty()) c->push_back(str(comment));
  return c;
}

/// The primary cards of an HDU without data.
std::vector<NodePtr> empty_primary() {
  return {card("SIMPLE", flag(true)), card("BITPIX", num(8)), card("NAXIS", num(0))};
}

/// Builds an ASDF file holding a fits list.
class FitsTree {
 public:
  explicit FitsTree(const std::string& tag = kAstropyTag) {
    list_->set_tag(tag);
    root_->set("fits", list_);
  }
  /// Add a block holding `bytes` and return an ndarray node over it.
  NodePtr array(DType dtype, std::vector<std::uint64_t> shape, std::vector<std::uint8_t> bytes) {
    asdfcore::ndarray::NDArrayNodeSpec spec;
    spec.dtype = dtype;
    spec.shape = std::move(shape);
    spec.source = static_cast<std::int64_t>(blocks_.size());
    blocks_.push_back(std::move(bytes));
    return asdfcore::ndarray::make_ndarray_node(spec);
  }
  /// Add an item; return it for more keys.
  NodePtr item(const std::vector<NodePtr>& cards, NodePtr data = nullptr) {
    NodePtr item = Node::make_mapping();
    NodePtr h = Node::make_sequence();
    for (const auto& c : cards) h->push_back(c);
    item->set("header", h);
    item->set("data", data ? data : Node::make_null());
    list_->push_back(item);
    return item;
  }
  NodePtr root() const { return root_; }
  void write(const fs::path& path) const {
    std::vector<asdfcore::format::BlockToWrite> blocks;
    for (const auto& b : blocks_) {
      asdfcore::format::BlockToWrite w;
      w.pieces.push_back(std::span<const std::uint8_t>(b));
      blocks.push_back(std::move(w));
    }
    asdfcore::AsdfWriteOptions options;
    options.asdf_standard = "1.5.0";
    options.layout.durable = false;
    asdfcore::write_asdf(path.string(), root_, blocks, options);
  }

 private:
  NodePtr root_ = Node::make_mapping();
  NodePtr list_ = Node::make_sequence();
  std::deque<std::vector<std::uint8_t>> blocks_;
};

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Write `tree` to `dir`/name.asdf, convert it to FITS and return the FITS bytes.
std::string to_fits(const FitsTree& tree, const TempDir& dir, const std::string& name,
                    fitsasdf::ConversionReport* report = nullptr,
                    const fitsasdf::AsdfToFitsOptions& options = {false, false}) {
  const fs::path asdf = dir / (name + ".asdf");
  const fs::path fits = dir / (name + ".fits");
  tree.write(asdf);
  const auto r = fitsasdf::convert_asdf_to_fits(asdf.string(), fits.string(), options);
  if (report) *report = r;
  return read_file(fits);
}

/// The card images of the header starting at byte `at` of `bytes`, END excluded, trailing
/// blanks dropped.
std::vector<std::string> cards_at(const std::string& bytes, std::size_t at = 0) {
  std::vector<std::string> out;
  for (; at + 80 <= bytes.size(); at += 80) {
    std::string c = bytes.substr(at, 80);
    if (c.starts_with("END     ")) break;
    c.erase(c.find_last_not_of(' ') + 1);
    out.push_back(c);
  }
  return out;
}

/// Where the HDU after the one whose header starts at `at` starts, for data of `data` bytes.
std::size_t next_hdu(const std::string& bytes, std::size_t at, std::size_t data) {
  const std::size_t end = bytes.find("END     ", at);
  std::size_t header_end = at;
  for (std::size_t p = at; p < bytes.size(); p += 80) {
    if (bytes.compare(p, 8, "END     ") == 0) {
      header_end = (p / 2880 + 1) * 2880;
      break;
    }
  }
  (void)end;
  return header_end + (data + 2879) / 2880 * 2880;
}

template <typename T>
std::vector<std::uint8_t> bytes_of(const std::vector<T>& values, ByteOrder order) {
  std::vector<std::uint8_t> out(values.size() * sizeof(T));
  std::memcpy(out.data(), values.data(), out.size());
  const bool swap = (order == ByteOrder::kBig) == (std::endian::native == std::endian::little);
  if (swap && sizeof(T) > 1) {
    for (std::size_t i = 0; i < out.size(); i += sizeof(T)) {
      std::reverse(out.begin() + static_cast<std::ptrdiff_t>(i),
                   out.begin() + static_cast<std::ptrdiff_t>(i + sizeof(T)));
    }
  }
  return out;
}

std::vector<std::uint8_t> big(const std::string& s) { return {s.begin(), s.end()}; }

/// Expect `f` to throw an Error of `code` whose text holds every one of `words`.
template <typename F>
void expect_error(F f, ErrorCode code, std::initializer_list<std::string> words) {
  try {
    f();
    FAIL("no error thrown");
  } catch (const Error& e) {
    INFO(e.what());
    CHECK(e.code() == code);
    for (const auto& w : words) CHECK(std::string(e.what()).find(w) != std::string::npos);
  }
}

}  // namespace

TEST_CASE("to_fits: header cards in the fixed format, for every kind of value", "[to_fits]") {
  TempDir dir;
  FitsTree tree;
  NodePtr cplx = str("(2+3j)");
  cplx->set_tag("tag:stsci.edu:asdf/core/complex-1.0.0");
  std::vector<NodePtr> cards = empty_primary();
  const std::vector<std::pair<NodePtr, std::vector<std::string>>> cases{
      {card("OBSERVER", str("Edwin Hubble"), "who"), {"OBSERVER= 'Edwin Hubble'       / who"}},
      {card("QUOTE", str("it's"), "c"), {"QUOTE   = 'it''s   '           / c"}},
      {card("EMPTY", str("")), {"EMPTY   = ''"}},
      {card("EMPTYC", str(""), "c"), {"EMPTYC  = '' / c"}},
      {card("FLAG", flag(true)), {"FLAG    =                    T"}},
      {card("OFF", flag(false), "no"), {"OFF     =                    F / no"}},
      {card("COUNT", num(-42), "n"), {"COUNT   =                  -42 / n"}},
      {card("BIG", Node::make_integer_text("123456789012345678901234567890")),
       {"BIG     = 123456789012345678901234567890"}},
      {card("ONE", real(1.0)), {"ONE     =                  1.0"}},
      {card("TINY", real(1e-5), "x"), {"TINY    =                1E-05 / x"}},
      {card("HUGE", real(1.5e100)), {"HUGE    =             1.5E+100"}},
      {card("NEGZERO", real(-0.0)), {"NEGZERO =                 -0.0"}},
      // astropy writes 16 digits ("0.3"), which reads back as another double; 17 keep it.
      {card("THIRD", real(0.30000000000000004)), {"THIRD   =  0.30000000000000004"}},
      {card("CPLX", cplx, "cx"), {"CPLX    =           (2.0, 3.0) / cx"}},
      {card("UNDEF"), {"UNDEF   ="}},
      {card("UNDEFC", nullptr, "a comment"), {"UNDEFC  =  / a comment"}},
      {card("COMMENT", str(std::string(72, 'x') + "yy")),
       {"COMMENT " + std::string(72, 'x'), "COMMENT yy"}},
      {card("HISTORY", str("step one")), {"HISTORY step one"}},
      {card("", str("blank text")), {"        blank text"}},
      {card(""), {""}},
      {card("HIERARCH ESO DET CHIP NAME", str("CCD-44"), "detector chip"),
       {"HIERARCH ESO DET CHIP NAME = 'CCD-44  ' / detector chip"}},
      // asdf-astropy writes HIERARCH keywords without their prefix.
      {card("ESO DET X", num(1)), {"HIERARCH ESO DET X = 1"}},
      {card("DP1.AXIS.1", real(1.0), "rv"), {"DP1     = 'AXIS.1: 1.0' / rv"}},
      {card("LONGSTR",
            str("This value is far longer than one card can hold, so it goes on in CONTINUE "
                "cards after it ends."),
            "and it has a comment that is long enough to need a second continuation card too, "
            "yes"),
       {"LONGSTR = 'This value is far longer than one card can hold, so it goes on in &'",
        "CONTINUE  'CONTINUE cards after it ends.&'",
        "CONTINUE  '&' / and it has a comment that is long enough to need a second",
        "CONTINUE  '' / continuation card too, yes"}},
      {card("QUOTES", str("it's a value with 'quotes'-marks that is long enough to continue on a "
                          "further card: its end")),
       {"QUOTES  = 'it''s a value with ''quotes''-marks that is long enough to &'",
        "CONTINUE  'continue on a further card: its end'"}},
      // A number whose comment does not fit the fixed layout loses the padding, not the comment
      // (astropy would cut the comment).
      {card("NUM", num(5), std::string(65, 'c')), {"NUM     = 5 / " + std::string(65, 'c')}},
      // A string whose comment does not fit continues on CONTINUE cards.
      {card("STR", str("abc"), std::string(70, 'd')),
       {"STR     = 'abc&'", "CONTINUE  '&' / " + std::string(64, 'd'),
        "CONTINUE  '' / " + std::string(6, 'd')}},
  };
  std::vector<std::string> want{"SIMPLE  =                    T", "BITPIX  =                    8",
                                "NAXIS   =                    0"};
  for (const auto& [c, images] : cases) {
    cards.push_back(c);
    want.insert(want.end(), images.begin(), images.end());
  }
  tree.item(cards);
  fitsasdf::ConversionReport report;
  const std::string fits = to_fits(tree, dir, "cards", &report);
  CHECK(fits.size() % 2880 == 0);
  const std::vector<std::string> got = cards_at(fits);
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    INFO("card " << i + 1);
    CHECK(got[i] == want[i]);
  }
  CHECK(report.fits_tag == kAstropyTag);
  REQUIRE(report.hdus.size() == 1);
  CHECK(report.hdus[0].kind == "image");
  CHECK(report.hdus[0].name == "PRIMARY");
  // The one card that does not read back whole: a comment word longer than a CONTINUE card
  // is read back with a blank where it was cut.
  for (const auto& n : report.hdus[0].notes) UNSCOPED_INFO(n);
  REQUIRE(report.hdus[0].notes.size() == 1);
  CHECK(report.hdus[0].notes[0].starts_with("card 30 (STR): its long string or comment"));

  // Read back, the long strings and their comments are whole again.
  const fs::path back = dir / "cards_back.asdf";
  fitsasdf::ConvertOptions options;
  options.durable = false;
  fitsasdf::convert_fits_to_asdf((dir / "cards.fits").string(), back.string(), options);
  const auto file = asdfcore::AsdfFile::open(back.string());
  const NodePtr read = file.tree()->get("fits")->items()[0]->get("header");
  const auto find = [&read](const std::string& keyword) -> NodePtr {
    for (const auto& c : read->items()) {
      if (c->size() > 0 && c->items()[0]->as_string() == keyword) return c;
    }
    return nullptr;
  };
  for (const char* keyword : {"LONGSTR", "QUOTES", "OBSERVER", "CPLX", "BIG", "THIRD"}) {
    INFO(keyword);
    NodePtr expected;
    for (const auto& [c, images] : cases) {
      if (c->size() > 0 && c->items()[0]->as_string() == keyword) expected = c;
    }
    const NodePtr got_card = find(keyword);
    REQUIRE(got_card);
    REQUIRE(expected);
    CHECK(asdfcore::tree::deep_equal(*got_card, *expected));
  }
}

TEST_CASE("to_fits: a card that cannot be written whole is reported", "[to_fits]") {
  TempDir dir;
  FitsTree tree;
  std::vector<NodePtr> cards = empty_primary();
  cards.push_back(card("NUM", num(5), std::string(70, 'c')));
  // astropy (and fitsasdf, which reads as astropy does) reads two quotes in a row of a
  // CONTINUE string as one.
  cards.push_back(card("TWOQ", str(std::string(70, 'q') + " with '' in it")));
  tree.item(cards);
  fitsasdf::ConversionReport report;
  const std::string fits = to_fits(tree, dir, "cut", &report);
  CHECK(cards_at(fits)[3] == "NUM     = 5 / " + std::string(66, 'c'));
  CHECK(cards_at(fits)[5] == "CONTINUE  'qqq with '''' in it'");
  REQUIRE(report.hdus.size() == 1);
  REQUIRE(report.hdus[0].notes.size() == 2);
  CHECK(report.hdus[0].notes[0].find("card 4 (NUM): the comment does not fit") !=
        std::string::npos);
  CHECK(report.hdus[0].notes[1].find("card 5 (TWOQ)") != std::string::npos);
  CHECK(report.hdus[0].notes[1].find("does not read back") != std::string::npos);
}

TEST_CASE("to_fits: recorded card images are used while the card still reads as them",
          "[to_fits]") {
  // The standard tag's schema caps string values at 60 characters; the 74-character LONG card
  // is written under it anyway, to show the reader copes.
  const WritesUnvalidated unvalidated;
  TempDir dir;
  for (const char* tag : {kAstropyTag, kStandardTag}) {
    INFO(tag);
    FitsTree tree(tag);
    std::vector<NodePtr> cards = empty_primary();
    cards.push_back(card("EXPTIME", real(30.0)));                       // 3: image matches
    cards.push_back(card("GAIN", real(2.5), "e/ADU"));                  // 4: image reads 2.25
    cards.push_back(card("LONG", str(std::string(70, 'v') + " end")));  // 5: CONTINUE image
    cards.push_back(card("OBJECT", str("M31")));                        // 6: no image
    NodePtr item = tree.item(cards);
    NodePtr images = Node::make_mapping();
    images->entries().emplace_back(num(3), str("EXPTIME =  3.0E+01"));
    images->entries().emplace_back(num(4), str("GAIN    =   2.25 /e/ADU"));
    // Split where fitsasdf would not split it (after 60 characters, not 67).
    images->entries().emplace_back(
        num(5), str("LONG    = '" + std::string(60, 'v') + "&'" + std::string(7, ' ') +
                    "CONTINUE  '" + std::string(10, 'v') + " end'"));
    // The END card and what follows it in its block, when not blanks.
    images->entries().emplace_back(num(7), str("END" + std::string(77, ' ') + "junk after END"));
    if (std::string(tag) == kAstropyTag) {
      item->set("card_images", images);
    } else {
      NodePtr beside = Node::make_sequence();
      beside->push_back(images);
      tree.root()->set("fits_card_images", beside);
    }
    fitsasdf::ConversionReport report;
    const std::string fits = to_fits(tree, dir, "images", &report);
    const std::vector<std::string> got = cards_at(fits);
    REQUIRE(got.size() == 8);
    CHECK(got[3] == "EXPTIME =  3.0E+01");
    CHECK(got[4] == "GAIN    =                  2.5 / e/ADU");  // the value changed: afresh
    CHECK(got[5] == "LONG    = '" + std::string(60, 'v') + "&'");
    CHECK(got[6] == "CONTINUE  '" + std::string(10, 'v') + " end'");
    CHECK(got[7] == "OBJECT  = 'M31     '");
    CHECK(fits.substr(8 * 80, 94) == "END" + std::string(77, ' ') + "junk after END");
    CHECK(fits.substr(8 * 80 + 94, 2880 - 8 * 80 - 94) == std::string(2880 - 8 * 80 - 94, ' '));
    REQUIRE(report.hdus.size() == 1);
    REQUIRE(report.hdus[0].notes.size() == 1);
    CHECK(report.hdus[0].notes[0].starts_with("1 card no longer reads as its recorded image"));
  }
}

TEST_CASE("to_fits: images of every BITPIX, in both byte orders", "[to_fits]") {
  TempDir dir;
  struct Case {
    int bitpix;
    DTypeKind kind;
    std::vector<std::uint8_t> big;
    std::vector<std::uint8_t> little;
  };
  const std::vector<Case> cases{
      {8, DTypeKind::kUInt8, bytes_of<std::uint8_t>({0, 1, 255, 7, 8, 9}, ByteOrder::kBig),
       bytes_of<std::uint8_t>({0, 1, 255, 7, 8, 9}, ByteOrder::kLittle)},
      {16, DTypeKind::kInt16, bytes_of<std::int16_t>({-32768, -1, 0, 1, 32767, 5}, ByteOrder::kBig),
       bytes_of<std::int16_t>({-32768, -1, 0, 1, 32767, 5}, ByteOrder::kLittle)},
      {32, DTypeKind::kInt32,
       bytes_of<std::int32_t>({-2147483647 - 1, -1, 0, 1, 7, 2147483647}, ByteOrder::kBig),
       bytes_of<std::int32_t>({-2147483647 - 1, -1, 0, 1, 7, 2147483647}, ByteOrder::kLittle)},
      {64, DTypeKind::kInt64,
       bytes_of<std::int64_t>({-1, 0, 1, 1LL << 40, -(1LL << 62), 3}, ByteOrder::kBig),
       bytes_of<std::int64_t>({-1, 0, 1, 1LL << 40, -(1LL << 62), 3}, ByteOrder::kLittle)},
      {-32, DTypeKind::kFloat32,
       bytes_of<float>({0.5f, -0.0f, NAN, INFINITY, 1e-30f, 3.25f}, ByteOrder::kBig),
       bytes_of<float>({0.5f, -0.0f, NAN, INFINITY, 1e-30f, 3.25f}, ByteOrder::kLittle)},
      {-64, DTypeKind::kFloat64,
       bytes_of<double>({0.5, -0.0, NAN, -INFINITY, 1e-300, 3.25}, ByteOrder::kBig),
       bytes_of<double>({0.5, -0.0, NAN, -INFINITY, 1e-300, 3.25}, ByteOrder::kLittle)},
  };
  for (const auto& c : cases) {
    for (const ByteOrder order : {ByteOrder::kBig, ByteOrder::kLittle}) {
      INFO("BITPIX " << c.bitpix << (order == ByteOrder::kBig ? " big" : " little"));
      FitsTree tree;
      tree.item({card("SIMPLE", flag(true)), card("BITPIX", num(c.bitpix)), card("NAXIS", num(2)),
                 card("NAXIS1", num(3)), card("NAXIS2", num(2)), card("EXTEND", flag(true))},
                tree.array(DType::numeric(c.kind, order), {2, 3},
                           order == ByteOrder::kBig ? c.big : c.little));
      tree.item({card("XTENSION", str("IMAGE")), card("BITPIX", num(c.bitpix)),
                 card("NAXIS", num(1)), card("NAXIS1", num(6)), card("PCOUNT", num(0)),
                 card("GCOUNT", num(1)), card("EXTNAME", str("SCI"))},
                tree.array(DType::numeric(c.kind, order), {6},
                           order == ByteOrder::kBig ? c.big : c.little));
      fitsasdf::ConversionReport report;
      const std::string fits = to_fits(tree, dir, "image", &report);
      const std::string want(c.big.begin(), c.big.end());
      CHECK(fits.substr(2880, want.size()) == want);
      CHECK(fits.substr(2880 + want.size(), 2880 - want.size()) ==
            std::string(2880 - want.size(), '\0'));
      const std::size_t second = next_hdu(fits, 0, want.size());
      CHECK(cards_at(fits, second)[0] == "XTENSION= 'IMAGE   '");
      CHECK(fits.substr(second + 2880, want.size()) == want);
      CHECK(fits.size() == second + 2 * 2880);
      REQUIRE(report.hdus.size() == 2);
      CHECK(report.hdus[1].name == "SCI");
    }
  }
}

TEST_CASE("to_fits: unsigned integers from a BZERO offset get their sign bits back", "[to_fits]") {
  TempDir dir;
  FitsTree tree;
  const auto image = [&](int bitpix, const std::string& bzero, DTypeKind kind,
                         std::vector<std::uint8_t> bytes, std::size_t n) {
    NodePtr zero = Node::make_integer_text(bzero);
    std::vector<NodePtr> cards{
        card(tree.root()->get("fits")->size() == 0 ? "SIMPLE" : "XTENSION",
             tree.root()->get("fits")->size() == 0 ? flag(true) : str("IMAGE")),
        card("BITPIX", num(bitpix)), card("NAXIS", num(1)),
        card("NAXIS1", num(static_cast<std::int64_t>(n)))};
    if (tree.root()->get("fits")->size() > 0) {
      cards.push_back(card("PCOUNT", num(0)));
      cards.push_back(card("GCOUNT", num(1)));
    }
    cards.push_back(card("BSCALE", num(1)));
    cards.push_back(card("BZERO", zero));
    tree.item(cards, tree.array(DType::numeric(kind, ByteOrder::kLittle), {n}, std::move(bytes)));
  };
  image(16, "32768", DTypeKind::kUInt16,
        bytes_of<std::uint16_t>({0, 1, 32768, 65535}, ByteOrder::kLittle), 4);
  image(8, "-128", DTypeKind::kInt8, bytes_of<std::int8_t>({-128, -1, 0, 127}, ByteOrder::kLittle),
        4);
  image(32, "2147483648", DTypeKind::kUInt32,
        bytes_of<std::uint32_t>({0, 4294967295u, 2147483648u, 5}, ByteOrder::kLittle), 4);
  image(64, "9223372036854775808", DTypeKind::kUInt64,
        bytes_of<std::uint64_t>({0, ~0ull, 1ull << 63, 5}, ByteOrder::kLittle), 4);
  const std::string fits = to_fits(tree, dir, "unsigned");
  std::size_t at = 0;
  const std::vector<std::string> want{
      std::string("\x80\x00\x80\x01\x00\x00\x7f\xff", 8), std::string("\x00\x7f\x80\xff", 4),
      std::string("\x80\x00\x00\x00\x7f\xff\xff\xff\x00\x00\x00\x00\x80\x00\x00\x05", 16),
      std::string("\x80\x00\x00\x00\x00\x00\x00\x00\x7f\xff\xff\xff\xff\xff\xff\xff"
                  "\x00\x00\x00\x00\x00\x00\x00\x00\x80\x00\x00\x00\x00\x00\x00\x05",
                  32)};
  for (const auto& w : want) {
    CHECK(fits.substr(at + 2880, w.size()) == w);
    at = next_hdu(fits, at, w.size());
  }
  CHECK(at == fits.size());
}

TEST_CASE("to_fits: physical values go back to the stored integers when they are exact",
          "[to_fits]") {
  TempDir dir;
  // BITPIX 16, BSCALE 0.5, BZERO 10: stored -2, 0, 3 and BLANK -32768 read as float32 9, 10,
  // 11.5 and NaN.
  const auto make = [](std::vector<float> physical) {
    FitsTree tree;
    tree.item({card("SIMPLE", flag(true)), card("BITPIX", num(16)), card("NAXIS", num(1)),
               card("NAXIS1", num(static_cast<std::int64_t>(physical.size()))),
               card("BSCALE", real(0.5)), card("BZERO", real(10.0)), card("BLANK", num(-32768))},
              tree.array(DType::numeric(DTypeKind::kFloat32, ByteOrder::kLittle), {physical.size()},
                         bytes_of<float>(physical, ByteOrder::kLittle)));
    return tree;
  };
  fitsasdf::ConversionReport report;
  std::string fits = to_fits(make({9.0f, 10.0f, 11.5f, NAN}), dir, "exact", &report);
  CHECK(fits.substr(2880, 8) == std::string("\xff\xfe\x00\x00\x00\x03\x80\x00", 8));
  CHECK(cards_at(fits)[1] == "BITPIX  =                   16");
  REQUIRE(report.hdus.size() == 1);
  CHECK(report.hdus[0].notes ==
        std::vector<std::string>{"physical values turned back into the stored values (exact)"});

  // 10.3 is no stored value times 0.5 plus 10: the floats are written as they are.
  fits = to_fits(make({9.0f, 10.3f, 11.5f, NAN}), dir, "edited", &report);
  const std::vector<std::string> cards = cards_at(fits);
  REQUIRE(cards.size() == 4);
  CHECK(cards[1] == "BITPIX  =                  -32");
  CHECK(fits.substr(2880, 16) ==
        std::string(reinterpret_cast<const char*>(
                        bytes_of<float>({9.0f, 10.3f, 11.5f, NAN}, ByteOrder::kBig).data()),
                    16));
  REQUIRE(report.hdus[0].notes.size() == 1);
  CHECK(report.hdus[0].notes[0].find("BSCALE, BZERO, BLANK removed") != std::string::npos);
}

TEST_CASE("to_fits: raw HDUs are written as their bytes", "[to_fits]") {
  TempDir dir;
  FitsTree tree;
  std::vector<NodePtr> primary = empty_primary();
  primary.push_back(card("EXTEND", flag(true)));
  tree.item(primary);
  NodePtr item =
      tree.item({card("XTENSION", str("FOREIGN")), card("BITPIX", num(8)), card("NAXIS", num(1)),
                 card("NAXIS1", num(5)), card("PCOUNT", num(0)), card("GCOUNT", num(1))});
  item->set("raw_data",
            tree.array(DType::numeric(DTypeKind::kUInt8), {5}, big(std::string("hello"))));
  fitsasdf::ConversionReport report;
  const std::string fits = to_fits(tree, dir, "raw", &report);
  CHECK(fits.size() == 3 * 2880);
  CHECK(cards_at(fits, 2880)[0] == "XTENSION= 'FOREIGN '");
  CHECK(fits.substr(2 * 2880, 5) == "hello");
  REQUIRE(report.hdus.size() == 2);
  CHECK(report.hdus[1].kind == "raw");
}

TEST_CASE("to_fits: CHECKSUM and DATASUM are computed, keeping their comments", "[to_fits]") {
  TempDir dir;
  FitsTree tree;
  tree.item({card("SIMPLE", flag(true)), card("BITPIX", num(16)), card("NAXIS", num(1)),
             card("NAXIS1", num(3)), card("CHECKSUM", str("stale"), "HDU checksum"),
             card("DATASUM", str("1"), "data unit checksum")},
            tree.array(DType::numeric(DTypeKind::kInt16, ByteOrder::kBig), {3},
                       bytes_of<std::int16_t>({1, 2, 3}, ByteOrder::kBig)));
  const std::string fits = to_fits(tree, dir, "sums");
  const std::vector<std::string> cards = cards_at(fits);
  REQUIRE(cards.size() == 6);
  // The data words 0x00010002 and 0x00030000 sum to 262146.
  CHECK(cards[5] == "DATASUM = '262146  '           / data unit checksum");
  CHECK(cards[4].starts_with("CHECKSUM= '"));
  CHECK(cards[4].substr(27) == "'   / HDU checksum");
  CHECK(cards[4].substr(11, 16).find_first_not_of(
            "0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz") ==
        std::string::npos);

  // add_checksums gives every HDU the cards.
  FitsTree plain;
  plain.item(empty_primary());
  const std::string with = to_fits(plain, dir, "added", nullptr, {false, true});
  const std::vector<std::string> added = cards_at(with);
  REQUIRE(added.size() == 5);
  CHECK(added[3].starts_with("CHECKSUM= '"));
  CHECK(added[3].ends_with("/ HDU checksum"));
  CHECK(added[4] == "DATASUM = '0       '           / data unit checksum");
}

TEST_CASE("to_fits: refusals name the file, the item and what is wrong", "[to_fits]") {
  TempDir dir;
  const fs::path out = dir / "out.fits";
  const auto convert = [&](const FitsTree& tree, const std::string& name) {
    const fs::path asdf = dir / (name + ".asdf");
    tree.write(asdf);
    return [asdf, out]() {
      fitsasdf::convert_asdf_to_fits(asdf.string(), out.string(), {false, false});
    };
  };
  {
    FitsTree tree;
    tree.item({card("SIMPLE", flag(true)), card("BITPIX", num(16)), card("NAXIS", num(2)),
               card("NAXIS1", num(3)), card("NAXIS2", num(2))},
              tree.array(DType::numeric(DTypeKind::kInt16, ByteOrder::kBig), {3, 2},
                         std::vector<std::uint8_t>(12)));
    expect_error(convert(tree, "shape"), ErrorCode::kMalformed,
                 {"shape.asdf", "HDU 1", "/fits/0", "[2, 3]", "[3, 2]"});
  }
  {
    FitsTree tree;
    tree.item({card("SIMPLE", flag(true)), card("BITPIX", num(16)), card("NAXIS", num(1)),
               card("NAXIS1", num(2))},
              tree.array(DType::numeric(DTypeKind::kInt32, ByteOrder::kBig), {2},
                         std::vector<std::uint8_t>(8)));
    expect_error(convert(tree, "type"), ErrorCode::kMalformed, {"BITPIX = 16", "int32"});
  }
  {
    FitsTree tree;
    tree.item({card("SIMPLE", flag(true)), card("BITPIX", num(16)), card("NAXIS", num(1)),
               card("NAXIS1", num(2))});
    expect_error(convert(tree, "nodata"), ErrorCode::kMalformed, {"4 bytes", "no `data`"});
  }
  {
    FitsTree tree;
    std::vector<NodePtr> cards = empty_primary();
    tree.item(cards);
    tree.item({card("BITPIX", num(8)), card("NAXIS", num(0))});
    expect_error(convert(tree, "order"), ErrorCode::kMalformed, {"HDU 2", "XTENSION"});
  }
  {
    FitsTree tree;
    std::vector<NodePtr> cards = empty_primary();
    cards.push_back(card("WHAT", Node::make_mapping()));
    tree.item(cards);
    expect_error(convert(tree, "value"), ErrorCode::kMalformed, {"card 4", "WHAT", "a mapping"});
  }
  {
    // Fuzz finding 24: CFITSIO 4.2 reads a compressed image's BLANK back as an integer and
    // aborts the process reporting a value of 29 characters or more that is not one.
    FitsTree tree;
    tree.item(empty_primary());
    NodePtr item =
        tree.item({card("XTENSION", str("IMAGE")), card("BITPIX", num(16)), card("NAXIS", num(2)),
                   card("NAXIS1", num(3)), card("NAXIS2", num(2)), card("PCOUNT", num(0)),
                   card("GCOUNT", num(1)), card("BLANK", str(std::string(40, 'X')))},
                  tree.array(DType::numeric(DTypeKind::kInt16, ByteOrder::kBig), {2, 3},
                             std::vector<std::uint8_t>(12)));
    NodePtr compressed = Node::make_sequence();
    for (const auto& c : {card("ZIMAGE", flag(true)), card("ZCMPTYPE", str("RICE_1")),
                          card("ZTILE1", num(3)), card("ZTILE2", num(1))}) {
      compressed->push_back(c);
    }
    item->set("compressed_header", compressed);
    expect_error(convert(tree, "blank"), ErrorCode::kMalformed,
                 {"blank.asdf", "HDU 2", "BLANK is not a number"});
    CHECK_FALSE(fs::exists(out));
  }
  {
    // Fuzz finding 25: asked to compress an image of no axes, CFITSIO 4.2 made a plain one and
    // then set its scaling through a null pointer (SIGSEGV).
    FitsTree tree;
    NodePtr item = tree.item(empty_primary());
    NodePtr compressed = Node::make_sequence();
    for (const auto& c : {card("ZIMAGE", flag(true)), card("ZCMPTYPE", str("GZIP_2"))}) {
      compressed->push_back(c);
    }
    item->set("compressed_header", compressed);
    expect_error(convert(tree, "noaxes"), ErrorCode::kMalformed,
                 {"noaxes.asdf", "HDU 1", "at least one axis"});
    CHECK_FALSE(fs::exists(out));
  }
  {
    FitsTree tree;
    std::vector<NodePtr> cards = empty_primary();
    cards.push_back(card("NAN", real(NAN)));
    tree.item(cards);
    expect_error(convert(tree, "nan"), ErrorCode::kMalformed, {"card 4", "NaN"});
  }
  {
    FitsTree tree;
    std::vector<NodePtr> cards = empty_primary();
    cards.push_back(card("TEXT", str("caf\xc3\xa9")));
    tree.item(cards);
    expect_error(convert(tree, "ascii"), ErrorCode::kMalformed, {"card 4", "printable ASCII"});
  }
  {
    FitsTree tree;
    tree.item(empty_primary());
    NodePtr item =
        tree.item({card("XTENSION", str("FOREIGN")), card("BITPIX", num(8)), card("NAXIS", num(1)),
                   card("NAXIS1", num(5)), card("PCOUNT", num(0)), card("GCOUNT", num(1))});
    item->set("raw_data",
              tree.array(DType::numeric(DTypeKind::kUInt8), {3}, big(std::string("abc"))));
    expect_error(convert(tree, "raw"), ErrorCode::kMalformed, {"HDU 2", "3 bytes", "5"});
  }
  {
    FitsTree tree;
    NodePtr item = tree.item(empty_primary());
    NodePtr images = Node::make_mapping();
    images->entries().emplace_back(num(9), str("X"));
    item->set("card_images", images);
    expect_error(convert(tree, "images"), ErrorCode::kMalformed, {"card index", "0 to 3"});
  }
  {
    // A column name of 70 digits is written unquoted, and CFITSIO 4.2 aborts the process reading
    // it (fuzz finding 9): not written. The same card in an image HDU harms no reader.
    const NodePtr digits = Node::make_integer_text(std::string(70, '7'));
    FitsTree tree;
    tree.item(empty_primary());
    tree.item({card("XTENSION", str("BINTABLE")), card("BITPIX", num(8)), card("NAXIS", num(2)),
               card("NAXIS1", num(0)), card("NAXIS2", num(0)), card("PCOUNT", num(0)),
               card("GCOUNT", num(1)), card("TFIELDS", num(1)), card("TTYPE1", digits),
               card("TFORM1", str("0A"))});
    expect_error(convert(tree, "name"), ErrorCode::kMalformed,
                 {"HDU 2", "card 9", "TTYPE1", "unquoted in 70 characters", "as a string"});
    FitsTree image;
    std::vector<NodePtr> cards = empty_primary();
    cards.push_back(card("TTYPE1", digits));
    image.item(cards);
    const std::string fits = to_fits(image, dir, "image_name");
    CHECK(fits.find("TTYPE1  = " + std::string(70, '7')) != std::string::npos);
  }
  CHECK_FALSE(fs::exists(out));  // nothing left behind by a refusal
}

TEST_CASE("to_fits: a binary table from a table of columns (core/table)", "[to_fits]") {
  TempDir dir;
  FitsTree tree;
  tree.item(empty_primary());
  const auto column = [](const std::string& name, NodePtr data) {
    NodePtr c = Node::make_mapping();
    c->set_tag("tag:stsci.edu:asdf/core/column-1.0.0");
    c->set("name", str(name));
    c->set("data", data);
    return c;
  };
  NodePtr table = Node::make_mapping();
  table->set_tag("tag:stsci.edu:asdf/core/table-1.0.0");
  NodePtr columns = Node::make_sequence();
  // Given in another order than the header's: matched by name.
  columns->push_back(column(
      "ok", tree.array(DType::numeric(DTypeKind::kBool8), {2}, std::vector<std::uint8_t>{1, 0})));
  columns->push_back(
      column("id", tree.array(DType::numeric(DTypeKind::kUInt16, ByteOrder::kLittle), {2},
                              bytes_of<std::uint16_t>({1, 65535}, ByteOrder::kLittle))));
  columns->push_back(
      column("name", tree.array(DType::ascii(3), {2}, big(std::string("abxyz\0", 6)))));
  table->set("columns", columns);
  tree.item({card("XTENSION", str("BINTABLE")), card("BITPIX", num(8)), card("NAXIS", num(2)),
             card("NAXIS1", num(8)), card("NAXIS2", num(2)), card("PCOUNT", num(0)),
             card("GCOUNT", num(1)), card("TFIELDS", num(3)), card("TTYPE1", str("ID")),
             card("TFORM1", str("I")), card("TZERO1", num(32768)), card("TTYPE2", str("name")),
             card("TFORM2", str("5A")), card("TTYPE3", str("ok")), card("TFORM3", str("L"))},
            table);
  fitsasdf::ConversionReport report;
  const std::string fits = to_fits(tree, dir, "columns", &report);
  REQUIRE(report.hdus.size() == 2);
  CHECK(report.hdus[1].kind == "binary table (from table columns)");
  const std::size_t data = next_hdu(fits, 0, 0) + 2880;
  CHECK(fits.substr(data, 16) == std::string("\x80\x01"
                                             "abx\0\0"
                                             "T"
                                             "\x7f\xff"
                                             "yz\0\0\0"
                                             "F",
                                             16));
}

TEST_CASE("to_fits: a tree's table whose columns have no names gets colN names",
          "[to_fits][asdf_in_fits]") {
  // The schemas require a column name; such a table still converts, its unnamed columns named
  // colN (N from 1) in TTYPEn. A core/table of core/column mappings, and an astropy table of
  // bare arrays without colnames.
  const bool astropy = GENERATE(false, true);
  CAPTURE(astropy);
  const fitsasdf::test::WritesUnvalidated unvalidated;
  TempDir dir;
  FitsTree tree;
  tree.root()->erase("fits");
  const NodePtr ids = tree.array(DType::numeric(DTypeKind::kInt16, ByteOrder::kBig), {3},
                                 bytes_of<std::int16_t>({1, 2, 3}, ByteOrder::kBig));
  const NodePtr flux = tree.array(DType::numeric(DTypeKind::kInt32, ByteOrder::kBig), {3},
                                  bytes_of<std::int32_t>({10, 20, 30}, ByteOrder::kBig));
  NodePtr table = Node::make_mapping();
  NodePtr columns = Node::make_sequence();
  if (astropy) {
    table->set_tag("tag:astropy.org:astropy/table/table-1.0.0");
    columns->push_back(ids);
    columns->push_back(flux);
  } else {
    table->set_tag("tag:stsci.edu:asdf/core/table-1.0.0");
    NodePtr unnamed = Node::make_mapping();
    unnamed->set_tag("tag:stsci.edu:asdf/core/column-1.0.0");
    unnamed->set("data", ids);
    NodePtr named = Node::make_mapping();
    named->set_tag("tag:stsci.edu:asdf/core/column-1.0.0");
    named->set("name", str("flux"));
    named->set("data", flux);
    columns->push_back(unnamed);
    columns->push_back(named);
  }
  table->set("columns", columns);
  tree.root()->set("tab", table);
  fitsasdf::ConversionReport report;
  const std::string fits = to_fits(tree, dir, "unnamed", &report);
  REQUIRE(report.hdus.size() == 3);
  CHECK(report.hdus[1].kind == "binary table (from table columns)");
  const std::size_t at = fits.find("XTENSION= 'BINTABLE'");
  REQUIRE(at != std::string::npos);
  const std::string header = fits.substr(at, next_hdu(fits, at, 0) - at);
  CHECK(header.find("TTYPE1  = 'col1    '") != std::string::npos);
  CHECK(header.find(astropy ? "TTYPE2  = 'col2    '" : "TTYPE2  = 'flux    '") !=
        std::string::npos);
  CHECK(fits.substr(next_hdu(fits, at, 0), 12) ==
        std::string("\0\x01\0\0\0\x0a\0\x02\0\0\0\x14", 12));
}
