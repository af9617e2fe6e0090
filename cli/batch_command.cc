// `fitsasdf batch INPUT... -o OUTDIR`: convert many files (folders recursed, lists read) with a
// pool of worker threads. Each file's direction comes from its content, as in `convert`; a file
// that fails is recorded and the batch goes on; outputs that already exist and are complete are
// skipped, so running the same command again resumes an interrupted batch; --shard K/N keeps a
// stable 1/N of the inputs for cluster job arrays.
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "asdfcore/asdf_file.h"
#include "asdfcore/error.h"
#include "command_line.h"
#include "commands.h"
#include "conversion_options.h"
#include "exit_codes.h"
#include "fits/fits_file.h"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace fitsasdf::cli {
namespace {

/// One input: where it is and its path relative to the root it was found under (the file name
/// for a file given by itself), which names its output and decides its shard.
struct Item {
  fs::path input;
  fs::path relative;
  bool asdf_input = false;  ///< Set once sharded: the direction, told by content.
  fs::path output;          ///< Set once sharded.
  std::string clash;        ///< Why the input is refused (another input has the same output).
};

/// The 64-bit FNV-1a hash of `bytes`: fixed, so shards are the same on every build and machine.
std::uint64_t fnv1a(const std::string& bytes) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

/// Add `root` to `items`: a folder's regular files (recursed, sorted by relative path; the
/// folder `skip`, the output folder, left out), or the file itself.
void collect(const fs::path& root, const fs::path& skip, std::vector<Item>& items) {
  if (fs::is_directory(root)) {
    std::vector<Item> found;
    for (auto it =
             fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied);
         it != fs::recursive_directory_iterator(); ++it) {
      const auto& entry = *it;
      std::error_code ec;
      if (entry.is_directory() && fs::equivalent(entry.path(), skip, ec)) {
        it.disable_recursion_pending();
      } else if (entry.is_regular_file()) {
        found.push_back({entry.path(), entry.path().lexically_relative(root)});
      }
    }
    std::sort(found.begin(), found.end(),
              [](const Item& a, const Item& b) { return a.relative < b.relative; });
    items.insert(items.end(), found.begin(), found.end());
  } else {
    // A missing or unreadable file is kept: its conversion fails and says why.
    items.push_back({root, root.filename()});
  }
}

/// Read the paths of a --from list ("-" for standard input), one a line, blank lines skipped.
std::vector<std::string> read_list(const std::string& name) {
  std::ifstream file;
  std::istream* in = &std::cin;
  if (name != "-") {
    file.open(name);
    if (!file) {
      throw asdfcore::Error(asdfcore::ErrorCode::kIo, "cannot read the list of inputs",
                            asdfcore::ErrorContext{.file = name});
    }
    in = &file;
  }
  std::vector<std::string> paths;
  std::string line;
  while (std::getline(*in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) paths.push_back(line);
  }
  return paths;
}

/// Parse "K/N" (0 <= K < N).
std::pair<std::uint64_t, std::uint64_t> parse_shard(const std::string& value) {
  const auto slash = value.find('/');
  try {
    if (slash != std::string::npos) {
      std::size_t used_k = 0;
      std::size_t used_n = 0;
      const auto k = std::stoull(value.substr(0, slash), &used_k);
      const auto n = std::stoull(value.substr(slash + 1), &used_n);
      if (used_k == slash && used_n == value.size() - slash - 1 && n > 0 && k < n) {
        return {k, n};
      }
    }
  } catch (const std::exception&) {
  }
  throw po::error("--shard takes K/N with 0 <= K < N (as 3/100), not '" + value + "'");
}

/// True when `output` is a complete conversion result: an ASDF file whose layout has no
/// problem and whose blocks all read (and match their MD5 when they have one), or a FITS file whose
/// last HDU is whole. Checked, not assumed from the name.
bool complete(const fs::path& output, bool asdf_output) {
  try {
    if (asdf_output) {
      asdfcore::OpenOptions open;
      open.verify_checksums = true;  // blocks that carry an MD5 must match it
      const auto file = asdfcore::AsdfFile::open(output.string(), open);
      if (!file.container().problems().empty()) return false;
      for (const auto& block : file.container().blocks()) {
        if (!block.problem.empty()) return false;
      }
      const auto& blocks = file.blocks();
      const auto count = static_cast<std::int64_t>(blocks.block_count());
      for (std::int64_t i = 0; i < count; ++i) (void)blocks.block(i);
      return true;
    }
    const auto file = fits::FitsFile::open(output.string());
    return !file.hdus().empty() && file.hdus().back().data_end <= file.bytes().size();
  } catch (const std::exception&) {
    return false;
  }
}

