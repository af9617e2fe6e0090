// Fuzz target: the whole ASDF reader on bytes in memory. Opens the file, lists and decodes every
// block (checksums checked), walks the tree, reads every ndarray (blocks, inline data, views,
// masks) and resolves the `$ref`s. The file's name lies in a folder that does not exist, and any
// open() outside it is a crash: external references and blocks must stay inside the file's
// folder.
#include <cstddef>
#include <cstdint>
#include <set>
#include <vector>

#include "asdfcore/asdf_file.h"
#include "asdfcore/error.h"
#include "asdfcore/tree/walk.h"
#include "fuzz_support.h"

namespace {

constexpr char kJail[] = "/nonexistent-fitsasdf-fuzz-jail";
// Per decoded block or array copy: the inputs are at most 64 KiB, and a cap hit is the same
// limit error whatever its size, so a small cap costs no code path and keeps each run short.
constexpr std::uint64_t kMaxBytes = std::uint64_t{4} << 20;
constexpr std::size_t kMaxArrays = 64;

void read_arrays(const asdfcore::AsdfFile& file, const asdfcore::tree::NodePtr& root) {
  std::set<const asdfcore::tree::Node*> seen;
  asdfcore::tree::walk(root, [&](const asdfcore::tree::NodePtr& node, const std::string& path) {
    if (seen.size() >= kMaxArrays) return false;
    if (!asdfcore::tree::is_ndarray(*node) || !seen.insert(node.get()).second) return true;
    try {
      const asdfcore::ndarray::NDArray array = file.array(*node, path);
      if (array.nbytes() <= kMaxBytes) {
        (void)array.to_c_order(asdfcore::ndarray::ByteOrder::kBig, kMaxBytes);
        (void)array.md5_le();
        (void)array.contiguous_view();
        (void)array.masked_count();
      }
    } catch (const asdfcore::Error&) {
    }
    return false;
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::allowed_prefix = kJail;
  const fuzz::TargetScope scope;
  asdfcore::OpenOptions options;
  options.verify_checksums = true;
  options.layout.max_block_data_size = kMaxBytes;
  try {
    const asdfcore::AsdfFile file = asdfcore::AsdfFile::open_bytes(
        asdfcore::io::Buffer::from_vector(std::vector<std::uint8_t>(data, data + size)),
        std::string(kJail) + "/input.asdf", options);
    const asdfcore::format::Container& container = file.container();
    for (std::size_t i = 0; i < container.blocks().size(); ++i) {
      try {
        (void)container.check(i);
        (void)container.data(i, true);
      } catch (const asdfcore::Error&) {
      }
    }
    (void)file.asdf_standard();
    (void)file.warnings();
    read_arrays(file, file.tree());
    read_arrays(file, file.resolved_tree());
  } catch (const asdfcore::Error&) {
  }
  return 0;
}
