// FITS -> ASDF: read the HDUs through CFITSIO, convert each with the first HDU converter that
// accepts it, and write the tree (the `fits` list and the native view) with every block once.
#include "fitsasdf/convert.h"
#include "fitsasdf/output_names.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "asdfcore/asdf_writer.h"
#include "asdfcore/error.h"
#include "asdfcore/ndarray/ndarray.h"
#include "embedded/asdf_extension.h"
#include "fits/fits_file.h"
#include "fitsasdf/asdf_in_fits.h"
#include "hdu/hdu_converter.h"
#include "hdu/hdu_findings.h"
#include "progress/meter.h"
#include "to_fits/card_images.h"
#include "to_fits/fits_items.h"

namespace fitsasdf {
namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::tree::Node;
using asdfcore::tree::NodePtr;

constexpr char kStandardFitsTag[] = "tag:stsci.edu:asdf/fits/fits-1.0.0";
constexpr char kAstropyFitsTag[] = "tag:astropy.org:astropy/fits/fits-1.0.0";
using to_fits::kTrailerKey;

/// Return why the items do not fit the standard fits-1.0.0 schema, or "" when they do: every
/// keyword of at most 8 characters from FITS's [A-Z0-9_-] (the schema's own example has
/// DATE-OBS), values that are strings of at most 60 characters, numbers or booleans, comments of
/// at most 60 characters, and no keys besides header and data.
std::string standard_schema_misfit(const std::vector<hdu::HduOutput>& outputs,
                                   const std::vector<const std::vector<Card>*>& headers) {
  for (const auto& out : outputs) {
    for (const auto& [k, v] : out.item->entries()) {
      if (k->as_string() != "header" && k->as_string() != "data") {
        return "HDU " + std::to_string(out.report.index) + " has `" + k->as_string() +
               "` beside its header and data";
      }
    }
  }
  for (std::size_t h = 0; h < headers.size(); ++h) {
    for (const auto& c : *headers[h]) {
      const auto where = [&] {
        return "HDU " + std::to_string(h + 1) + ", card '" + c.keyword + "': ";
      };
      if (c.keyword.size() > 8) return where() + "keyword longer than 8 characters";
      for (char ch : c.keyword) {
        if (!((ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '-')) {
          return where() + "keyword with a character outside A-Z, 0-9, '_' and '-'";
        }
      }
      if (c.comment.size() > 60) return where() + "comment longer than 60 characters";
      if (!c.value) continue;
      switch (c.value->kind()) {
        case asdfcore::tree::NodeKind::kString:
          if (!c.value->tag().empty()) return where() + "complex value";
          if (c.value->as_string().size() > 60) return where() + "string longer than 60 characters";
          break;
        case asdfcore::tree::NodeKind::kBool:
        case asdfcore::tree::NodeKind::kInt:
        case asdfcore::tree::NodeKind::kFloat:
          break;
        case asdfcore::tree::NodeKind::kNull:
          return where() + "undefined value";
        case asdfcore::tree::NodeKind::kBigInt:
          return where() + "integer beyond 64 bits";
        default:
          return where() + "value the schema has no type for";
      }
    }
  }
  return "";
}

/// Add to `findings` what the HDU walk found in the header of `extent`: mandatory keywords out
/// of the standard's order, a SIMPLE = F primary, an extension the standard does not define.
void note_header_findings(const fits::HduExtent& extent, std::vector<Finding>& findings) {
  if (!extent.misplaced.empty()) {
    findings.push_back(
        Finding{extent.index, "nonstandard-header",
                "the mandatory keywords are not in the order the FITS standard requires (" +
                    extent.misplaced +
                    "); found by name as astropy does, and kept in file order (CFITSIO refuses "
                    "to open such a file)"});
  }
  if (extent.nonstandard_primary) {
    findings.push_back(Finding{extent.index, "simple-false",
                               "SIMPLE = F: the file does not conform to the FITS standard; the "
                               "header and every byte after it are kept"});
  }
  if (extent.type == fits::kForeignHdu && !extent.nonstandard_primary) {
    findings.push_back(Finding{extent.index, "foreign-extension",
                               "an XTENSION the FITS standard does not define; its data is kept "
                               "as bytes"});
  }
}

/// The key of an HDU in the native view: EXTNAME (",EXTVER" when above 1), PRIMARY, or HDU<n>.
std::string native_key(const std::vector<Card>& cards, int index, std::set<std::string>& used) {
  const hdu::HeaderView header(cards);
  std::string key = header.string("EXTNAME");
  while (!key.empty() && key.back() == ' ') key.pop_back();
  const NodePtr ver = header.value("EXTVER");  // (a repaired card is a string: ignored)
  if (!key.empty() && ver && ver->kind() == asdfcore::tree::NodeKind::kInt && ver->as_int() > 1) {
    key += "," + std::to_string(ver->as_int());
  }
  if (key.empty()) key = index == 1 ? "PRIMARY" : "HDU" + std::to_string(index);
  static const std::set<std::string> kReserved{"fits", "data", "asdf_library", "history",
                                               std::string(to_fits::kRootCardImagesKey),
                                               std::string(kTrailerKey),
                                               std::string(to_fits::kStaleChecksumsKey)};
  if (kReserved.count(key) != 0 || used.count(key) != 0)
    key = "HDU" + std::to_string(index) + "_" + key;
  used.insert(key);
  return key;
}

}  // namespace

ConversionReport convert_fits_to_asdf(const std::string& input, const std::string& output,
                                      const ConvertOptions& options) {
  if (!options.overwrite) refuse_existing_output(output);
  progress::Meter meter(options.control, input);
  fits::FitsFile file = fits::FitsFile::open(input, options.limits.max_memory);
  const auto& bytes = file.bytes();
  // Every header was read once by the walk: first look for an ASDF extension.
  const std::vector<Header>& parsed = file.headers();
  bool embedded_asdf = false;
  for (const auto& extent : file.hdus()) {
    // A card astropy cannot parse was repaired as its verify('fix') does (a finding below),
    // unless the HDU's layout depends on it.
    const Header& header = parsed[static_cast<std::size_t>(extent.index - 1)];
    hdu::check_structural_cards(header, {.file = input, .hdu = extent.index});
    if (options.embedded_tree && embedded::is_asdf_extension(header.cards)) {
      embedded_asdf = true;  // the primary HDU too (old python asdf wrote it there)
      break;
    }
  }
  if (embedded_asdf) {
    return embedded::extract_embedded_asdf(std::move(file), input, output, options);
  }
  std::uint64_t data_bytes = 0;
  for (const auto& extent : file.hdus()) data_bytes += extent.data_size;
  meter.start(data_bytes, static_cast<int>(file.hdus().size()), "read");
  const auto registry = hdu::HduConverterRegistry::with_builtins();
  hdu::BlockSink sink;
  std::vector<hdu::HduOutput> outputs;
  // Per HDU, the key and node of the card images the fixed format would not write back (see
  // to_fits/card_images.h), added to the items once the fits tag is chosen.
  std::vector<std::pair<std::string_view, NodePtr>> card_images;
  std::vector<Finding> finding_list;
  for (std::size_t i = 0; i < file.hdus().size(); ++i) {
    const auto& extent = file.hdus()[i];
    const asdfcore::ErrorContext where{.file = input, .hdu = extent.index};
    const Header& header = parsed[i];
    meter.enter("read", extent.index);
    hdu::HduInput in = hdu::read_hdu_input(file, extent);
    const hdu::HduConverter& converter = registry.find(in);
    try {
      outputs.push_back(converter.convert(in, sink, options));
    } catch (const Error& e) {
      throw e.with_context(where);
    }
    // The header's findings first (layout, repaired cards, checksums), then the converter's.
    std::vector<Finding> findings;
    note_header_findings(extent, findings);
    hdu::add_unparsable_card_findings(header, extent.index, findings);
    hdu::add_checksum_findings(
        std::string_view(reinterpret_cast<const char*>(bytes.data()) + extent.header_start,
                         static_cast<std::size_t>(extent.data_start - extent.header_start)),
        in.data, header.cards, extent.index, findings);
    auto& converter_findings = outputs.back().report.findings;
    converter_findings.insert(converter_findings.begin(), findings.begin(), findings.end());
    card_images.emplace_back(outputs.back().item->get("compressed_header")
                                 ? to_fits::kCompressedCardImagesKey
                                 : to_fits::kCardImagesKey,
                             to_fits::record_card_images(header));
  }
  // Bytes after the last HDU's data that are not exactly its padding to 2880 bytes (a stray
  // byte, padding cut short, an appended trailer) are kept whole, that padding included.
  NodePtr trailer;
  if (!file.hdus().empty() && file.hdus().back().data_end != bytes.size()) {
    const auto& last = file.hdus().back();
    const std::uint64_t from = last.data_start + last.data_size;
    trailer = Node::make_mapping();
    asdfcore::ndarray::NDArrayNodeSpec spec;
    spec.dtype = asdfcore::ndarray::DType::numeric(asdfcore::ndarray::DTypeKind::kUInt8);
    spec.shape = {bytes.size() - from};
    spec.source = sink.add_input(file, from,
                                 bytes.slice(static_cast<std::size_t>(from),
                                             static_cast<std::size_t>(bytes.size() - from)));
    trailer->set("bytes", asdfcore::ndarray::make_ndarray_node(spec));
    std::string what =
        last.data_end > bytes.size()
            ? "the file ends " + std::to_string(last.data_end - bytes.size()) +
                  " bytes short of the last HDU's padding to 2880 bytes (it may have been cut)"
            : std::to_string(bytes.size() - last.data_end) +
                  " bytes follow the last HDU's padding, and they do not start an extension";
    finding_list.push_back(Finding{0, last.data_end > bytes.size() ? "padding-cut-short"
                                                                   : "bytes-after-last-hdu",
                                   what + "; kept under `" + std::string(kTrailerKey) +
                                       "` (the last HDU's padding as found, and what follows it)"});
  }

  // Each HDU's cards as the tree shows them: the converter's when it replaced them (a
  // decompressed image's), else the file's.
  std::vector<const std::vector<Card>*> headers;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    headers.push_back(outputs[i].shown_cards.empty() ? &parsed[i].cards : &outputs[i].shown_cards);
  }
  ConversionReport report;
  report.input = input;
  report.output = output;
  const std::string misfit =
      options.fits_tag == FitsTag::kAstropy ? "" : standard_schema_misfit(outputs, headers);
  const bool standard = options.fits_tag == FitsTag::kStandard ||
                        (options.fits_tag == FitsTag::kAuto && misfit.empty());
  if (options.fits_tag == FitsTag::kStandard && !misfit.empty()) {
    throw Error(ErrorCode::kInvalidArgument,
                "the header does not fit the standard fits-1.0.0 schema (" + misfit +
                    "; it allows keywords of at most 8 characters, strings and comments of at "
                    "most 60, no undefined, complex or 64-bit-overflowing values, no unmapped "
                    "HDUs); use the astropy tag",
                asdfcore::ErrorContext{.file = input});
  }
  report.fits_tag = standard ? kStandardFitsTag : kAstropyFitsTag;

