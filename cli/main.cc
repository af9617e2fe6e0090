// fitsasdf: the command-line entry point. Parses the subcommand, runs it, and turns every
// error into one line on stderr and a documented exit status (see exit_codes.h).
#include <malloc.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "asdfcore/error.h"
#include "asdfcore/version.h"
#include "commands.h"
#include "exit_codes.h"

namespace po = boost::program_options;
using fitsasdf::cli::Command;

namespace {

const Command kCommands[] = {
    {"convert", "convert FITS to ASDF or ASDF to FITS (every card, every pixel, units, tables)",
     fitsasdf::cli::run_convert},
    {"batch", "convert many files and folders in parallel; failures recorded, resumable",
     fitsasdf::cli::run_batch},
    {"extract", "write the ASDF file embedded in a FITS file (JWST, AsdfInFits) on its own",
     fitsasdf::cli::run_extract},
    {"info", "show an ASDF file (tree, arrays, --blocks) or a FITS file's HDUs (--header: cards)",
     fitsasdf::cli::run_info},
    {"to-yaml", "write an ASDF file with every array inlined into the tree",
     fitsasdf::cli::run_to_yaml},
    {"defragment", "rewrite an ASDF file compactly, optionally recompressing its blocks",
     fitsasdf::cli::run_defragment},
    {"explode", "split an ASDF file into a tree file and one file per block",
     fitsasdf::cli::run_explode},
    {"implode", "join an exploded ASDF file back into one file", fitsasdf::cli::run_implode},
    {"edit", "change an ASDF file's tree in place (set, delete, history), crash-safe",
     fitsasdf::cli::run_edit},
    {"validate", "check that ASDF files are sound: layout, blocks, checksums, arrays, schemas",
     fitsasdf::cli::run_validate},
    {"verify", "check that FITS -> ASDF -> FITS gives the FITS file back (or compare a pair)",
     fitsasdf::cli::run_verify},
    {"preview", "write a quick-look PNG of an image (zscale, asinh, NaN in red, downsampled)",
     fitsasdf::cli::run_preview},
    {"report", "make a browsable HTML page of batch reports (failures, thumbnails, sortable)",
     fitsasdf::cli::run_report},
    {"diff", "show the differences between two FITS or two ASDF files (like fitsdiff)",
     fitsasdf::cli::run_diff},
};

void print_help(std::ostream& out) {
  out << "Usage: fitsasdf <command> [options]\n"
         "       fitsasdf --version | --help\n\n"
         "Convert astronomical data between FITS and ASDF, and inspect both.\n\n"
         "Commands:\n";
  std::size_t width = 0;
  for (const auto& c : kCommands) width = std::max(width, std::string_view(c.name).size());
  for (const auto& c : kCommands) {
    out << "  " << c.name << std::string(width - std::string_view(c.name).size() + 2, ' ')
        << c.summary << "\n";
  }
  out << "\nRun `fitsasdf <command> --help` (or `fitsasdf help <command>`) for a command's "
         "options.\n"
         "Exit status: 0 ok, 1 differences or failed files, 2 invalid input, 3 I/O error,\n"
         "4 usage error, 5 internal error, 130 batch interrupted (run it again to resume).\n";
}

}  // namespace

int main(int argc, char** argv) {
  using namespace fitsasdf::cli;
  // No fast bins in glibc's allocator (the per-thread cache still serves small blocks): trees of
  // many nodes freed between larger allocations made malloc consolidate its fast bins over and
  // over (12% of a 100,000-array ASDF -> FITS conversion in malloc_consolidate). Measured:
  // that conversion 15.0-16.6 s -> 12.6-13.2 s, 10,000 arrays 1.11-1.22 s -> 0.96-1.07 s,
  // small files and batches unchanged within noise (bench/README.md, issue 28).
#ifdef M_MXFAST
  mallopt(M_MXFAST, 0);
#endif
  try {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) {
      print_help(std::cerr);
      return kExitUsage;
    }
    const std::string& first = args.front();
    if (first == "--version" || first == "-V") {
      std::cout << "fitsasdf " << asdfcore::kVersion << "\n";
      return kExitOk;
    }
    if (first == "help" && args.size() == 2) {
      // `fitsasdf help COMMAND` is `fitsasdf COMMAND --help`.
      for (const auto& c : kCommands) {
        if (args[1] == c.name) return c.run({"--help"});
      }
      std::cerr << "fitsasdf: unknown command '" << args[1] << "' (see fitsasdf --help)\n";
      return kExitUsage;
    }
    if (first == "--help" || first == "-h" || first == "help") {
      print_help(std::cout);
      return kExitOk;
    }
    for (const auto& c : kCommands) {
      if (first == c.name) return c.run(std::vector<std::string>(args.begin() + 1, args.end()));
    }
    std::cerr << "fitsasdf: unknown command '" << first << "' (see fitsasdf --help)\n";
    return kExitUsage;
  } catch (const asdfcore::Error& e) {
    std::string line = e.what();
    for (char& ch : line) {
      if (ch == '\n' || ch == '\r') ch = ' ';
    }
    std::cerr << "fitsasdf: error [" << asdfcore::error_code_name(e.code()) << "]: " << line
              << "\n";
    return exit_code_for(e.code());
  } catch (const po::error& e) {
    std::cerr << "fitsasdf: " << e.what() << " (see --help)\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "fitsasdf: internal error: " << e.what() << "\n";
    return kExitInternal;
  }
}
