// ASDF -> FITS: find the `fits` list, plan each item with the writer of its kind, and write the
// HDUs one after another into a file that appears only when complete.
#include "fitsasdf/to_fits.h"

#include "fitsasdf/asdf_in_fits.h"
#include "fitsasdf/output_names.h"

#include <filesystem>
#include <optional>
#include <set>
#include <utility>

#include "asdfcore/asdf_file.h"
#include "asdfcore/error.h"
#include "asdfcore/io/atomic_file.h"
#include "asdfcore/ndarray/ndarray.h"
#include "asdfcore/tree/walk.h"
#include "embedded/fits_from_tree.h"
#include "progress/meter.h"
#include "to_fits/fits_items.h"
#include "to_fits/fits_list_writer.h"
#include "to_fits/fits_output.h"
#include "to_fits/writers.h"

namespace fitsasdf {
namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::ErrorContext;
using to_fits::CardLookup;
using to_fits::FitsItem;
using to_fits::HduPlan;
using to_fits::ItemInput;

std::string hdu_name(const std::vector<to_fits::TreeCard>& cards, int index) {
  const CardLookup lookup(cards);
  std::string name = lookup.string("EXTNAME");
  if (!name.empty()) return name;
  return index == 1 ? "PRIMARY" : "HDU" + std::to_string(index);
}

/// Appends bytes to the output as they come.
class TrailerSink final : public to_fits::DataSink {
 public:
  TrailerSink(asdfcore::io::AtomicFile& out, progress::Meter& meter) : out_(out), meter_(meter) {}
  void write(std::span<const std::uint8_t> bytes) override {
    out_.write(bytes);
    meter_.advance(bytes.size());
  }

 private:
  asdfcore::io::AtomicFile& out_;
  progress::Meter& meter_;
};

HduPlan plan_item(const ItemInput& input) {
  const FitsItem& item = input.item;
  const CardLookup cards(item.header);
  const std::string first = item.header.empty() ? "" : item.header.front().keyword;
  if (item.index == 1 && first != "SIMPLE") {
    throw input.error(
        ErrorCode::kMalformed,
        "the first HDU must be a primary HDU, whose first card is SIMPLE (it is '" + first + "')");
  }
  if (item.index > 1 && first != "XTENSION") {
    throw input.error(ErrorCode::kMalformed,
                      "an extension's first card must be XTENSION (it is '" + first + "')");
  }
  const std::string xtension = cards.string("XTENSION");
  if (item.compressed) {
    return xtension == "BINTABLE" ? to_fits::plan_compressed_table(input)
                                  : to_fits::plan_compressed_image(input);
  }
  const bool standard_xtension = xtension == "IMAGE" || xtension == "BINTABLE" ||
                                 xtension == "TABLE" || xtension == "A3DTABLE";
  if (item.raw_data || to_fits::is_nonstandard_primary(item) ||
      (item.index > 1 && !standard_xtension && item.data)) {
    return to_fits::plan_raw(input);
  }
  const bool column_table =
      item.data && (item.data->tag().starts_with("tag:stsci.edu:asdf/core/table-") ||
                    item.data->tag().starts_with("tag:astropy.org:astropy/table/table-"));
  if (column_table && xtension != "BINTABLE") {
    throw input.error(ErrorCode::kMalformed,
                      "the item's data is a table of columns, which only a BINTABLE extension "
                      "can hold (its header has XTENSION = '" +
                          xtension + "')");
  }
  if (column_table) return to_fits::plan_column_table(input);
  if (xtension == "BINTABLE" || xtension == "A3DTABLE") return to_fits::plan_bintable(input);
  if (xtension == "TABLE") return to_fits::plan_ascii_table(input);
  if (item.index == 1 && cards.flag("GROUPS") && cards.integer("NAXIS1", -1) == 0) {
    return to_fits::plan_groups(input);
  }
  if (item.index > 1 && xtension != "IMAGE") {
    throw input.error(ErrorCode::kMalformed,
                      "XTENSION = '" + xtension +
                          "' with no `data`: an extension the standard does not define needs its "
                          "bytes as a uint8 ndarray");
  }
  return to_fits::plan_image(input);
}

}  // namespace

ConversionReport convert_asdf_to_fits(const std::string& input, const std::string& output,
                                      const AsdfToFitsOptions& options) {
  if (!options.overwrite) refuse_existing_output(output);
  progress::Meter meter(options.control, input);
  asdfcore::OpenOptions open = options.limits.open_options();
  open.verify_checksums = options.verify_checksums;
  open.threads = options.threads;
  asdfcore::AsdfFile file = asdfcore::AsdfFile::open(input, open);
  if (!to_fits::has_fits_list(file.resolved_tree())) {
    // Any other tree: images, tables and cards, with the whole tree in an ASDF extension.
    return embedded::write_asdf_in_fits(std::move(file), input, output, options, meter);
  }
  // Blocks the output did not read (the native view's own blocks, anything else in the tree)
  // are verified too: the output appears only for an input whose checksums all match.
  const auto what = to_fits::read_fits_list(file.resolved_tree(), file.blocks(), input);
  return to_fits::write_fits_list(what, file.blocks(), input, output, options, meter, [&] {
    if (options.verify_checksums) file.verify_unread_checksums();
  });
}

