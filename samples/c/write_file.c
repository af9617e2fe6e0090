/* Write a small ASDF file: metadata, a compressed 2-D float image, a 1-D int16 array and a
 * history entry.
 *     sample_c_write_file OUT.asdf
 * Written against libasdf's documented C API. */
#include <stdio.h>

#include <asdf.h>

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUT.asdf\n", argv[0]);
        return 2;
    }
    asdf_file_t *file = asdf_open(NULL);
    if (!file) {
        fprintf(stderr, "cannot make a new file: %s\n", asdf_error(NULL));
        return 1;
    }
    asdf_set_string0(file, "meta/telescope", "JWST");
    asdf_set_string0(file, "meta/instrument/name", "NIRCAM");
    asdf_set_double(file, "meta/exposure/exptime", 1374.3);
    asdf_set_int32(file, "meta/exposure/ngroups", 10);
    asdf_set_bool(file, "meta/calibrated", true);

    asdf_sequence_t *filters = asdf_sequence_create(file);
    asdf_sequence_append_string0(filters, "F200W");
    asdf_sequence_append_string0(filters, "F444W");
    asdf_set_sequence(file, "meta/filters", filters);

    uint64_t image_shape[2] = {3, 4};
    asdf_ndarray_t image = {
        .datatype = {.type = ASDF_DATATYPE_FLOAT32},
        .byteorder = ASDF_BYTEORDER_LITTLE,
        .ndim = 2,
        .shape = image_shape,
    };
    float *pixels = asdf_ndarray_data_alloc(&image);
    for (int i = 0; i < 12; ++i) pixels[i] = 0.5f * (float)i;
    asdf_ndarray_compression_set(&image, "zlib");
    asdf_set_ndarray(file, "sci", &image);

    uint64_t dq_shape[1] = {5};
    asdf_ndarray_t dq = {
        .datatype = {.type = ASDF_DATATYPE_INT16},
        .byteorder = ASDF_BYTEORDER_DEFAULT, /* the machine's, as the values are */
        .ndim = 1,
        .shape = dq_shape,
    };
    const int16_t flags[5] = {0, 1, -2, 300, -32768};
    asdf_ndarray_data_copy(&dq, flags);
    asdf_value_t *dq_value = asdf_value_of_ndarray(file, &dq);
    asdf_set_value(file, "dq", dq_value);

    asdf_history_entry_add(file, "made by sample_c_write_file");
    int status = asdf_write_to(file, argv[1]);
    if (status != 0) fprintf(stderr, "cannot write %s: %s\n", argv[1], asdf_error(file));
    asdf_close(file);
    asdf_ndarray_data_dealloc(&image);
    asdf_ndarray_data_dealloc(&dq);
    return status == 0 ? 0 : 1;
}
