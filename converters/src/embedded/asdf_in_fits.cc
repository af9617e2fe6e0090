// ASDF-in-FITS: find the ASDF extension, open the ASDF file it holds, and write it out with
// every `fits:` array pulled in from its HDU as the image converter reads it with physical
// scaling (astropy's `hdu.data`, which is what python asdf hands out for such arrays).
#include "fitsasdf/asdf_in_fits.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <optional>
#include <unordered_map>

#include "asdfcore/asdf_file.h"
#include "asdfcore/asdf_writer.h"
#include "asdfcore/error.h"
#include "asdfcore/ndarray/dtype.h"
#include "asdfcore/tree/walk.h"
#include "embedded/asdf_extension.h"
#include "fits/fits_file.h"
#include "hdu/hdu_converter.h"
#include "progress/meter.h"

namespace fitsasdf {
namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::ErrorContext;
using asdfcore::tree::Node;
using asdfcore::tree::NodePtr;

constexpr std::string_view kSourcePrefix = "fits:";

using hdu::upper_trimmed;

/// The FITS file with every HDU's header parsed.
struct FitsWithHeaders {
  fits::FitsFile file;
  std::vector<hdu::HduInput> hdus;
};

/// The HDUs of a file by EXTNAME and EXTVER, read once: a file whose tree pulls in one array
/// from each of N HDUs looked each one up by reading every header again, N^2 header reads
/// (issue 28; 100,000 HDUs took minutes).
class HduIndex {
 public:
  explicit HduIndex(const std::vector<hdu::HduInput>& hdus) : hdus_(hdus) {
    for (std::size_t i = 0; i < hdus.size(); ++i) {
      const hdu::HeaderView header(hdus[i].cards);
      Named& named = names_.try_emplace(upper_trimmed(header.string("EXTNAME")), i).first->second;
      try {
        named.by_version.try_emplace(header.integer("EXTVER", 1), i);
      } catch (const Error&) {
        if (!named.first_bad_version) named.first_bad_version = i;
      }
    }
  }

  /// Return the index of the first HDU named `name` (any case) with EXTVER `ver` (EXTVER absent
  /// counts as 1; `ver` < 0 matches any), or -1. An EXTVER that is not an integer, on an HDU of
  /// that name met before the match, throws as reading it does.
  int find(const std::string& name, long long ver) const {
    const auto it = names_.find(upper_trimmed(name));
    if (it == names_.end()) return -1;
    const Named& named = it->second;
    if (ver < 0) return static_cast<int>(named.first);
    const auto match = named.by_version.find(ver);
    if (named.first_bad_version &&
        (match == named.by_version.end() || *named.first_bad_version < match->second)) {
      hdu::HeaderView(hdus_[*named.first_bad_version].cards).integer("EXTVER", 1);  // throws
    }
    return match == named.by_version.end() ? -1 : static_cast<int>(match->second);
  }

