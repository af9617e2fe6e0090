/* Parser settings (part of asdf_config_t). The streaming event parser of libasdf is not part of
 * fitsasdf's C API; the settings are accepted and ignored. */
#ifndef FITSASDF_LIBASDF_PARSER_H
#define FITSASDF_LIBASDF_PARSER_H

#include <stdint.h>

#include <asdf/log.h>
#include <asdf/util.h>

ASDF_BEGIN_DECLS

typedef enum {
    ASDF_PARSER_OPT_EMIT_YAML_EVENTS = 1 << 0,
    ASDF_PARSER_OPT_BUFFER_TREE = 1 << 1
} asdf_parser_opt_t;

typedef uint64_t asdf_parser_optflags_t;

typedef struct asdf_parser_cfg {
    asdf_parser_optflags_t flags;
    asdf_log_cfg_t *log;
} asdf_parser_cfg_t;

ASDF_END_DECLS

#endif
