/* Print who wrote an ASDF file, its history, and what its tree holds at the top.
 *     sample_c_print_meta FILE.asdf
 * Written against libasdf's documented C API: it builds unchanged against libasdf or fitsasdf. */
#include <stdio.h>

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

    asdf_meta_t *meta = NULL;
    if (asdf_get_meta(file, "", &meta) == ASDF_VALUE_OK) {
        if (meta->asdf_library && meta->asdf_library->name) {
            printf("written by: %s %s\n", meta->asdf_library->name,
                   meta->asdf_library->version ? meta->asdf_library->version->version : "?");
        }
        int n = 0;
        for (const asdf_history_entry_t **e = meta->history.entries; *e; ++e) {
            printf("history %d: %s\n", n++, (*e)->description ? (*e)->description : "");
        }
        asdf_meta_destroy(meta);
    }

    asdf_mapping_t *root = NULL;
    if (asdf_get_mapping(file, "", &root) != ASDF_VALUE_OK) {
        fprintf(stderr, "%s: the tree's root is not a mapping\n", argv[1]);
        asdf_close(file);
        return 1;
    }
    asdf_mapping_iter_t *it = asdf_mapping_iter_init(root);
    while (asdf_mapping_iter_next(&it)) {
        const char *type = asdf_value_is_ndarray(it->value)
                               ? "ndarray"
                               : asdf_value_type_string(asdf_value_get_type(it->value));
        printf("key %s: %s\n", it->key, type);
    }
    asdf_mapping_destroy(root);

    const char *name = NULL;
    if (asdf_get_string0(file, "meta/instrument/name", &name) == ASDF_VALUE_OK) {
        printf("instrument: %s\n", name);
    }
    double exptime = 0;
    if (asdf_get_double(file, "meta/exposure/exptime", &exptime) == ASDF_VALUE_OK) {
        printf("exptime: %.6g\n", exptime);
    }
    asdf_close(file);
    return 0;
}
