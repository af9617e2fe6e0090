/* Print a cutout of a 2-D (or deeper: the first plane) array as 32-bit floats, whatever the
 * array's own type.
 *     sample_c_cutout FILE.asdf PATH X Y WIDTH HEIGHT
 * Written against libasdf's documented C API. */
#include <stdio.h>
#include <stdlib.h>

#include <asdf.h>

int main(int argc, char **argv) {
    if (argc != 7) {
        fprintf(stderr, "usage: %s FILE.asdf PATH X Y WIDTH HEIGHT\n", argv[0]);
        return 2;
    }
    const uint64_t x = strtoull(argv[3], NULL, 10), y = strtoull(argv[4], NULL, 10);
    const uint64_t w = strtoull(argv[5], NULL, 10), h = strtoull(argv[6], NULL, 10);
    asdf_file_t *file = asdf_open(argv[1], "r");
    if (!file) {
        fprintf(stderr, "cannot open %s: %s\n", argv[1], asdf_error(NULL));
        return 1;
    }
    asdf_ndarray_t *nd = NULL;
    asdf_value_err_t verr = asdf_get_ndarray(file, argv[2], &nd);
    if (verr != ASDF_VALUE_OK) {
        fprintf(stderr, "%s: no ndarray at %s (%d)\n", argv[1], argv[2], (int)verr);
        asdf_close(file);
        return 1;
    }
    float *tile = NULL;
    asdf_ndarray_err_t err =
        asdf_ndarray_read_tile_2d(nd, x, y, w, h, NULL, ASDF_DATATYPE_FLOAT32, (void **)&tile);
    if (err != ASDF_NDARRAY_OK && err != ASDF_NDARRAY_ERR_OVERFLOW) {
        fprintf(stderr, "%s: cannot read the cutout (%d)%s%s\n", argv[2], (int)err,
                asdf_error(file) ? ": " : "", asdf_error(file) ? asdf_error(file) : "");
        asdf_ndarray_destroy(nd);
        asdf_close(file);
        return 1;
    }
    for (uint64_t r = 0; r < h; ++r) {
        for (uint64_t c = 0; c < w; ++c) printf("%s%.9g", c ? " " : "", tile[r * w + c]);
        printf("\n");
    }
    if (nd->ndim == 2) {
        asdf_ndarray_err_t at_err;
        double corner = asdf_ndarray_at_err(nd, double, &at_err, y, x);
        printf("corner: %.17g (%d)\n", corner, (int)at_err);
    }
    asdf_free(tile);
    asdf_ndarray_destroy(nd);
    asdf_close(file);
    return 0;
}
