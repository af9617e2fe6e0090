// The README's example: read a JWST-like file's metadata and arrays by path and type, then
// write a new file with metadata and two arrays.   readme_example IN.asdf OUT.asdf
#include <asdfcore/asdfcore.h>

#include <iostream>

int main(int argc, char** argv) try {
  if (argc != 3) return std::cerr << "usage: readme_example IN.asdf OUT.asdf\n", 2;
  const asdfcore::File in = asdfcore::File::open(argv[1]);
  const auto exptime = in.get<double>("/meta/exposure/exptime");
  const auto name = in.get<std::string>("/meta/instrument/name");
  const auto sci = in.array<float>("/data");           // zero-copy view of the mapping
  const auto dq = in.array_as<std::uint32_t>("/dq");   // checked conversion
  std::cout << name << " " << exptime << " s, data " << sci.shape()[0] << "x" << sci.shape()[1]
            << ", data[32,32] = " << sci(32, 32) << ", dq[0,0] = " << dq(0, 0) << "\n";

  asdfcore::Tree out;
  out["meta"]["instrument"]["name"] = name;
  out["meta"]["exposure"]["exptime"] = exptime;
  out["sci"] = asdfcore::Array::copy(sci.span(), sci.shape());
  out["dq"] = asdfcore::Array::copy(dq.span(), dq.shape()).compression("zlib");
  asdfcore::write(argv[2], out);
} catch (const asdfcore::Error& e) {
  std::cerr << e.what() << "\n";
  return 1;
}
