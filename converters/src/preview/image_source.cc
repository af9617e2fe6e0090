#include "preview/image_source.h"

#include "asdfcore/error.h"

namespace fitsasdf::preview_impl {

std::vector<std::uint64_t> choose_plane(const std::vector<std::uint64_t>& shape,
                                        const std::optional<std::uint64_t>& plane,
                                        const std::string& where) {
  std::vector<std::uint64_t> index;
  if (shape.size() < 3) {
    if (plane) {
      throw asdfcore::Error(asdfcore::ErrorCode::kInvalidArgument,
                            where + " is a 2-D image; a plane can be chosen only in a cube");
    }
    return index;
  }
  for (std::size_t axis = 0; axis + 2 < shape.size(); ++axis) {
    std::uint64_t k = (shape[axis] - 1) / 2;
    if (axis == 0 && plane) {
      if (*plane >= shape[0]) {
        throw asdfcore::Error(asdfcore::ErrorCode::kInvalidArgument,
                              where + " has " + std::to_string(shape[0]) +
                                  " planes along its slowest axis; there is no plane " +
                                  std::to_string(*plane) + " (planes count from 0)");
      }
      k = *plane;
    }
    index.push_back(k);
  }
  return index;
}

}  // namespace fitsasdf::preview_impl
