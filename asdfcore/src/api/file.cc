// The front door for reading: a shared, immutable open file handing out values and views.
#include "asdfcore/file.h"

namespace asdfcore {

File File::open(const std::string& path, const OpenOptions& options) {
  return File(std::make_shared<const AsdfFile>(AsdfFile::open(path, options)));
}

File File::open_memory(std::vector<std::uint8_t> bytes, const std::string& name,
                       const OpenOptions& options) {
  return File(std::make_shared<const AsdfFile>(
      AsdfFile::open_bytes(io::Buffer::from_vector(std::move(bytes)), name, options)));
}

File File::from(AsdfFile file) { return File(std::make_shared<const AsdfFile>(std::move(file))); }

Value File::root() const { return Value(file_, file_->tree(), ""); }

}  // namespace asdfcore
