#pragma once
// A guard in front of CFITSIO's tile decoders for tile-compressed images and tables. Each tile
// is checked before CFITSIO decompresses the HDU, and a tile CFITSIO would mishandle is refused
// (for tables, see check_table_tiles below):
// - RICE_1: a damaged bit stream makes CFITSIO 4.2's decoder read past the tile (rice_guard.h).
// - GZIP_1 and GZIP_2 (and the GZIP_COMPRESSED_DATA column, where a float tile compressed without
//   loss is kept whatever the algorithm): CFITSIO 4.2's uncompress2mem_from_mem grows its output
//   buffer for as long as inflate asks for more. A stream cut short (its input used up before its
//   end) makes it grow the buffer without end, to the limit of the address space: minutes of
//   reallocation and over 100 GB of virtual memory before it fails. A stream that inflates past
//   its tile (a decompression bomb) is allocated whole.
// - HCOMPRESS_1: CFITSIO 4.2 takes a tile's dimensions from its stream and decodes that many
//   pixels into a buffer sized for the tile: a damaged stream (a negative dimension, or more
//   pixels than the tile) makes it write outside the buffer, and the process crashes or its heap
//   is corrupted; and it reads codes without knowing where the tile's bytes end
//   (hcompress_guard.h).
// - PLIO_1: CFITSIO 4.2 takes a line list's length from its header, so a damaged header makes
//   it read outside the tile, or leave the tile's pixels unset (plio_guard.h).
// - A tile whose descriptor declares more bytes than the whole file: CFITSIO allocates it first.
#include <fitsio.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "asdfcore/error.h"

namespace fitsasdf::fits {

/// Why `tile` is not one whole gzip stream (RFC 1952, as CFITSIO reads a GZIP tile) that inflates
/// to at most `limit` bytes: its input ends before the stream does, it inflates past `limit`, or
/// zlib reports it damaged. Nothing when it is sound (bytes after the stream's end are ignored,
/// as CFITSIO ignores them). A tile whose `limit` is at most 4 MiB is inflated whole by
/// libdeflate into a buffer each thread keeps (of the largest such limit it met); a larger one,
/// and any tile libdeflate does not take, is streamed by zlib through a 64 KiB scratch buffer.
/// When sound, `inflated` (if given) receives what it inflates to.
std::optional<std::string> gzip_tile_problem(std::span<const std::uint8_t> tile,
                                             std::uint64_t limit,
                                             std::vector<std::uint8_t>* inflated = nullptr);

/// For the tile-compressed image at `in`'s current HDU: throw `Error` with `where` for the first
/// tile CFITSIO's decoder would mishandle (above: compression), or whose descriptor or bytes
/// cannot be read (CFITSIO's status, as `check_status` turns it into an error), or that declares
/// more bytes than the file (malformed). Tiles of NOCOMPRESS are not looked into. Does
/// nothing when the header is too damaged to say (CFITSIO then refuses it itself). The file's
/// current HDU is unchanged. Only the tiles in rows `first_row` to `last_row` (1-based, both
/// included; `last_row` 0: to the last) are looked into, so that an image decompressed band by
/// band checks each band's tiles just before CFITSIO decodes them.
void check_image_tiles(fitsfile* in, const asdfcore::ErrorContext& where, long first_row = 1,
                       long last_row = 0);

/// For the tile-compressed table at `in`'s current HDU: the same for each column's tiles, with
/// the decoder CFITSIO 4.2's fits_uncompress_table picks (RICE_1 for I, J and B columns whose
/// ZCTYPn says so; gzip for every other column, GZIP_2 when ZCTYPn is missing). CFITSIO inflates
/// a column's tile into its buffer for the whole tile and reallocates that buffer, a pointer into
/// a larger allocation, when the stream wants more room (glibc aborts the process). A gzip tile
/// must inflate to exactly the column's bytes in the tile (a variable-length column's: its
/// descriptors and a 16-byte pair a row); a Rice tile (blocks of 32) must stay inside its bytes.
/// A variable-length column's arrays must lie inside the decompressed heap (ZPCOUNT) and their
/// compressed bytes inside the file, and decode to their length. Columns CFITSIO 4.2 lays out
/// wrongly (M, and variable-length A and X) are refused (compression); widths that do not add
/// up to ZNAXIS1 and missing or unreadable ZFORMn too (malformed). A table whose tile CFITSIO
/// would lay out in a buffer larger than `max_memory` is refused (limit).
void check_table_tiles(fitsfile* in, std::uint64_t max_memory, const asdfcore::ErrorContext& where);

/// The columns (1-based) of the compressed table at `in`'s current HDU that are GZIP_2 (by
/// ZCTYPn, or by its absence) but of a fixed type CFITSIO 4.2 does not byte-shuffle: C, L, A, X
/// and B (an M column is refused by check_table_tiles). CFITSIO's compressor stores such a column
/// unshuffled and still names it GZIP_2 (fpack -table does so for every C column), and its
/// decompressor then refuses the table ("unexpected attempt to use GZIP_2 to compress a column
/// unsuitable data type"; funpack fails too). Their bytes are GZIP_1's, so a copy of the header
/// that says GZIP_1 decompresses them. Empty when there are none or the columns' forms cannot be
/// read (check_table_tiles then refuses them).
std::vector<int> gzip2_columns_stored_plain(fitsfile* in);

}  // namespace fitsasdf::fits
