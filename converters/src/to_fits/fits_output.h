#pragma once
// Writing planned HDUs one after another into the output file: the header, the data unit in
// pieces (padded to 2880 bytes), and CHECKSUM/DATASUM computed on the way and patched into the
// header once the data is written.
#include <cstdint>
#include <string>

#include "asdfcore/io/atomic_file.h"
#include "progress/meter.h"
#include "to_fits/hdu_plan.h"

namespace fitsasdf::to_fits {

/// What writing one HDU gave.
struct WrittenHdu {
  std::uint64_t header_offset = 0;
  std::uint64_t size = 0;           ///< Header and padded data, in bytes.
  std::size_t from_images = 0;      ///< Cards written from their recorded images.
  std::size_t formatted = 0;        ///< Cards formatted afresh.
  std::size_t images_not_used = 0;  ///< Cards formatted afresh although they had an image.
};

/// Write `plan` at the end of `out`. With `checksums` (or when the plan has CHECKSUM or DATASUM
/// cards) the DATASUM card gets the data's sum and the CHECKSUM card the encoded complement of
/// the whole HDU's sum (cards appended when missing, only with `checksums`). Notes go to
/// `plan.report`. Each data byte written is counted on `meter` (when given) as it goes out.
/// Throws `asdfcore::Error` when the data writer gives more or fewer bytes than planned, or the
/// output cannot be written, and whatever `meter` throws.
WrittenHdu write_hdu(asdfcore::io::AtomicFile& out, HduPlan& plan, bool checksums,
                     progress::Meter* meter = nullptr);

}  // namespace fitsasdf::to_fits
