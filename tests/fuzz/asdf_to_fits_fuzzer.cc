// Fuzz target: ASDF bytes in, conversion to FITS (a fits list written back HDU by HDU, or any
// other tree written as images, tables and an ASDF extension). The converter reads a path, so
// the input goes to this process's scratch folder in /dev/shm and the output next to it; both
// are removed after each run. References may reach only that folder.
#include <cstddef>
#include <cstdint>

#include "asdfcore/error.h"
#include "fitsasdf/to_fits.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto& dir = fuzz::scratch_dir();
  fuzz::allowed_prefix = dir.string();
  const auto input = dir / "input.asdf";
  if (!fuzz::write_file(input, data, size)) return 0;
  {
    const fuzz::TargetScope scope;
    fitsasdf::AsdfToFitsOptions options;
    options.durable = false;
    // Blocks and arrays of up to 16 MiB reach every code path (the inputs are at most 64 KiB);
    // larger ones would only make the run slower with the same limit error.
    options.limits.max_memory = std::uint64_t{16} << 20;
    try {
      (void)fitsasdf::convert_asdf_to_fits(input.string(), (dir / "output.fits").string(),
                                           options);
    } catch (const asdfcore::Error&) {
    }
  }
  fuzz::clean_scratch();
  return 0;
}
