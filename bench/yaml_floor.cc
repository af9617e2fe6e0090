// The floor of the bench's "read 5000 arrays" job set by libyaml: parse the ASDF file's tree
// (from "--- " to the "..." that ends it) into libyaml's events and do nothing with them, as
// the cheapest reader built on libyaml would. Prints the tree's size, the events and the time.
//
// Usage: fitsasdf_bench_yaml_floor FILE.asdf
#include <yaml.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fitsasdf_bench_yaml_floor FILE.asdf\n");
    return 4;
  }
  // Read up to the end of the tree only: the blocks after it (a GiB on the bench's large read
  // job) are not the parser's business.
  std::ifstream in(argv[1], std::ios::binary);
  std::string file;
  std::size_t begin = std::string::npos;
  std::size_t end = std::string::npos;
  char chunk[1 << 16];
  while (end == std::string::npos && in.read(chunk, sizeof chunk).gcount() > 0) {
    const std::size_t scanned = file.size() < 4 ? 0 : file.size() - 4;
    file.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (begin == std::string::npos) begin = file.find("--- ");
    if (begin != std::string::npos) end = file.find("\n...\n", std::max(begin, scanned));
  }
  const auto start = std::chrono::steady_clock::now();
  if (begin == std::string::npos || end == std::string::npos) {
    std::fprintf(stderr, "fitsasdf_bench_yaml_floor: no tree in %s\n", argv[1]);
    return 2;
  }
  yaml_parser_t parser;
  yaml_parser_initialize(&parser);
  const std::string_view tree(file.data() + begin, end + 5 - begin);
  yaml_parser_set_input_string(&parser, reinterpret_cast<const unsigned char*>(tree.data()),
                               tree.size());
  long events = 0;
  for (bool done = false; !done; ++events) {
    yaml_event_t event;
    if (!yaml_parser_parse(&parser, &event)) {
      std::fprintf(stderr, "fitsasdf_bench_yaml_floor: libyaml: %s\n", parser.problem);
      yaml_parser_delete(&parser);
      return 2;
    }
    done = event.type == YAML_STREAM_END_EVENT;
    yaml_event_delete(&event);
  }
  yaml_parser_delete(&parser);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::printf("tree of %zu bytes, %ld events; libyaml parse %.1f ms\n", tree.size(), events, ms);
  return 0;
}