 private:
  struct Named {
    explicit Named(std::size_t at) : first(at) {}
    std::size_t first;                                      // the first HDU of the name
    std::unordered_map<long long, std::size_t> by_version;  // EXTVER -> its first HDU
    std::optional<std::size_t> first_bad_version;           // the first non-integer EXTVER
  };
  const std::vector<hdu::HduInput>& hdus_;
  std::unordered_map<std::string, Named> names_;
};

/// Return the bytes of the ASDF file held by the ASDF extension `in`.
asdfcore::io::Buffer embedded_bytes(const hdu::HduInput& in) {
  const hdu::HeaderView header(in.cards);
  const ErrorContext where{.file = in.file.path(), .hdu = in.extent.index};
  const long long bitpix = header.integer("BITPIX", 0);
  const long long naxis = header.integer("NAXIS", 0);
  const std::uint64_t size = hdu::declared_data_size(header, where);
  if (size > in.data.size()) {
    throw Error(ErrorCode::kTruncated,
                "the ASDF extension's data holds " + std::to_string(in.data.size()) + " of the " +
                    std::to_string(size) + " bytes its header declares",
                where);
  }
  // The older form: a one-dimensional uint8 image (XTENSION = 'IMAGE', or 'ASDF' as python asdf
  // 1.x wrote it, a foreign extension).
  if (in.extent.type == fits::kImageHdu || in.extent.type == fits::kForeignHdu) {
    if (bitpix != 8 || naxis != 1) {
      throw Error(ErrorCode::kMalformed,
                  "an ASDF extension stored as an image must be one-dimensional with BITPIX = 8",
                  where);
    }
    return in.data.slice(0, static_cast<std::size_t>(size));
  }
  // The current form: one row, the file in the byte column ASDF_METADATA (rB).
  const long long fields = header.integer("TFIELDS", 0);
  if (in.extent.type != fits::kBinaryTableHdu || header.integer("NAXIS2", 0) != 1 || fields < 1) {
    throw Error(ErrorCode::kMalformed,
                "the ASDF extension is neither a one-row binary table nor a uint8 image", where);
  }
  if (upper_trimmed(header.string("TTYPE1")) != "ASDF_METADATA") {
    throw Error(
        ErrorCode::kMalformed,
        "the ASDF extension's first column is '" + header.string("TTYPE1") + "', not ASDF_METADATA",
        where);
  }
  std::string form = upper_trimmed(header.string("TFORM1"));
  const std::size_t digits = form.find_first_not_of("0123456789");
  if (digits == std::string::npos || form.substr(digits) != "B") {
    throw Error(ErrorCode::kMalformed,
                "the ASDF_METADATA column has TFORM '" + form + "'; a byte column (rB) is expected",
                where);
  }
  const std::uint64_t width = digits == 0 ? 1 : std::stoull(form.substr(0, digits));
  const auto row = static_cast<std::uint64_t>(header.integer("NAXIS1", 0));
  if (width > row || width > size) {
    throw Error(ErrorCode::kMalformed, "the ASDF_METADATA column is wider than the table row",
                where);
  }
  return in.data.slice(0, static_cast<std::size_t>(width));
}

/// Parse "fits:EXTNAME,EXTVER" (EXTVER optional) into the name and version (-1: any). The
/// name may hold commas (any printable ASCII, as python asdf reads it): EXTVER follows the last.
std::pair<std::string, long long> parse_source(const std::string& source,
                                               const ErrorContext& where) {
  const std::string body = source.substr(kSourcePrefix.size());
  const std::size_t comma = body.rfind(',');
  if (comma == std::string::npos) return {body, -1};
  const std::string ver = body.substr(comma + 1);
  if (ver.empty() || ver.find_first_not_of("0123456789") != std::string::npos || ver.size() > 9) {
    throw Error(ErrorCode::kMalformed, "the array source '" + source + "' has no valid EXTVER",
                where);
  }
  return {body.substr(0, comma), std::stoll(ver)};
}

/// Return a shape node as "[2, 3]" for messages ("(none)" when absent).
std::string shape_text(const NodePtr& shape) {
  if (!shape) return "(none)";
  if (!shape->is_sequence()) return asdfcore::tree::describe_for_error(*shape);
  std::string text = "[";
  for (const NodePtr& n : shape->items()) {
    if (text.size() > 1) text += ", ";
    text += asdfcore::tree::describe_for_error(*n);
  }
  return text + "]";
}

}  // namespace

namespace embedded {

bool is_asdf_extension(const std::vector<Card>& cards) {
  return upper_trimmed(hdu::HeaderView(cards).string("EXTNAME")) == "ASDF";
}

int asdf_extension_index(const fits::FitsFile& file) {
  for (const auto& extent : file.hdus()) {  // the primary HDU too (old python asdf wrote that)
    if (is_asdf_extension(hdu::read_hdu_input(file, extent).cards)) return extent.index;
  }
  return 0;
}

}  // namespace embedded

int find_embedded_asdf(const std::string& fits_path) {
  return embedded::asdf_extension_index(fits::FitsFile::open(fits_path));
}

ConversionReport extract_embedded_asdf(const std::string& input, const std::string& output,
                                       const ConvertOptions& options) {
  return embedded::extract_embedded_asdf(fits::FitsFile::open(input, options.limits.max_memory),
                                         input, output, options);
}