to_fits::FitsListToWrite to_fits::read_fits_list(const asdfcore::tree::NodePtr& root,
                                                 const asdfcore::ndarray::BlockProvider& blocks,
                                                 const std::string& input) {
  FitsListToWrite what{.list = find_fits_list(root, input)};
  if (what.list.path != "/fits") return what;
  // What followed the last HDU's data in the FITS file (its padding as found and any bytes
  // after it), when that was not exactly its padding: written in place of that padding.
  if (const auto t = root->get(kTrailerKey); t && t->is_mapping()) {
    const auto bytes = t->get("bytes");
    const ErrorContext where{.file = input, .tree_path = "/" + std::string(kTrailerKey)};
    if (!bytes || !asdfcore::tree::is_ndarray(*bytes)) {
      throw Error(ErrorCode::kMalformed, "`bytes` must be a uint8 ndarray", where);
    }
    try {
      what.trailer = asdfcore::ndarray::NDArray::from_node(
          *bytes, blocks, where.tree_path + "/bytes", asdfcore::ndarray::NDArray::Load::kDeferred);
    } catch (const Error& e) {
      throw e.with_context(ErrorContext{.file = input, .tree_path = where.tree_path + "/bytes"});
    }
    if (what.trailer->dtype().itemsize() != 1 || !what.trailer->dtype().is_numeric()) {
      throw Error(ErrorCode::kMalformed, "`bytes` must hold bytes (uint8)", where);
    }
  }
  if (const auto stale = root->get(kStaleChecksumsKey); stale && stale->is_sequence()) {
    for (const auto& n : stale->items()) {
      if (n->kind() == asdfcore::tree::NodeKind::kInt) what.stale_checksums.insert(n->as_int());
    }
  }
  return what;
}

ConversionReport to_fits::write_fits_list(const FitsListToWrite& what,
                                          const asdfcore::ndarray::BlockProvider& blocks,
                                          const std::string& input, const std::string& output,
                                          const AsdfToFitsOptions& options,
                                          progress::Meter& meter,
                                          const std::function<void()>& before_commit) {
  const FitsList& list = what.list;
  const std::optional<asdfcore::ndarray::NDArray>& trailer = what.trailer;
  const std::set<long long>& stale_checksums = what.stale_checksums;
  ConversionReport report;
  report.input = input;
  report.output = output;
  report.fits_tag = list.tag;

  // The total: the data bytes each item's header declares (a tile-compressed image's, as
  // decompressed), each item's written bytes mapped onto its share.
  std::vector<std::uint64_t> shares;
  std::uint64_t total = 0;
  for (const FitsItem& item : list.items) {
    std::uint64_t declared = 0;
    try {
      declared = to_fits::declared_data_size(CardLookup(item.header),
                                             ItemInput{blocks, item, ErrorContext{.file = input}});
    } catch (const Error&) {
      // Planning the item reports what is wrong with it.
    }
    declared = std::min(declared, UINT64_MAX - total);
    shares.push_back(declared);
    total += declared;
  }
  if (trailer) total += std::min<std::uint64_t>(trailer->size(), UINT64_MAX - total);
  meter.start(total, static_cast<int>(list.items.size()), "write");
  asdfcore::io::AtomicFile out(output, options.durable);
  for (std::size_t i = 0; i < list.items.size(); ++i) {
    const FitsItem& item = list.items[i];
    const ErrorContext where{.file = input, .tree_path = item.path, .hdu = item.index};
    const ItemInput in{blocks, item, where, options.threads};
    try {
      meter.enter("write", item.index);
      HduPlan plan = plan_item(in);
      meter.share(plan.data_size, shares[i]);
      if (trailer && &item == &list.items.back()) plan.pad = false;
      plan.keep_checksums = stale_checksums.count(item.index) != 0;
      plan.report.index = item.index;
      plan.report.name = hdu_name(item.header, item.index);
      const to_fits::WrittenHdu written =
          to_fits::write_hdu(out, plan, options.add_checksums, &meter);
      meter.close_share();
      if (written.images_not_used > 0) {
        const bool one = written.images_not_used == 1;
        plan.report.notes.push_back(
            std::to_string(written.images_not_used) +
            (one ? " card no longer reads as its recorded image (its value changed)"
                 : " cards no longer read as their recorded images (their values changed)") +
            ": formatted afresh in the fixed format");
      }
      report.hdus.push_back(std::move(plan.report));
    } catch (const Error& e) {
      if (e.code() == ErrorCode::kIo || e.code() == ErrorCode::kCancelled) throw;
      throw e.with_context(where);
    }
  }
  if (trailer) {
    meter.enter("write", 0);
    meter.share(trailer->size(), trailer->size());
    TrailerSink sink(out, meter);
    to_fits::write_big_endian(*trailer, false, sink);
    if (!report.hdus.empty()) {
      report.hdus.back().notes.push_back(
          std::to_string(trailer->size()) + " bytes after this last HDU's data written back from `" +
          std::string(to_fits::kTrailerKey) + "` in place of its padding");
    }
  }
  if (list.lists_found > 1 && !report.hdus.empty()) {
    report.hdus.front().notes.push_back("the tree has " + std::to_string(list.lists_found) +
                                        " fits lists; the one at " + list.path + " was written");
  }
  before_commit();
  meter.check();
  meter.finish();  // the last report comes before the output appears
  out.commit(options.overwrite);
  report.bytes_in = std::filesystem::file_size(input);
  report.bytes_out = std::filesystem::file_size(output);
  return report;
}

}  // namespace fitsasdf
