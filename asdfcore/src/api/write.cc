// Writing a built tree: plan it, then hand tree and blocks to the layout writer.
#include "asdfcore/write.h"

#include <stdlib.h>  // mkdtemp

#include <filesystem>
#include <fstream>

#include "api/write_plan.h"

namespace asdfcore {

void write(const std::string& path, const Tree& tree, const WriteOptions& options) {
  try {
    const WritePlan plan = plan_write(tree, options, false);
    write_asdf(path, plan.root, plan.blocks, layout_options(options));
  } catch (const Error& e) {
    throw e.with_context(ErrorContext{.file = path});
  }
}

std::vector<std::uint8_t> write_to_memory(const Tree& tree, const WriteOptions& options) {
  namespace fs = std::filesystem;
  std::string folder = (fs::temp_directory_path() / "asdfcore-XXXXXX").string();
  if (mkdtemp(folder.data()) == nullptr) {
    throw Error(ErrorCode::kIo, "cannot make a temporary folder to write the file in",
                ErrorContext{.file = folder});
  }
  struct Cleanup {
    std::string folder;
    ~Cleanup() {
      std::error_code ignored;
      fs::remove_all(folder, ignored);
    }
  } cleanup{folder};
  const std::string path = folder + "/tree.asdf";
  WriteOptions quick = options;
  quick.durable = false;
  write(path, tree, quick);
  std::ifstream in(path, std::ios::binary);
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) {
    throw Error(ErrorCode::kIo, "cannot read back the written file", ErrorContext{.file = path});
  }
  return bytes;
}

}  // namespace asdfcore
