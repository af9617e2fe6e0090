// PNG encoding with libpng's simplified API (png_image_write_to_memory), which reports errors
// in the image's message instead of jumping out of the caller: 8-bit RGB, rows top first.
#include "preview/png_writer.h"

#include <png.h>

#include <vector>

#include "asdfcore/error.h"
#include "asdfcore/io/atomic_file.h"
#include "fitsasdf/preview.h"

namespace fitsasdf {

std::vector<std::uint8_t> encode_png(std::span<const std::uint8_t> rgb, std::uint32_t width,
                                     std::uint32_t height) {
  if (width == 0 || height == 0 ||
      rgb.size() != static_cast<std::uint64_t>(width) * height * 3) {
    throw asdfcore::Error(asdfcore::ErrorCode::kInvalidArgument,
                          "a PNG of " + std::to_string(width) + " x " + std::to_string(height) +
                              " RGB pixels needs " +
                              std::to_string(static_cast<std::uint64_t>(width) * height * 3) +
                              " bytes, not " + std::to_string(rgb.size()));
  }
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width = width;
  image.height = height;
  image.format = PNG_FORMAT_RGB;
  png_alloc_size_t size = 0;
  // The first call measures, the second writes.
  if (!png_image_write_to_memory(&image, nullptr, &size, 0, rgb.data(), 0, nullptr)) {
    const std::string message = image.message;
    png_image_free(&image);
    throw asdfcore::Error(asdfcore::ErrorCode::kIo, "libpng cannot encode the picture: " +
                                                        message);
  }
  std::vector<std::uint8_t> png(size);
  if (!png_image_write_to_memory(&image, png.data(), &size, 0, rgb.data(), 0, nullptr)) {
    const std::string message = image.message;
    png_image_free(&image);
    throw asdfcore::Error(asdfcore::ErrorCode::kIo, "libpng cannot encode the picture: " +
                                                        message);
  }
  png.resize(size);
  return png;
}

namespace preview_impl {

void write_png_file(const std::string& path, std::span<const std::uint8_t> png, bool durable,
                    bool replace) {
  asdfcore::io::AtomicFile out(path, durable);
  out.write(png);
  out.commit(replace);
}

}  // namespace preview_impl
}  // namespace fitsasdf
