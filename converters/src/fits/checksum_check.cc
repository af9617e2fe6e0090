#include "fits/checksum_check.h"

#include "asdfcore/error.h"
#include "fits/cfitsio.h"
#include "fits/header_guard.h"
#include "fits/fits_file.h"

namespace fitsasdf::fits {
namespace {

ChecksumVerdict verdict(int code) {
  if (code > 0) return ChecksumVerdict::kValid;
  if (code < 0) return ChecksumVerdict::kInvalid;
  return ChecksumVerdict::kAbsent;
}

}  // namespace

std::vector<HduChecksumVerdict> verify_checksums(const std::string& path) {
  int status = 0;
  CfitsioHandle file;
  fits_open_diskfile(&file.f, path.c_str(), READONLY, &status);
  check_status(status, "CFITSIO cannot open the file to verify its checksums",
               asdfcore::ErrorContext{.file = path});
  fitsfile* f = file.f;
  check_extension_headers(f, asdfcore::ErrorContext{.file = path});
  int count = 0;
  fits_get_num_hdus(f, &count, &status);
  check_status(status, "cannot count the HDUs", asdfcore::ErrorContext{.file = path});
  fits_clear_errmsg();
  std::vector<HduChecksumVerdict> out;
  for (int i = 1; i <= count; ++i) {
    const asdfcore::ErrorContext where{.file = path, .hdu = i};
    int type = 0;
    fits_movabs_hdu(f, i, &type, &status);
    check_status(status, "cannot move to the HDU", where);
    int data_ok = 0;
    int hdu_ok = 0;
    fits_verify_chksum(f, &data_ok, &hdu_ok, &status);
    check_status(status, "CFITSIO cannot verify the checksums", where);
    out.push_back({verdict(data_ok), verdict(hdu_ok)});
  }
  return out;
}

}  // namespace fitsasdf::fits