ConversionReport embedded::extract_embedded_asdf(fits::FitsFile file, const std::string& input,
                                                 const std::string& output,
                                                 const ConvertOptions& options) {
  progress::Meter meter(options.control, input);
  // The HDUs refer to the file held here, which stays put.
  FitsWithHeaders f{std::move(file), {}};
  for (const auto& extent : f.file.hdus()) f.hdus.push_back(hdu::read_hdu_input(f.file, extent));
  const HduIndex index(f.hdus);
  const int asdf_at = index.find("ASDF", -1);
  if (asdf_at < 0) {
    throw Error(ErrorCode::kNotAsdf, "the FITS file has no ASDF extension",
                ErrorContext{.file = input});
  }
  const hdu::HduInput& holder = f.hdus[static_cast<std::size_t>(asdf_at)];
  const ErrorContext at_holder{.file = input, .hdu = holder.extent.index};
  asdfcore::AsdfFile embedded = [&] {
    try {
      return asdfcore::AsdfFile::open_bytes(embedded_bytes(holder), input,
                                            options.limits.open_options());
    } catch (const Error& e) {
      throw e.with_context(at_holder);
    }
  }();

  // The embedded file's own blocks keep their indices; arrays from HDUs come after them.
  hdu::BlockSink sink;
  const std::uint64_t own_blocks = embedded.container().blocks().size();
  for (std::uint64_t b = 0; b < own_blocks; ++b) {
    try {
      sink.add_view(embedded.blocks().block(static_cast<std::int64_t>(b)));
    } catch (const Error& e) {
      throw e.with_context(ErrorContext{.file = input, .block = b, .hdu = holder.extent.index});
    }
  }

  ConversionReport report;
  report.input = input;
  report.output = output;
  ConvertOptions physical = options;
  physical.scaling = ScalingPolicy::kPhysical;
  physical.native_byte_order = false;
  physical.native_view = true;  // float images show their physical values only there
  const auto registry = hdu::HduConverterRegistry::with_builtins();
  // (HDU position, in the machine's byte order) -> its data node (block in `sink`).
  std::map<std::pair<int, bool>, NodePtr> converted;
  const std::string native_name(
      asdfcore::ndarray::asdf_byteorder_name(asdfcore::ndarray::native_byte_order()));

  // The embedded file belongs to this conversion: its tree is changed in place (each array
  // pointed at the block its HDU's data became) and written.
  const NodePtr& root = embedded.tree();
  asdfcore::tree::walk(root, [&](const NodePtr& node, const std::string& path) {
    if (!asdfcore::tree::is_ndarray(*node)) return true;
    const NodePtr source = node->get("source");
    if (!source || !source->is_string() || !source->as_string().starts_with(kSourcePrefix)) {
      return false;
    }
    const ErrorContext where{.file = input, .tree_path = path, .hdu = holder.extent.index};
    const auto [name, ver] = parse_source(source->as_string(), where);
    const int at = index.find(name, ver);
    if (at < 0) {
      throw Error(ErrorCode::kMalformed,
                  "the array source '" + source->as_string() + "' names no HDU of the file", where);
    }
    // An array that says it is in the machine's byte order gets it (our own files record the
    // byte order the array had before it went into the big-endian HDU); otherwise the HDU's
    // order is kept, as python asdf takes the dtype from astropy's data.
    const NodePtr order = node->get("byteorder");
    const NodePtr datatype = node->get("datatype");
    const bool in_native_order = order && order->is_string() && order->as_string() == native_name &&
                                 datatype && datatype->is_string();
    auto it = converted.find({at, in_native_order});
    if (it == converted.end()) {
      hdu::HduInput in = f.hdus[static_cast<std::size_t>(at)];
      in.item_header = false;  // only the data is kept
      ConvertOptions hdu_options = physical;
      hdu_options.native_byte_order = in_native_order;
      hdu::HduOutput out = registry.find(in).convert(in, sink, hdu_options);
      // An image's values as astropy's `hdu.data` gives them: the native array (the value of
      // a quantity, without the BLANK mask); a table's rows: the item's data.
      NodePtr data = out.item->get("data");
      NodePtr native = out.native;
      if (native && native->is_mapping() && native->get("value")) native = native->get("value");
      if (native && asdfcore::tree::is_ndarray(*native)) {
        data = asdfcore::tree::deep_copy(native);
        data->erase("mask");
      }
      if (!data || data->is_null()) {
        throw Error(ErrorCode::kMalformed,
                    "the array source '" + source->as_string() + "' names an HDU without data",
                    where);
      }
      HduReport r = std::move(out.report);
      r.name = source->as_string();
      r.notes.push_back("array at " + path + " pulled in from this HDU");
      report.hdus.push_back(std::move(r));
      it = converted.emplace(std::pair{at, in_native_order}, data).first;
    }
    const NodePtr& data = it->second;
    const NodePtr want_shape = node->get("shape");
    if (!want_shape || !asdfcore::tree::deep_equal(*want_shape, *data->get("shape"))) {
      throw Error(ErrorCode::kMalformed,
                  "the array says shape " + shape_text(want_shape) + " but HDU '" +
                      source->as_string() + "' holds " + shape_text(data->get("shape")),
                  where);
    }
    for (const char* key : {"source", "datatype", "byteorder"}) node->set(key, data->get(key));
    return false;
  });

  asdfcore::AsdfWriteOptions write;
  write.asdf_standard = embedded.asdf_standard();
  write.layout.durable = options.durable;
  write.layout.replace = options.overwrite;
  write.layout.threads = options.threads;
  write.layout.checksum = options.checksum;
  const auto blocks = sink.blocks(options.compression, options.compression_level);
  std::uint64_t block_bytes = 0;
  for (const auto& b : blocks) {
    for (const auto& p : b.pieces) block_bytes += p.size();
    for (const auto& r : b.file_ranges) block_bytes += r.length;
    if (b.source_size) block_bytes += *b.source_size;
  }
  meter.start(block_bytes, static_cast<int>(f.hdus.size()), "write");
  write.layout.on_data = [&meter](std::uint64_t n) { meter.advance(n); };
  try {
    asdfcore::write_asdf(output, root, blocks, write);
    meter.finish();
  } catch (const Error& e) {
    throw e.with_context(ErrorContext{.file = output});
  }
  report.bytes_in = std::filesystem::file_size(input);
  report.bytes_out = std::filesystem::file_size(output);
  return report;
}

}  // namespace fitsasdf
