// allOf, anyOf, oneOf, not. ($ref is applied by `evaluate` itself.)

#include "schema/evaluate.h"

namespace asdfcore::schema::detail {
namespace {

bool holds(const Schema& schema, const tree::Node& instance, Context& ctx) {
  Context quiet{ctx.schemas, nullptr, 0, ctx.pointer, ctx.depth, ctx.skip_references};
  return evaluate(schema, instance, quiet);
}

// For a failed anyOf / oneOf: the first finding of the branch that got furthest into the
// instance, to tell the reader which alternative was meant and why it failed.
std::string closest_reason(const std::vector<const Schema*>& branches, const tree::Node& instance,
                           Context& ctx) {
  std::string best;
  std::size_t best_depth = 0;
  for (std::size_t i = 0; i < branches.size(); ++i) {
    std::vector<Finding> found;
    Context collect{ctx.schemas, &found, 1, ctx.pointer, ctx.depth, ctx.skip_references, false};
    evaluate(*branches[i], instance, collect);
    if (found.empty()) continue;
    const Finding& f = found.front();
    if (best.empty() || f.pointer.size() > best_depth) {
      best_depth = f.pointer.size();
      best = "; closest is branch " + std::to_string(i) + ": " + f.message +
             (f.pointer.size() > ctx.pointer.size() ? " at " + f.pointer : "");
    }
  }
  return best;
}

}  // namespace

bool check_combine(const Schema& s, const tree::Node& instance, Context& ctx) {
  bool ok = true;
  for (const Schema* branch : s.all_of) {
    if (!evaluate(*branch, instance, ctx)) {
      ok = false;
      if (ctx.verdict_only()) return false;
    }
  }
  if (!s.any_of.empty()) {
    bool any = false;
    for (const Schema* branch : s.any_of) {
      if (holds(*branch, instance, ctx)) {
        any = true;
        break;
      }
    }
    if (!any) {
      if (ctx.verdict_only()) return false;
      fail(ctx, s, "anyOf",
           show(instance) + " is not valid under any of the given schemas" +
               (ctx.explain ? closest_reason(s.any_of, instance, ctx) : ""),
           instance);
      ok = false;
    }
  }
  if (!s.one_of.empty()) {
    std::vector<std::size_t> valid;
    for (std::size_t i = 0; i < s.one_of.size(); ++i) {
      if (holds(*s.one_of[i], instance, ctx)) valid.push_back(i);
    }
    if (valid.size() != 1) {
      if (ctx.verdict_only()) return false;
      if (valid.empty()) {
        fail(ctx, s, "oneOf",
             show(instance) + " is not valid under any of the given schemas" +
                 (ctx.explain ? closest_reason(s.one_of, instance, ctx) : ""),
             instance);
      } else {
        fail(ctx, s, "oneOf",
             show(instance) + " is valid under each of branches " + std::to_string(valid[0]) +
                 " and " + std::to_string(valid[1]) + ", but must be valid under exactly one",
             instance);
      }
      ok = false;
    }
  }
  if (s.not_schema != nullptr && holds(*s.not_schema, instance, ctx)) {
    fail(ctx, s, "not", show(instance) + " is valid under the schema it must not match", instance);
    ok = false;
  }
  return ok;
}

}  // namespace asdfcore::schema::detail
