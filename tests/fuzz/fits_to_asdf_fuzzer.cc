// Fuzz target: FITS bytes in, conversion to ASDF (every HDU kind: images, tile-compressed
// images and tables, binary and ASCII tables, random groups, foreign extensions, ASDF-in-FITS).
// The converter reads a path, so the input goes to this process's scratch folder in /dev/shm
// and the output next to it; both are removed after each run.
#include <cstddef>
#include <cstdint>

#include "asdfcore/error.h"
#include "fitsasdf/convert.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto& dir = fuzz::scratch_dir();
  fuzz::allowed_prefix = dir.string();
  const auto input = dir / "input.fits";
  if (!fuzz::write_file(input, data, size)) return 0;
  {
    const fuzz::TargetScope scope;
    fitsasdf::ConvertOptions options;
    options.durable = false;
    options.embedded_tree = true;  // as the command line does
    // Far below the run's 2 GB RSS limit: the library's default (8 GiB) lets CFITSIO
    // decompress a 2 GB image, which is allowed, not a finding. 16 MiB still reaches every
    // code path (the inputs are at most 128 KiB) and keeps each run short: a cap hit is the
    // same limit error whatever its size.
    options.limits.max_memory = std::uint64_t{16} << 20;
    options.threads = 1;  // no worker threads to start and join for every input
    try {
      (void)fitsasdf::convert_fits_to_asdf(input.string(), (dir / "output.asdf").string(),
                                           options);
    } catch (const asdfcore::Error&) {
    }
  }
  fuzz::clean_scratch();
  return 0;
}
