#include "schema/evaluate.h"

#include "asdfcore/error.h"

namespace asdfcore::schema::detail {
namespace {

// Nesting of schema evaluation; deeper means a schema that refers to itself without
// consuming the instance (`a: {$ref: "#/b"}, b: {$ref: "#/a"}`).
constexpr int kMaxDepth = 2000;

}  // namespace

bool has_ref_key(const tree::Node& node) {
  if (!node.is_mapping()) return false;
  for (const auto& [k, v] : node.entries()) {
    if (k->is_string() && k->as_string() == "$ref") return true;
  }
  return false;
}

bool fail(Context& ctx, const Schema& schema, std::string_view keyword, std::string message,
          const tree::Node& instance) {
  if (ctx.findings != nullptr && !ctx.full()) {
    ctx.findings->push_back(Finding{ctx.pointer, schema.document, schema.at(keyword),
                                    std::move(message), show(instance)});
  }
  return false;
}

bool evaluate_child(const Schema& schema, const tree::Node& child, std::string_view token,
                    Context& ctx) {
  const std::size_t size = ctx.pointer.size();
  ctx.pointer += '/';
  ctx.pointer += tree::escape_pointer_token(token);
  const bool ok = evaluate(schema, child, ctx);
  ctx.pointer.resize(size);
  return ok;
}

bool evaluate(const Schema& schema, const tree::Node& instance, Context& ctx) {
  // A reference to another file cannot be checked without its target: python asdf skips it.
  if (ctx.skip_references && has_ref_key(instance)) return true;
  if (ctx.depth >= kMaxDepth) {
    return fail(ctx, schema, "", "the schema nests deeper than " + std::to_string(kMaxDepth) +
                                     " levels here (a $ref loop?)", instance);
  }
  ++ctx.depth;
  struct Leave {
    int& depth;
    ~Leave() { --depth; }
  } leave{ctx.depth};

  bool ok = true;
  if (schema.has_ref) {
    const Schema* target = nullptr;
    try {
      target = &ctx.schemas.ref_target(schema);
    } catch (const Error& e) {
      return fail(ctx, schema, "$ref", "cannot resolve '" + schema.ref + "': " + e.message(),
                  instance);
    }
    ok = evaluate(*target, instance, ctx);
    if (schema.ref_ignores_siblings || (!ok && ctx.verdict_only())) return ok;
  }
  using Check = bool (*)(const Schema&, const tree::Node&, Context&);
  for (Check check : {check_type, check_number, check_string, check_array, check_object,
                      check_combine, check_asdf}) {
    if (!check(schema, instance, ctx)) {
      ok = false;
      if (ctx.verdict_only()) return false;
    }
  }
  return ok;
}

}  // namespace asdfcore::schema::detail
