// items, additionalItems, minItems, maxItems, uniqueItems.

#include "schema/evaluate.h"

namespace asdfcore::schema::detail {

bool check_array(const Schema& s, const tree::Node& instance, Context& ctx) {
  if (!instance.is_sequence()) return true;
  const auto& items = instance.items();
  bool ok = true;
  auto failed = [&] { ok = false; return ctx.verdict_only(); };

  if (s.min_items && items.size() < *s.min_items) {
    fail(ctx, s, "minItems", show(instance) + " is too short (at least " +
                                 std::to_string(*s.min_items) + " wanted)", instance);
    if (failed()) return false;
  }
  if (s.max_items && items.size() > *s.max_items) {
    fail(ctx, s, "maxItems", show(instance) + " is too long (at most " +
                                 std::to_string(*s.max_items) + " allowed)", instance);
    if (failed()) return false;
  }
  if (s.items_is_list) {
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (i < s.item_list.size()) {
        if (!evaluate_child(*s.item_list[i], *items[i], std::to_string(i), ctx) && failed()) {
          return false;
        }
      } else if (!s.additional_items_allowed) {
        fail(ctx, s, "additionalItems",
             "additional items are not allowed (" + std::to_string(items.size() - s.item_list.size()) +
                 " unexpected)", instance);
        if (failed()) return false;
        break;
      } else if (s.additional_items != nullptr) {
        if (!evaluate_child(*s.additional_items, *items[i], std::to_string(i), ctx) && failed()) {
          return false;
        }
      }
    }
  } else if (s.items != nullptr) {
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (ctx.full()) break;
      if (!evaluate_child(*s.items, *items[i], std::to_string(i), ctx) && failed()) return false;
    }
  }
  if (s.unique_items) {
    for (std::size_t i = 0; i < items.size(); ++i) {
      for (std::size_t j = i + 1; j < items.size(); ++j) {
        if (json_equal(*items[i], *items[j])) {
          fail(ctx, s, "uniqueItems",
               show(instance) + " has non-unique elements (items " + std::to_string(i) + " and " +
                   std::to_string(j) + ")", instance);
          return false;
        }
      }
    }
  }
  return ok;
}

}  // namespace asdfcore::schema::detail
