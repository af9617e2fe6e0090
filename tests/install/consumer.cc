// Converts a FITS file to ASDF through the installed library and opens the result again:
// `consumer IN.fits OUT.asdf` prints the HDU count and the ASDF file's block count.
// The one source all four install tests build (find_package and pkg-config, static and shared
// libraries); tests/install/consume.sh checks that it prints "<n> HDUs, <m> blocks".
#include <iostream>

#include "asdfcore/asdf_file.h"
#include "asdfcore/error.h"
#include "fitsasdf/convert.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: consumer IN.fits OUT.asdf\n";
    return 4;
  }
  try {
    const fitsasdf::ConversionReport report = fitsasdf::convert_fits_to_asdf(argv[1], argv[2]);
    const asdfcore::AsdfFile file = asdfcore::AsdfFile::open(argv[2]);
    std::cout << report.hdus.size() << " HDUs, " << file.container().blocks().size()
              << " blocks\n";
  } catch (const asdfcore::Error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  return 0;
}
