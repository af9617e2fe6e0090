// HDUs of kinds the FITS standard does not define: an extension with a foreign XTENSION value
// (astropy's NonstandardExtHDU) and a SIMPLE = F primary (astropy's _NonstandardHDU, whose data
// is every byte after its header). Their cards and data bytes are carried as they are (`data`,
// uint8, as astropy reads them), the report says so, and ASDF -> FITS gives the same file back,
// byte for byte. Files written before (`raw_data` beside `data: null`) still convert back.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "asdfcore/asdf_file.h"
#include "asdfcore/asdf_writer.h"
#include "asdfcore/ndarray/ndarray.h"
#include "fitsasdf/convert.h"
#include "fitsasdf/to_fits.h"
#include "support/catch.h"
#include "support/fits_builder.h"
#include "support/scoped_env.h"
#include "support/temp_dir.h"

using namespace fitsasdf::test;
namespace fb = fitsasdf::test::fits_builder;

namespace {

std::string read_all(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Convert `fits` to ASDF and back in `dir`; return the report and check the bytes come back.
fitsasdf::ConversionReport round_trip(const TempDir& dir, const std::string& fits) {
  const auto in = dir / "in.fits";
  std::ofstream(in, std::ios::binary) << fits;
  const auto asdf = dir / "in.asdf";
  std::filesystem::remove(asdf);
  fitsasdf::ConvertOptions options;
  options.durable = false;
  const fitsasdf::ConversionReport report =
      fitsasdf::convert_fits_to_asdf(in.string(), asdf.string(), options);
  const auto back = dir / "back.fits";
  std::filesystem::remove(back);
  fitsasdf::convert_asdf_to_fits(asdf.string(), back.string(), {false, false});
  CHECK(read_all(back) == fits);
  return report;
}

std::string payload(std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += static_cast<char>(i * 11 + 1);
  return out;
}

}  // namespace

TEST_CASE("a foreign XTENSION is carried as cards and uint8 data and comes back byte for byte",
          "[raw_hdu]") {
  TempDir dir;
  const std::string bytes = payload(3 * 7);
  const std::string fits =
      fb::hdu({fb::card("SIMPLE", "T"), fb::card("BITPIX", "8"), fb::card("NAXIS", "0"),
               fb::card("EXTEND", "T")},
              "") +
      fb::hdu({fb::card("XTENSION", "'FOREIGN '", "an extension type FITS does not define"),
               fb::card("BITPIX", "8"), fb::card("NAXIS", "2"), fb::card("NAXIS1", "7"),
               fb::card("NAXIS2", "3"), fb::card("PCOUNT", "0"), fb::card("GCOUNT", "1")},
              bytes);
  const auto report = round_trip(dir, fits);
  REQUIRE(report.hdus.size() == 2);
  CHECK(report.hdus[1].kind == "raw");
  REQUIRE(report.hdus[1].findings.size() == 1);
  CHECK(report.hdus[1].findings[0].code == "foreign-extension");
  CHECK(report.hdus[1].findings[0].hdu == 2);

  const auto file = asdfcore::AsdfFile::open((dir / "in.asdf").string());
  const auto item = file.tree()->get("fits")->items()[1];
  CHECK_FALSE(item->get("raw_data"));
  const auto data = file.array(*item->get("data"), "/fits/1/data");
  CHECK(data.dtype().name() == "uint8");
  CHECK(data.shape() == std::vector<std::uint64_t>{21});
  const auto got = data.to_c_order(asdfcore::ndarray::ByteOrder::kBig);
  CHECK(std::string(got.begin(), got.end()) == bytes);

  SECTION("with no data: an empty array (asdf-astropy builds an HDU from every item's data)") {
    const std::string empty =
        fb::hdu({fb::card("SIMPLE", "T"), fb::card("BITPIX", "8"), fb::card("NAXIS", "0")}, "") +
        fb::hdu({fb::card("XTENSION", "'ASDF    '"), fb::card("BITPIX", "8"),
                 fb::card("NAXIS", "0"), fb::card("PCOUNT", "0"), fb::card("GCOUNT", "1")},
                "");
    round_trip(dir, empty);
    const auto f = asdfcore::AsdfFile::open((dir / "in.asdf").string());
    const auto d = f.array(*f.tree()->get("fits")->items()[1]->get("data"), "/fits/1/data");
    CHECK(d.shape() == std::vector<std::uint64_t>{0});
  }
  SECTION("with PCOUNT and GCOUNT: |BITPIX| * GCOUNT * (PCOUNT + NAXIS1 * ...) / 8 bytes") {
    const std::string dump =
        fb::hdu({fb::card("SIMPLE", "T"), fb::card("BITPIX", "8"), fb::card("NAXIS", "0")}, "") +
        fb::hdu({fb::card("XTENSION", "'DUMP    '"), fb::card("BITPIX", "16"),
                 fb::card("NAXIS", "1"), fb::card("NAXIS1", "5"), fb::card("PCOUNT", "3"),
                 fb::card("GCOUNT", "2")},
                payload(32));
    round_trip(dir, dump);
  }
}

TEST_CASE("a SIMPLE = F primary keeps every byte after its header as uint8 data", "[raw_hdu]") {
  TempDir dir;
  const std::string header =
      fb::header({fb::card("SIMPLE", "F", "not standard FITS"), fb::card("BITPIX", "16"),
                  fb::card("NAXIS", "1"), fb::card("NAXIS1", "10")});
  for (const std::size_t n : {std::size_t{0}, std::size_t{37}, std::size_t{2880},
                              std::size_t{6000}}) {
    INFO(n);
    // The bytes after the header need not be what the header declares, nor whole blocks; an
    // XTENSION among them is data too.
    std::string rest = payload(n);
    if (n > 2880 + 8) rest.replace(2880, 8, "XTENSION");
    const auto report = round_trip(dir, header + rest);
    REQUIRE(report.hdus.size() == 1);
    CHECK(report.hdus[0].kind == "raw");
    REQUIRE(report.hdus[0].findings.size() == 1);
    CHECK(report.hdus[0].findings[0].code == "simple-false");
    CHECK(report.findings.empty());  // nothing "after the last HDU": it is the data
    const auto file = asdfcore::AsdfFile::open((dir / "in.asdf").string());
    const auto data = file.array(*file.tree()->get("fits")->items()[0]->get("data"));
    CHECK(data.shape() == std::vector<std::uint64_t>{n});
  }
}

TEST_CASE("older outputs with `raw_data` beside `data: null` still convert back", "[raw_hdu]") {
  // Those outputs broke the fits schema (its HDU items allow no `raw_data`): made here with
  // the write-time validation off, as the older writer made them.
  const WritesUnvalidated unvalidated;
  TempDir dir;
  const std::string bytes = payload(12);
  const std::string fits =
      fb::hdu({fb::card("SIMPLE", "T"), fb::card("BITPIX", "8"), fb::card("NAXIS", "0")}, "") +
      fb::hdu({fb::card("XTENSION", "'IUEIMAGE'"), fb::card("BITPIX", "8"),
               fb::card("NAXIS", "1"), fb::card("NAXIS1", "12"), fb::card("PCOUNT", "0"),
               fb::card("GCOUNT", "1")},
              bytes);
  // The tree as fitsasdf wrote it before: raw_data beside data: null.
  using asdfcore::tree::Node;
  const auto header_list = [](std::vector<std::vector<std::string>> rows) {
    auto list = Node::make_sequence();
    for (const auto& r : rows) {
      auto card = Node::make_sequence();
      card->push_back(Node::make_string(r[0]));
      if (r[0] == "SIMPLE") {
        card->push_back(Node::make_bool(true));
      } else if (r[1].front() == '\'') {
        card->push_back(Node::make_string(r[1].substr(1)));
      } else {
        card->push_back(Node::make_int(std::stoll(r[1])));
      }
      list->push_back(card);
    }
    return list;
  };
  auto primary = Node::make_mapping();
  primary->set("header", header_list({{"SIMPLE", "T"}, {"BITPIX", "8"}, {"NAXIS", "0"}}));
  primary->set("data", Node::make_null());
  auto foreign = Node::make_mapping();
  foreign->set("header", header_list({{"XTENSION", "'IUEIMAGE"},
                                      {"BITPIX", "8"},
                                      {"NAXIS", "1"},
                                      {"NAXIS1", "12"},
                                      {"PCOUNT", "0"},
                                      {"GCOUNT", "1"}}));
  foreign->set("data", Node::make_null());
  asdfcore::ndarray::NDArrayNodeSpec spec;
  spec.dtype = asdfcore::ndarray::DType::numeric(asdfcore::ndarray::DTypeKind::kUInt8);
  spec.shape = {12};
  spec.source = 0;
  foreign->set("raw_data", asdfcore::ndarray::make_ndarray_node(spec));
  auto list = Node::make_sequence();
  list->set_tag("tag:stsci.edu:asdf/fits/fits-1.0.0");
  list->push_back(primary);
  list->push_back(foreign);
  auto root = Node::make_mapping();
  root->set("fits", list);
  asdfcore::format::BlockToWrite block;
  block.pieces.push_back(std::span<const std::uint8_t>(
      reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
  const auto asdf = dir / "old.asdf";
  const std::vector<asdfcore::format::BlockToWrite> blocks{block};
  asdfcore::write_asdf(asdf.string(), root, blocks);
  const auto back = dir / "back.fits";
  fitsasdf::convert_asdf_to_fits(asdf.string(), back.string(), {false, false});
  CHECK(read_all(back) == fits);
}
