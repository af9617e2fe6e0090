// The tree model: constructors, accessors, mapping edits, deep equality and big integers.
#include "asdfcore/tree/node.h"

#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include "asdfcore/error.h"
#include "support/catch.h"

using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::tree::CollectionStyle;
using asdfcore::tree::deep_equal;
using asdfcore::tree::escape_pointer_token;
using asdfcore::tree::Node;
using asdfcore::tree::NodeKind;
using asdfcore::tree::NodePtr;
using asdfcore::tree::ScalarStyle;

TEST_CASE("make_* give nodes of each kind with their values", "[node]") {
  CHECK(Node::make_null()->is_null());
  CHECK(Node::make_bool(true)->as_bool());
  CHECK(Node::make_int(-42)->as_int() == -42);
  CHECK(Node::make_float(1.5)->as_double() == 1.5);
  CHECK(Node::make_string("abc")->as_string() == "abc");
  CHECK(Node::make_binary({1, 2, 3})->as_binary() == std::vector<std::uint8_t>{1, 2, 3});
  const NodePtr ts = Node::make_timestamp("2001-12-14");
  CHECK(ts->kind() == NodeKind::kTimestamp);
  CHECK(ts->as_string() == "2001-12-14");
  CHECK(Node::make_sequence()->is_sequence());
  CHECK(Node::make_mapping()->is_mapping());
  CHECK(Node::make_int(1)->is_integer());
  CHECK(Node::make_float(1)->is_number());
  CHECK_FALSE(Node::make_string("1")->is_number());
  CHECK(asdfcore::tree::node_kind_name(NodeKind::kBigInt) == "bigint");
}

TEST_CASE("accessors of the wrong kind throw invalid-argument", "[node]") {
  const NodePtr s = Node::make_string("x");
  try {
    (void)s->as_int();
    FAIL("no throw");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kInvalidArgument);
  }
  CHECK_THROWS_AS(s->items(), Error);
  CHECK_THROWS_AS(s->entries(), Error);
  CHECK_THROWS_AS(Node::make_int(1)->as_bool(), Error);
  CHECK_THROWS_AS(Node::make_int(1)->as_string(), Error);
  CHECK(s->get("x") == nullptr);
  CHECK(s->size() == 0);
}

TEST_CASE("mapping get, set, erase keep insertion order", "[node]") {
  NodePtr m = Node::make_mapping();
  m->set("b", Node::make_int(1));
  m->set("a", Node::make_int(2));
  m->set("c", Node::make_int(3));
  REQUIRE(m->size() == 3);
  CHECK(m->entries()[0].first->as_string() == "b");
  CHECK(m->get("a")->as_int() == 2);
  m->set("b", Node::make_int(10));  // Replaced in place.
  CHECK(m->entries()[0].first->as_string() == "b");
  CHECK(m->get("b")->as_int() == 10);
  CHECK(m->erase("a"));
  CHECK_FALSE(m->erase("a"));
  CHECK(m->get("a") == nullptr);
  REQUIRE(m->size() == 2);
  CHECK(m->entries()[1].first->as_string() == "c");
  // A non-string key is not found by a string lookup.
  m->entries().emplace_back(Node::make_int(5), Node::make_string("five"));
  CHECK(m->get("5") == nullptr);
}

TEST_CASE("sequences append and count", "[node]") {
  NodePtr s = Node::make_sequence();
  s->push_back(Node::make_int(1));
  s->push_back(Node::make_null());
  CHECK(s->size() == 2);
  CHECK(s->items()[1]->is_null());
}

TEST_CASE("tags and styles are stored on the node", "[node]") {
  NodePtr n = Node::make_mapping();
  CHECK(n->tag().empty());
  n->set_tag("tag:stsci.edu:asdf/core/ndarray-1.0.0");
  CHECK(n->tag() == "tag:stsci.edu:asdf/core/ndarray-1.0.0");
  n->collection_style = CollectionStyle::kFlow;
  CHECK(n->collection_style == CollectionStyle::kFlow);
  NodePtr s = Node::make_string("x");
  CHECK(s->scalar_style == ScalarStyle::kAny);
  n->set_tag("");
  CHECK(n->tag().empty());
}