/// True when `output` exists, is not older than `input` and is complete.
bool up_to_date(const fs::path& input, const fs::path& output, bool asdf_output) {
  std::error_code ec;
  if (!fs::is_regular_file(output, ec)) return false;
  const auto out_time = fs::last_write_time(output, ec);
  if (ec) return false;
  const auto in_time = fs::last_write_time(input, ec);
  if (ec || out_time < in_time) return false;
  return complete(output, asdf_output);
}

/// The JSON report, one line per input as it finishes, flushed at once.
class Report {
 public:
  Report(const std::string& path, bool quiet) : quiet_(quiet) {
    if (path.empty()) return;
    out_.open(path, std::ios::app);
    if (!out_) {
      throw asdfcore::Error(asdfcore::ErrorCode::kIo, "cannot open the report for writing",
                            asdfcore::ErrorContext{.file = path});
    }
  }
  /// Write `line` to the report; a failure is also said on stderr unless quiet.
  void write(const nlohmann::ordered_json& line) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!quiet_ && line.value("status", "") == "failed") {
      std::cerr << "fitsasdf batch: failed: " << line["error"].get<std::string>() << "\n";
    }
    if (!out_.is_open()) return;
    out_ << line.dump() << "\n";
    out_.flush();
  }

 private:
  bool quiet_ = false;
  std::ofstream out_;
  std::mutex mutex_;
};

struct Counts {
  std::atomic<std::size_t> ok{0};
  std::atomic<std::size_t> failed{0};
  std::atomic<std::size_t> skipped{0};
  std::atomic<std::uint64_t> bytes_in{0};
  std::atomic<std::uint64_t> bytes_out{0};
};

std::uint64_t size_or_zero(const fs::path& path) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  return ec ? 0 : size;
}

/// Convert (or skip) one input and record the result.
void process(const Item& item, const ConvertOptions& to_asdf, const AsdfToFitsOptions& to_fits,
             Report& report, Counts& counts) {
  const auto start = std::chrono::steady_clock::now();
  const bool asdf_input = item.asdf_input;
  const fs::path& output = item.output;
  std::string status = "ok";
  std::string error;
  std::uint64_t bytes_out = 0;
  const std::uint64_t bytes_in = size_or_zero(item.input);
  try {
    if (!item.clash.empty()) {
      throw asdfcore::Error(asdfcore::ErrorCode::kInvalidArgument, item.clash,
                            asdfcore::ErrorContext{.file = item.input.string()});
    }
    if (up_to_date(item.input, output, !asdf_input)) {
      status = "skipped";
      bytes_out = size_or_zero(output);
    } else {
      fs::create_directories(output.parent_path());
      const ConversionReport r =
          asdf_input ? convert_asdf_to_fits(item.input.string(), output.string(), to_fits)
                     : convert_fits_to_asdf(item.input.string(), output.string(), to_asdf);
      bytes_out = r.bytes_out;
    }
  } catch (const asdfcore::Error& e) {
    status = "failed";
    error = "[" + std::string(asdfcore::error_code_name(e.code())) + "] " + e.what();
  } catch (const std::exception& e) {  // a folder that cannot be made, memory
    status = "failed";
    error = e.what();
  }
  for (char& ch : error) {  // one line on stderr
    if (ch == '\n' || ch == '\r') ch = ' ';
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  (status == "ok" ? counts.ok : status == "skipped" ? counts.skipped : counts.failed)++;
  counts.bytes_in += bytes_in;
  counts.bytes_out += bytes_out;
  nlohmann::ordered_json line;
  line["input"] = item.input.string();
  line["output"] = output.string();
  line["status"] = status;
  line["error"] = error;
  line["bytes_in"] = bytes_in;
  line["bytes_out"] = bytes_out;
  line["seconds"] = seconds;
  report.write(line);
}

}  // namespace

