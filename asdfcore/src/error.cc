#include "asdfcore/error.h"

#include <utility>

namespace asdfcore {

std::string_view error_code_name(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::kIo: return "io";
    case ErrorCode::kNotAsdf: return "not-asdf";
    case ErrorCode::kNotFits: return "not-fits";
    case ErrorCode::kUnsupportedVersion: return "unsupported-version";
    case ErrorCode::kMalformed: return "malformed";
    case ErrorCode::kTruncated: return "truncated";
    case ErrorCode::kCompression: return "compression";
    case ErrorCode::kChecksum: return "checksum";
    case ErrorCode::kLimit: return "limit";
    case ErrorCode::kInvalidArgument: return "invalid-argument";
    case ErrorCode::kNotFound: return "not-found";
    case ErrorCode::kWrongType: return "wrong-type";
    case ErrorCode::kCancelled: return "cancelled";
    case ErrorCode::kSchema: return "schema";
    case ErrorCode::kConflict: return "conflict";
    case ErrorCode::kUnsupported: return "unsupported";
    case ErrorCode::kExists: return "exists";
  }
  return "unknown";
}

void ErrorContext::merge_from(const ErrorContext& outer) {
  if (file.empty()) file = outer.file;
  if (!offset) offset = outer.offset;
  if (!block) block = outer.block;
  if (tree_path.empty()) tree_path = outer.tree_path;
  if (!hdu) hdu = outer.hdu;
}

Error::Error(ErrorCode code, std::string message, ErrorContext context)
    : std::runtime_error(format(message, context)),
      code_(code),
      message_(std::move(message)),
      context_(std::move(context)) {}

Error Error::with_context(const ErrorContext& outer) const {
  ErrorContext merged = context_;
  merged.merge_from(outer);
  return Error(code_, message_, std::move(merged));
}

std::string Error::format(const std::string& message, const ErrorContext& context) {
  std::string where = context.file;
  std::string detail;
  auto add = [&detail](const std::string& part) {
    detail += detail.empty() ? "" : ", ";
    detail += part;
  };
  if (context.hdu) add("HDU " + std::to_string(*context.hdu));
  if (context.block) add("block " + std::to_string(*context.block));
  if (context.offset) add("byte " + std::to_string(*context.offset));
  if (!context.tree_path.empty()) {
    // A path thousands of levels deep (a hostile tree) is shortened to keep the message a line.
    const std::string& p = context.tree_path;
    add("tree path " +
        (p.size() <= 200 ? p : p.substr(0, 100) + "/.../" + p.substr(p.size() - 60)));
  }
  if (!detail.empty()) where += (where.empty() ? "" : ": ") + ("at " + detail);
  return where.empty() ? message : where + ": " + message;
}

}  // namespace asdfcore
