// Build a tree with metadata and two arrays and write it as an ASDF file.
//   write_file OUT.asdf
// The science image is borrowed (no copy: it must stay alive until write() returns), the
// data-quality image is handed over and compressed with zlib. python asdf opens the result
// with validation on and no warning.
#include <asdfcore/asdfcore.h>

#include <iostream>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: write_file OUT.asdf\n";
    return 2;
  }
  const std::uint64_t ny = 128, nx = 256;
  std::vector<float> sci(ny * nx);
  for (std::uint64_t i = 0; i < sci.size(); ++i) sci[i] = static_cast<float>(i % nx) * 0.5f;
  std::vector<std::uint16_t> dq(ny * nx, 0);
  dq[0] = 1;  // one flagged pixel

  try {
    asdfcore::Tree tree;
    tree["meta"]["telescope"] = "JWST";
    tree["meta"]["instrument"]["name"] = "NIRCAM";
    tree["meta"]["exposure"]["exptime"] = 12.5;
    tree["meta"]["exposure"]["ngroups"] = 4;
    tree["meta"]["history"] = std::vector<std::string>{"made by samples/cpp/write_file.cc"};
    tree["sci"] = asdfcore::Array::view(std::span<const float>(sci), {ny, nx});
    tree["dq"] = asdfcore::Array::take(std::move(dq), {ny, nx}).compression("zlib");
    asdfcore::write(argv[1], tree);
    std::cout << "wrote " << argv[1] << ": sci float32 (" << ny << ", " << nx
              << "), dq uint16 zlib, 5 metadata values\n";
  } catch (const asdfcore::Error& e) {
    std::cerr << "write_file: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
