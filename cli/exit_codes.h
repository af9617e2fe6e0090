#pragma once
// The exit statuses of `fitsasdf`, documented in README.md ("Exit status").
#include "asdfcore/error.h"

namespace fitsasdf::cli {

inline constexpr int kExitOk = 0;           ///< Success.
inline constexpr int kExitDifferent = 1;    ///< Ran fine, but found differences or failed files.
inline constexpr int kExitBadInput = 2;     ///< An input is not valid (format, damage, limits).
inline constexpr int kExitIo = 3;           ///< A file could not be read or written.
inline constexpr int kExitUsage = 4;        ///< The command line is wrong.
inline constexpr int kExitInternal = 5;     ///< A bug: an unexpected exception.
/// `batch` stopped by SIGINT or SIGTERM (128 + SIGINT, as shells report it); re-run to resume.
inline constexpr int kExitInterrupted = 130;

/// Return the exit status for an error of category `code`.
inline int exit_code_for(asdfcore::ErrorCode code) {
  switch (code) {
    case asdfcore::ErrorCode::kIo:
    case asdfcore::ErrorCode::kExists: return kExitIo;
    case asdfcore::ErrorCode::kInvalidArgument: return kExitUsage;
    case asdfcore::ErrorCode::kCancelled: return kExitInterrupted;
    default: return kExitBadInput;
  }
}

}  // namespace fitsasdf::cli