TEST_CASE("a tag's text can be shared between nodes, and is copied with them", "[node]") {
  const auto text = std::make_shared<const std::string>("tag:example.org:thing-1.0.0");
  NodePtr a = Node::make_mapping();
  NodePtr b = Node::make_sequence();
  a->set_tag(text);
  b->set_tag(text);
  CHECK(a->tag() == "tag:example.org:thing-1.0.0");
  CHECK(&a->tag() == &b->tag());  // one copy of the text
  CHECK(text.use_count() == 3);
  // Changing one node's tag leaves the other's alone.
  b->set_tag("tag:example.org:other-1.0.0");
  CHECK(a->tag() == "tag:example.org:thing-1.0.0");
  CHECK(text.use_count() == 2);
  // A copy keeps the tag; an empty or null text removes it.
  const NodePtr copy = asdfcore::tree::deep_copy(a);
  CHECK(copy->tag() == a->tag());
  a->set_tag(std::make_shared<const std::string>());
  CHECK(a->tag().empty());
  a->set_tag(std::shared_ptr<const std::string>());
  CHECK(a->tag().empty());
  CHECK(copy->tag() == "tag:example.org:thing-1.0.0");
}

TEST_CASE("deep_equal compares values, tags, NaN and mappings as sets", "[node]") {
  CHECK(deep_equal(*Node::make_int(3), *Node::make_int(3)));
  CHECK_FALSE(deep_equal(*Node::make_int(3), *Node::make_float(3.0)));
  CHECK_FALSE(deep_equal(*Node::make_string("3"), *Node::make_int(3)));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK(deep_equal(*Node::make_float(nan), *Node::make_float(nan)));
  CHECK_FALSE(deep_equal(*Node::make_float(nan), *Node::make_float(1.0)));
  CHECK(deep_equal(*Node::make_float(0.0), *Node::make_float(-0.0)));

  NodePtr a = Node::make_mapping();
  a->set("x", Node::make_int(1));
  a->set("y", Node::make_string("two"));
  NodePtr b = Node::make_mapping();
  b->set("y", Node::make_string("two"));
  b->set("x", Node::make_int(1));
  CHECK(deep_equal(*a, *b));  // Order does not matter.
  b->set("x", Node::make_int(2));
  CHECK_FALSE(deep_equal(*a, *b));
  b->set("x", Node::make_int(1));
  b->set_tag("tag:example.org:thing-1.0");
  CHECK_FALSE(deep_equal(*a, *b));  // Tags matter.
  b->set_tag("");
  b->collection_style = CollectionStyle::kFlow;
  CHECK(deep_equal(*a, *b));  // Styles do not.
  b->set("z", Node::make_null());
  CHECK_FALSE(deep_equal(*a, *b));

  NodePtr s1 = Node::make_sequence();
  NodePtr s2 = Node::make_sequence();
  s1->push_back(Node::make_int(1));
  s1->push_back(Node::make_int(2));
  s2->push_back(Node::make_int(2));
  s2->push_back(Node::make_int(1));
  CHECK_FALSE(deep_equal(*s1, *s2));  // Sequence order matters.
  CHECK(deep_equal(*Node::make_binary({1, 2}), *Node::make_binary({1, 2})));
  CHECK_FALSE(deep_equal(*Node::make_binary({1, 2}), *Node::make_binary({2, 1})));
  CHECK(deep_equal(*Node::make_null(), *Node::make_null()));
}

TEST_CASE("make_integer_text keeps int64 values as kInt and bigger ones as text", "[node]") {
  NodePtr small = Node::make_integer_text("-9223372036854775808");
  CHECK(small->kind() == NodeKind::kInt);
  CHECK(small->as_int() == std::numeric_limits<std::int64_t>::min());
  CHECK(Node::make_integer_text("+17")->as_int() == 17);

  NodePtr big = Node::make_integer_text("9223372036854775808");
  CHECK(big->kind() == NodeKind::kBigInt);
  CHECK(big->integer_text() == "9223372036854775808");
  CHECK(big->is_integer());
  CHECK_THROWS_AS(big->as_int(), Error);
  CHECK(big->as_double() == 9223372036854775808.0);

  NodePtr neg = Node::make_integer_text("-123456789012345678901234567890");
  CHECK(neg->kind() == NodeKind::kBigInt);
  CHECK(neg->integer_text() == "-123456789012345678901234567890");
  CHECK(Node::make_integer_text("+123456789012345678901234567890")->integer_text() ==
        "123456789012345678901234567890");
  CHECK(Node::make_int(-5)->integer_text() == "-5");
  CHECK(deep_equal(*big, *Node::make_integer_text("9223372036854775808")));
  CHECK_FALSE(deep_equal(*big, *Node::make_integer_text("9223372036854775809")));
}

TEST_CASE("escape_pointer_token escapes ~ and /", "[node]") {
  CHECK(escape_pointer_token("a/b~c") == "a~1b~0c");
  CHECK(escape_pointer_token("plain") == "plain");
}
