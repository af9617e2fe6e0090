// Write a cube frame by frame, as an instrument pipeline does, without ever holding it whole.
//   stream_cube OUT.asdf [FRAMES]      (default: 100 frames of 64 x 64 float32)
// The cube is the file's streamed block: its first dimension grows with every frame, and the
// file appears under its name only when close() succeeds.
#include <asdfcore/asdfcore.h>

#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::cerr << "usage: stream_cube OUT.asdf [FRAMES]\n";
    return 2;
  }
  const int frames = argc == 3 ? std::stoi(argv[2]) : 100;
  const std::uint64_t ny = 64, nx = 64;
  try {
    asdfcore::Tree tree;
    tree["meta"]["detector"] = "NRCA1";
    tree["meta"]["frame_time"] = 10.737;
    tree["cube"] = asdfcore::Array::streamed<float>({ny, nx});
    asdfcore::StreamWriter out(argv[1], tree);

    std::vector<float> frame(ny * nx);
    for (int f = 0; f < frames; ++f) {
      for (std::uint64_t i = 0; i < frame.size(); ++i) frame[i] = static_cast<float>(f) + 0.001f * static_cast<float>(i);
      out.append(std::span<const float>(frame));  // one frame; any split would do
    }
    out.close();
    std::cout << "wrote " << argv[1] << ": cube (" << frames << ", " << ny << ", " << nx
              << ") float32, " << out.bytes_appended() << " bytes streamed\n";
  } catch (const asdfcore::Error& e) {
    std::cerr << "stream_cube: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
