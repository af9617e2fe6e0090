// Convert a FITS file to ASDF in process, as a pipeline does without shelling out, then
// check the result without leaving the process either.
//   convert_in_process IN.fits OUT.asdf
#include <asdfcore/asdfcore.h>
#include <fitsasdf/convert.h>
#include <fitsasdf/verify.h>

#include <iostream>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: convert_in_process IN.fits OUT.asdf\n";
    return 2;
  }
  try {
    fitsasdf::ConvertOptions options;
    options.compression = "zlib";
    const fitsasdf::ConversionReport report = fitsasdf::convert_fits_to_asdf(argv[1], argv[2], options);
    for (const fitsasdf::HduReport& hdu : report.hdus) {
      std::cout << "HDU " << hdu.index << " " << hdu.name << ": " << hdu.kind << "\n";
    }
    std::cout << report.bytes_in << " bytes in, " << report.bytes_out << " bytes out, "
              << report.all_findings().size() << " findings\n";

    // Read the result back through the ASDF library: the first HDU's header cards.
    const asdfcore::File asdf = asdfcore::File::open(argv[2]);
    std::cout << asdf.at("/fits/0/header").size() << " cards in the primary header\n";

    // And check that the ASDF file gives the FITS file back, card for card and byte for byte.
    const fitsasdf::VerifyReport check = fitsasdf::verify_pair(argv[1], argv[2]);
    std::cout << (check.equivalent() ? "round trip: identical" : "round trip: DIFFERENT") << "\n";
    return check.equivalent() ? 0 : 1;
  } catch (const asdfcore::Error& e) {
    std::cerr << "convert_in_process: " << e.what() << "\n";
    return 1;
  }
}
