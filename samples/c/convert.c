/* Convert FITS to ASDF (or an ASDF file holding FITS back to FITS) in process, then read the
 * primary image's shape from the result through libasdf's API.
 *     sample_c_convert IN OUT */
#include <stdio.h>
#include <stdlib.h>

#include <asdf.h>
#include <fitsasdf/c/convert.h>

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s IN OUT\n", argv[0]);
        return 2;
    }
    char *message = NULL;
    if (fitsasdf_convert(argv[1], argv[2], &message) != FITSASDF_OK) {
        fprintf(stderr, "%s\n", message);
        free(message);
        return 1;
    }
    printf("converted %s to %s\n", argv[1], argv[2]);
    if (fitsasdf_verify(argv[1], argv[2], &message) != FITSASDF_OK) {
        fprintf(stderr, "verify: %s\n", message ? message : "");
        free(message);
        return 1;
    }
    printf("verified: equivalent\n");
    asdf_file_t *file = asdf_open(argv[2], "r");
    if (file) {
        asdf_sequence_t *hdus = NULL;
        if (asdf_get_sequence(file, "fits", &hdus) == ASDF_VALUE_OK) {
            printf("fits items: %d\n", asdf_sequence_size(hdus));
            asdf_sequence_destroy(hdus);
        }
        asdf_close(file);
    }
    return 0;
}
