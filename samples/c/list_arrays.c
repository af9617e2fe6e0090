/* List every ndarray of an ASDF file with its type, shape and a summary of its values (read
 * whole, converted to double).
 *     sample_c_list_arrays FILE.asdf
 * Written against libasdf's documented C API. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <asdf.h>

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s FILE.asdf\n", argv[0]);
        return 2;
    }
    asdf_file_t *file = asdf_open(argv[1], "r");
    if (!file) {
        fprintf(stderr, "cannot open %s: %s\n", argv[1], asdf_error(NULL));
        return 1;
    }
    asdf_value_t *root = asdf_get_value(file, "");
    asdf_find_iter_t *it = asdf_find_iter_init(root, asdf_value_is_ndarray);
    int status = 0;
    while (asdf_value_find_iter_next(&it)) {
        asdf_ndarray_t *nd = NULL;
        if (asdf_value_as_ndarray(it->value, &nd) != ASDF_VALUE_OK) continue;
        printf("%s %s [", asdf_value_path(it->value),
               asdf_scalar_datatype_to_string(nd->datatype.type));
        for (uint32_t d = 0; d < nd->ndim; ++d) printf("%s%" PRIu64, d ? "," : "", nd->shape[d]);
        printf("]");
        double *values = NULL;
        asdf_ndarray_err_t err = asdf_ndarray_read_all(nd, ASDF_DATATYPE_FLOAT64, (void **)&values);
        if (err == ASDF_NDARRAY_OK) {
            uint64_t n = asdf_ndarray_size(nd);
            double sum = 0;
            for (uint64_t i = 0; i < n; ++i) sum += values[i];
            printf(" n=%" PRIu64 " sum=%.17g", n, sum);
            if (n > 0) printf(" first=%.17g last=%.17g", values[0], values[n - 1]);
            printf("\n");
        } else if (err == ASDF_NDARRAY_ERR_CONVERSION) {
            printf(" not numeric\n");
        } else {
            printf(" error %d: %s\n", (int)err, asdf_error(file) ? asdf_error(file) : "");
            status = 1;
        }
        asdf_free(values);
        asdf_ndarray_destroy(nd);
    }
    asdf_value_destroy(root);
    asdf_close(file);
    return status;
}
