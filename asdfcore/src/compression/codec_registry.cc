#include <string>

#include "asdfcore/compression/codec.h"

namespace asdfcore::compression {

CodecRegistry CodecRegistry::with_builtins() {
  CodecRegistry registry;
  registry.add(make_zlib_codec());
  registry.add(make_bzp2_codec());
  registry.add(make_lz4_codec());
  return registry;
}

void CodecRegistry::add(std::shared_ptr<const Codec> codec) {
  if (codec) codecs_.push_back(std::move(codec));
}

const Codec* CodecRegistry::find(std::string_view label) const noexcept {
  while (!label.empty() && label.back() == '\0') label.remove_suffix(1);
  for (const auto& codec : codecs_) {
    if (codec->label() == label) return codec.get();
  }
  return nullptr;
}

std::vector<std::string> CodecRegistry::labels() const {
  std::vector<std::string> out;
  for (const auto& codec : codecs_) out.emplace_back(codec->label());
  return out;
}

}  // namespace asdfcore::compression
