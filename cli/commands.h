#pragma once
// One function per subcommand. Each receives the arguments after the subcommand's name and
// returns the exit status; errors propagate as exceptions to main().
#include <string>
#include <vector>

namespace fitsasdf::cli {

/// A subcommand: its name, a one-line summary, and its entry point.
struct Command {
  const char* name;
  const char* summary;
  int (*run)(const std::vector<std::string>& args);
};

/// `fitsasdf convert IN [-o OUT]`: FITS to ASDF.
int run_convert(const std::vector<std::string>& args);
/// `fitsasdf batch INPUT... -o OUTDIR`: many conversions, in parallel, resumable.
int run_batch(const std::vector<std::string>& args);
/// `fitsasdf extract IN.fits [-o OUT.asdf]`: the ASDF file embedded in a FITS file.
int run_extract(const std::vector<std::string>& args);
/// `fitsasdf info FILE [--blocks] [--json]`; of a FITS file, `[--header[=HDU]] [--json]`.
int run_info(const std::vector<std::string>& args);
/// `fitsasdf to-yaml IN -o OUT`: every array inlined into the tree.
int run_to_yaml(const std::vector<std::string>& args);
/// `fitsasdf defragment IN -o OUT [--compress C]`.
int run_defragment(const std::vector<std::string>& args);
/// `fitsasdf explode IN -o OUT`: tree file plus one file per block.
int run_explode(const std::vector<std::string>& args);
/// `fitsasdf implode IN -o OUT`: an exploded file back into one.
int run_implode(const std::vector<std::string>& args);
/// `fitsasdf verify IN.fits [B.asdf]`: round-trip verification.
int run_verify(const std::vector<std::string>& args);
/// `fitsasdf edit FILE --set P=V --delete P --history T`: update a file's tree in place.
int run_edit(const std::vector<std::string>& args);
/// `fitsasdf validate FILE...`: layout, blocks, checksums, arrays, references and schemas.
int run_validate(const std::vector<std::string>& args);
/// `fitsasdf preview IN -o OUT.png`: a quick-look PNG of one image.
int run_preview(const std::vector<std::string>& args);
/// `fitsasdf report REPORT.jsonl... --html OUT.html`: a batch report as an HTML page.
int run_report(const std::vector<std::string>& args);
/// `fitsasdf diff A B`: the differences between two FITS or two ASDF files.
int run_diff(const std::vector<std::string>& args);

}  // namespace fitsasdf::cli
