/* Logging settings (accepted in asdf_config_t; fitsasdf's C API does not log: every problem is
 * reported through asdf_error() and the return codes). */
#ifndef FITSASDF_LIBASDF_LOG_H
#define FITSASDF_LIBASDF_LOG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <asdf/util.h>

ASDF_BEGIN_DECLS

typedef enum {
    ASDF_LOG_NONE = 0,
    ASDF_LOG_TRACE,
    ASDF_LOG_DEBUG,
    ASDF_LOG_INFO,
    ASDF_LOG_WARN,
    ASDF_LOG_ERROR,
    ASDF_LOG_FATAL
} asdf_log_level_t;

#define ASDF_LOG_NUM_LEVELS (ASDF_LOG_FATAL + 1)

typedef enum {
    ASDF_LOG_FIELD_LEVEL = 1 << 0,
    ASDF_LOG_FIELD_PACKAGE = 1 << 1,
    ASDF_LOG_FIELD_FILE = 1 << 2,
    ASDF_LOG_FIELD_LINE = 1 << 3,
    ASDF_LOG_FIELD_MSG = 1 << 4
} asdf_log_field_t;

#define ASDF_LOG_FIELD_ALL                                                                   \
    (ASDF_LOG_FIELD_LEVEL | ASDF_LOG_FIELD_PACKAGE | ASDF_LOG_FIELD_FILE | ASDF_LOG_FIELD_LINE | \
     ASDF_LOG_FIELD_MSG)

typedef uint64_t asdf_log_fields_t;

typedef struct {
    FILE *stream;
    asdf_log_level_t level;
    asdf_log_fields_t fields;
    bool no_color;
} asdf_log_cfg_t;

ASDF_END_DECLS

#endif
