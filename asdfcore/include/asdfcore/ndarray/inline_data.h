#pragma once
/// \file
/// Writing an array's values into the tree (`data:` as nested lists), as python asdf does with
/// inline array storage.

#include "asdfcore/ndarray/ndarray.h"
#include "asdfcore/tree/node.h"

namespace asdfcore::ndarray {

/// Return the elements of `array` as nested sequences following its shape: integers, floats
/// (float16 widened), booleans, strings (ASCII as bytes decoded one byte per character, UCS-4
/// as UTF-8, trailing NULs dropped), complex numbers as `core/complex-1.0.0` tagged strings,
/// records as sequences of their fields (a sub-array field as lists nested by its shape, like
/// numpy's `tolist()`). Throws `Error` (limit) when the array holds more than `max_elements`
/// elements.
tree::NodePtr to_inline_data(const NDArray& array, std::uint64_t max_elements = 10'000'000);

}  // namespace asdfcore::ndarray
