/* YAML presentation choices used by the value API. */
#ifndef FITSASDF_LIBASDF_YAML_H
#define FITSASDF_LIBASDF_YAML_H

#include <asdf/util.h>

ASDF_BEGIN_DECLS

typedef enum {
    ASDF_YAML_NODE_STYLE_AUTO = 0,
    ASDF_YAML_NODE_STYLE_FLOW,
    ASDF_YAML_NODE_STYLE_BLOCK
} asdf_yaml_node_style_t;

/* A %TAG directive: handle ("!foo!") and the prefix it stands for. */
typedef struct {
    const char *handle;
    const char *prefix;
} asdf_yaml_tag_handle_t;

ASDF_END_DECLS

#endif
