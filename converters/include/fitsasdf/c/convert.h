/** \file
 * fitsasdf's own C functions: converting FITS to ASDF and back, and verifying a conversion.
 * C99 and C++; link with `pkg-config --libs fitsasdf`. Nothing here prints, aborts or exits:
 * failures are return values with a message. */
#ifndef FITSASDF_C_CONVERT_H
#define FITSASDF_C_CONVERT_H

#ifdef __cplusplus
extern "C" {
#endif

/** Returned on success; by fitsasdf_verify when the files are equivalent. */
#define FITSASDF_OK 0
/** Returned by fitsasdf_verify when the files differ (the message says where). */
#define FITSASDF_DIFFERENT 1
/** Returned when an input cannot be read or an output cannot be written. */
#define FITSASDF_ERROR 2

/** Convert `input` to `output`, the direction chosen by the input's content: a FITS file (plain
 * or compressed) becomes ASDF, an ASDF file holding FITS HDUs becomes FITS; default options,
 * the output appears only when complete. `output` NULL: the input's name with .asdf (or .fits;
 * refused when that file exists, as it is likely the FITS file the ASDF file came from).
 * Returns FITSASDF_OK or FITSASDF_ERROR. When `message` is not NULL, *message is set to a
 * malloc'ed text the caller frees with free(): on failure the error (naming the file and the
 * HDU or byte offset), on success NULL. */
int fitsasdf_convert(const char *input, const char *output, char **message);

/** Check that the FITS file `fits` survives conversion: with `other` NULL, convert it to ASDF
 * and back in a temporary folder and compare; else compare it with `other` (an ASDF file
 * converted back, its block checksums checked, or a FITS file). Returns FITSASDF_OK,
 * FITSASDF_DIFFERENT or FITSASDF_ERROR; *message (when `message` is not NULL) as for
 * fitsasdf_convert, and on FITSASDF_DIFFERENT a summary of the differences. */
int fitsasdf_verify(const char *fits, const char *other, char **message);

#ifdef __cplusplus
}
#endif

#endif
