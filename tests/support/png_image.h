#pragma once
// A PNG file decoded with libpng into 8-bit RGB, for tests that check pictures (fitsasdf
// preview's, the HTML report's screenshot).
#include <png.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <vector>

#include "support/catch.h"

namespace fitsasdf::test {

/// A decoded picture.
struct Png {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  std::vector<std::uint8_t> rgb;  ///< Top row first.

  /// The pixel at column `x`, row `y` (0 is the top row).
  std::array<std::uint8_t, 3> at(std::uint32_t x, std::uint32_t y) const {
    const std::size_t i = (static_cast<std::size_t>(y) * width + x) * 3;
    return {rgb[i], rgb[i + 1], rgb[i + 2]};
  }
};

/// Decode the PNG file `path` (REQUIRE fails when libpng cannot).
inline Png decode_png(const std::filesystem::path& path) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  REQUIRE(png_image_begin_read_from_file(&image, path.c_str()) != 0);
  image.format = PNG_FORMAT_RGB;
  Png out;
  out.width = image.width;
  out.height = image.height;
  out.rgb.resize(PNG_IMAGE_SIZE(image));
  REQUIRE(png_image_finish_read(&image, nullptr, out.rgb.data(), 0, nullptr) != 0);
  return out;
}

}  // namespace fitsasdf::test