int run_batch(const std::vector<std::string>& args) {
  po::options_description opts(
      "fitsasdf batch INPUT... -o OUTDIR [options]\n"
      "Convert files and folders (recursed): FITS to ASDF, ASDF to FITS, by content. Outputs\n"
      "mirror the inputs' paths under OUTDIR; complete outputs are skipped (resume)");
  opts.add_options()("help,h", "show this help")("output,o", po::value<std::string>(),
                                                 "the folder to write the outputs into")(
      "from", po::value<std::vector<std::string>>(),
      "read input paths from this file, one a line (- for standard input)")(
      "jobs,j", po::value<unsigned>()->default_value(0), "worker threads (0: the number of cores)")(
      "report", po::value<std::string>(),
      "append one JSON line per input and a summary line to this file")(
      "shard", po::value<std::string>(), "K/N: convert only the inputs of shard K of N")(
      "quiet,q", "print nothing on stderr (no failures, no summary)")(
      "inputs", po::value<std::vector<std::string>>(), "files and folders to convert");
  add_conversion_options(opts);
  po::variables_map vm;
  if (!parse_command_line(args, opts, "inputs", vm, -1)) return kExitOk;
  if (!vm.count("output")) throw po::error("fitsasdf batch needs an output folder (-o OUTDIR)");
  std::vector<std::string> roots = values_of(vm, "inputs");
  for (const auto& list : values_of(vm, "from")) {
    const auto paths = read_list(list);
    roots.insert(roots.end(), paths.begin(), paths.end());
  }
  if (roots.empty()) throw po::error("fitsasdf batch needs inputs (files, folders or --from)");
  const ConvertOptions to_asdf = fits_to_asdf_options(vm);
  const AsdfToFitsOptions to_fits = asdf_to_fits_options(vm);
  std::optional<std::pair<std::uint64_t, std::uint64_t>> shard;
  if (vm.count("shard")) shard = parse_shard(vm["shard"].as<std::string>());

  const fs::path outdir = vm["output"].as<std::string>();
  std::error_code ec;
  fs::create_directories(outdir, ec);
  if (ec || !fs::is_directory(outdir)) {
    throw asdfcore::Error(asdfcore::ErrorCode::kIo,
                          "cannot create the output folder: " + ec.message(),
                          asdfcore::ErrorContext{.file = outdir.string()});
  }

  std::vector<Item> items;
  for (const auto& root : roots) collect(root, outdir, items);
  if (shard) {
    std::erase_if(items, [&](const Item& item) {
      return fnv1a(item.relative.generic_string()) % shard->second != shard->first;
    });
  }
  // Directions and outputs, in list order: of two inputs with the same output the first wins.
  std::map<fs::path, const Item*> claimed;
  for (auto& item : items) {
    item.asdf_input = is_asdf(item.input.string());
    item.output = (outdir / (item.asdf_input ? default_fits_name(item.relative.string())
                                             : default_output(item.relative.string())))
                      .lexically_normal();
    const auto [at, fresh] = claimed.emplace(item.output, &item);
    if (!fresh) {
      item.clash = "its output " + item.output.string() + " is the output of " +
                   at->second->input.string() + " already; convert it on its own";
    }
  }
  Report report(vm.count("report") ? vm["report"].as<std::string>() : std::string(),
                vm.count("quiet") > 0);

  unsigned jobs = vm["jobs"].as<unsigned>();
  if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<std::size_t>(jobs, std::max<std::size_t>(1, items.size())));

  const auto start = std::chrono::steady_clock::now();
  Counts counts;
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < items.size(); i = next++) {
      process(items[i], to_asdf, to_fits, report, counts);
    }
  };
  std::vector<std::jthread> pool;
  for (unsigned t = 1; t < jobs; ++t) pool.emplace_back(worker);
  worker();
  pool.clear();  // joins

  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  nlohmann::ordered_json summary;
  summary["summary"] = true;
  summary["inputs"] = items.size();
  summary["ok"] = counts.ok.load();
  summary["failed"] = counts.failed.load();
  summary["skipped"] = counts.skipped.load();
  summary["bytes_in"] = counts.bytes_in.load();
  summary["bytes_out"] = counts.bytes_out.load();
  summary["seconds"] = seconds;
  report.write(summary);
  if (!vm.count("quiet")) {
    std::cerr << "fitsasdf batch: " << items.size() << " inputs: " << counts.ok << " converted, "
              << counts.skipped << " skipped (complete), " << counts.failed << " failed"
              << " in " << seconds << " s\n";
  }
  return counts.failed ? kExitDifferent : kExitOk;
}

}  // namespace fitsasdf::cli
