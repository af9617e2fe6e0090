// An extension of a kind fitsasdf does not map (an XTENSION value FITS does not define): its cards and its data
// bytes are carried as they are (`raw_data`), the report says so, and ASDF -> FITS gives the
// same file back, byte for byte.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "asdfcore/asdf_file.h"
#include "asdfcore/ndarray/ndarray.h"
#include "fitsasdf/convert.h"
#include "fitsasdf/to_fits.h"
#include "support/catch.h"
#include "support/fits_builder.h"
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

}  // namespace

TEST_CASE("a foreign XTENSION is carried as cards and raw bytes and comes back byte for byte",
          "[raw_hdu]") {
  TempDir dir;
  std::string payload;
  for (int i = 0; i < 3 * 7; ++i) payload += static_cast<char>(i * 11 + 1);
  const std::string fits =
      fb::hdu({fb::card("SIMPLE", "T"), fb::card("BITPIX", "8"), fb::card("NAXIS", "0"),
               fb::card("EXTEND", "T")},
              "") +
      fb::hdu({fb::card("XTENSION", "'FOREIGN '", "an extension type FITS does not define"),
               fb::card("BITPIX", "8"), fb::card("NAXIS", "2"), fb::card("NAXIS1", "7"),
               fb::card("NAXIS2", "3"), fb::card("PCOUNT", "0"), fb::card("GCOUNT", "1")},
              payload);
  const auto in = dir / "foreign.fits";
  std::ofstream(in, std::ios::binary) << fits;

  const auto asdf = dir / "foreign.asdf";
  fitsasdf::ConvertOptions options;
  options.durable = false;
  const fitsasdf::ConversionReport report =
      fitsasdf::convert_fits_to_asdf(in.string(), asdf.string(), options);
  REQUIRE(report.hdus.size() == 2);
  CHECK(report.hdus[1].kind == "raw");
  REQUIRE_FALSE(report.hdus[1].notes.empty());
  CHECK(report.hdus[1].notes[0] ==
        "XTENSION 'FOREIGN' is not a kind fitsasdf maps to ASDF types: its data bytes are kept "
        "as stored under `raw_data`");

  const auto file = asdfcore::AsdfFile::open(asdf.string());
  const auto item = file.tree()->get("fits")->items()[1];
  CHECK(item->get("data")->is_null());
  const auto raw = file.array(*item->get("raw_data"), "/fits/1/raw_data");
  REQUIRE(raw.nbytes() == payload.size());
  const auto bytes = raw.to_c_order(asdfcore::ndarray::ByteOrder::kBig);
  CHECK(std::string(bytes.begin(), bytes.end()) == payload);

  const auto back = dir / "back.fits";
  fitsasdf::convert_asdf_to_fits(asdf.string(), back.string(), {false, false});
  CHECK(read_all(back) == fits);
}
