#pragma once
// A legacy tree read as today's: tags of the 0.1.0 era mapped to their 1.0.0 versions, `dtype:`
// of ndarrays read as `datatype:`.

#include "asdfcore/format/legacy.h"
#include "asdfcore/tree/node.h"

namespace asdfcore::format::legacy {

// Return the 1.0.0 tag for a tag of the 0.1.0 era (`tag:stsci.edu:asdf/0.1.0/core/ndarray`,
// `tag:stsci.edu:asdf/core/ndarray-0.1.0`), or `tag` itself.
std::string modern_tag(const std::string& tag);

// Rewrite the tree under `root` in place, recording what changed in `info`.
void upgrade_tree(const tree::NodePtr& root, LegacyInfo& info);

}  // namespace asdfcore::format::legacy