  report.findings = std::move(finding_list);
  NodePtr root = Node::make_mapping();
  NodePtr fits_list = Node::make_sequence();
  fits_list->set_tag(report.fits_tag);
  NodePtr primary_science;
  std::vector<std::pair<std::string, NodePtr>> native;
  std::set<std::string> used;
  // Card images go into the items (astropy's fits schema allows more keys), or, since the
  // standard's schema allows only header and data in an item, into a list beside `fits`.
  NodePtr root_images;
  if (standard && std::any_of(card_images.begin(), card_images.end(),
                              [](const auto& entry) { return entry.second != nullptr; })) {
    root_images = Node::make_sequence();
    for (const auto& entry : card_images) {
      root_images->push_back(entry.second ? entry.second : Node::make_null());
    }
  }
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    fits_list->push_back(outputs[i].item);
    HduReport r = outputs[i].report;
    if (card_images[i].second && !standard) {
      outputs[i].item->set(card_images[i].first, card_images[i].second);
    }
    r.name = native_key(*headers[i], r.index, used);
    if (outputs[i].native) {
      native.emplace_back(r.name, outputs[i].native);
      // Root `data`: the first HDU whose data has elements (not a zero-size array).
      if (!primary_science && file.hdus()[i].data_size > 0) primary_science = outputs[i].native;
    }
    report.hdus.push_back(std::move(r));
  }
  root->set("fits", fits_list);
  if (root_images) root->set(to_fits::kRootCardImagesKey, root_images);
  if (trailer) root->set(kTrailerKey, trailer);
  // HDUs whose CHECKSUM or DATASUM did not verify: the way back keeps those cards as found.
  NodePtr stale = Node::make_sequence();
  for (const auto& h : report.hdus) {
    if (std::any_of(h.findings.begin(), h.findings.end(), [](const Finding& f) {
          return f.code == "checksum-mismatch" || f.code == "datasum-mismatch";
        })) {
      stale->push_back(Node::make_int(h.index));
    }
  }
  if (!stale->items().empty()) root->set(to_fits::kStaleChecksumsKey, stale);
  if (options.native_view) {
    if (primary_science) root->set("data", primary_science);
    for (auto& [key, node] : native) root->set(key, node);
  }

  asdfcore::AsdfWriteOptions write;
  write.asdf_standard = options.asdf_standard;
  write.layout.durable = options.durable;
  write.layout.replace = options.overwrite;
  write.layout.threads = options.threads;
  write.layout.checksum = options.checksum;
  const auto blocks = sink.blocks(options.compression, options.compression_level);
  // The blocks hold the data in the output's form (scaled, decompressed): their bytes are
  // mapped onto the input's.
  std::uint64_t block_bytes = 0;
  for (const auto& b : blocks) {
    for (const auto& p : b.pieces) block_bytes += p.size();
    for (const auto& r : b.file_ranges) block_bytes += r.length;
    if (b.source_size) block_bytes += *b.source_size;
  }
  meter.enter("write", 0);
  meter.share(block_bytes, meter.total());
  write.layout.on_data = [&meter](std::uint64_t n) { meter.advance(n); };
  asdfcore::write_asdf(output, root, blocks, write);
  meter.finish();
  report.bytes_in = std::filesystem::file_size(input);
  report.bytes_out = std::filesystem::file_size(output);
  return report;
}

}  // namespace fitsasdf
