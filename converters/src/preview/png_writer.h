#pragma once
// Writing a preview's PNG (libpng's simplified API, in memory) to its file atomically.
#include <cstdint>
#include <span>
#include <string>

namespace fitsasdf::preview_impl {

/// Write `png` (a whole PNG file) to `path` through a temporary file renamed into place
/// (`asdfcore::io::AtomicFile`), flushed first when `durable`. Throws `asdfcore::Error` (io).
void write_png_file(const std::string& path, std::span<const std::uint8_t> png, bool durable,
                    bool replace);

}  // namespace fitsasdf::preview_impl
