#include "schema/uri.h"

#include <vector>

namespace asdfcore::schema::detail {
namespace {

struct Parts {
  std::string_view scheme, authority, path, query, fragment;
  bool has_scheme = false, has_authority = false, has_query = false, has_fragment = false;
};

Parts parse(std::string_view uri) {
  Parts p;
  if (auto hash = uri.find('#'); hash != std::string_view::npos) {
    p.fragment = uri.substr(hash + 1);
    p.has_fragment = true;
    uri = uri.substr(0, hash);
  }
  if (auto q = uri.find('?'); q != std::string_view::npos) {
    p.query = uri.substr(q + 1);
    p.has_query = true;
    uri = uri.substr(0, q);
  }
  // A scheme is letters, digits, + - . before the first ':' (and before any '/').
  if (auto colon = uri.find(':'); colon != std::string_view::npos && colon > 0) {
    bool scheme = true;
    for (std::size_t i = 0; i < colon; ++i) {
      const char c = uri[i];
      const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
      if (!(alpha || (i > 0 && ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.')))) {
        scheme = false;
        break;
      }
    }
    if (scheme) {
      p.scheme = uri.substr(0, colon);
      p.has_scheme = true;
      uri = uri.substr(colon + 1);
    }
  }
  if (uri.starts_with("//")) {
    uri = uri.substr(2);
    const auto slash = uri.find('/');
    p.authority = uri.substr(0, slash);
    p.has_authority = true;
    uri = slash == std::string_view::npos ? std::string_view{} : uri.substr(slash);
  }
  p.path = uri;
  return p;
}

std::string remove_dot_segments(std::string_view path) {
  std::vector<std::string_view> out;
  const bool absolute = path.starts_with('/');
  std::size_t pos = absolute ? 1 : 0;
  bool trailing_slash = false;
  while (pos <= path.size()) {
    const auto next = path.find('/', pos);
    const auto segment =
        path.substr(pos, next == std::string_view::npos ? std::string_view::npos : next - pos);
    trailing_slash = false;
    if (segment == "..") {
      if (!out.empty()) out.pop_back();
      trailing_slash = true;
    } else if (segment == ".") {
      trailing_slash = true;
    } else {
      out.push_back(segment);
    }
    if (next == std::string_view::npos) break;
    pos = next + 1;
  }
  std::string result = absolute ? "/" : "";
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (i > 0) result += '/';
    result += out[i];
  }
  if (trailing_slash && !result.empty() && result.back() != '/') result += '/';
  return result;
}

std::string compose(const Parts& p, const std::string& path) {
  std::string out;
  if (p.has_scheme) {
    out += p.scheme;
    out += ':';
  }
  if (p.has_authority) {
    out += "//";
    out += p.authority;
  }
  out += path;
  if (p.has_query) {
    out += '?';
    out += p.query;
  }
  if (p.has_fragment) {
    out += '#';
    out += p.fragment;
  }
  return out;
}

}  // namespace

std::string resolve_uri(std::string_view base, std::string_view reference) {
  if (base.empty()) return std::string(reference);
  const Parts r = parse(reference);
  if (r.has_scheme) return compose(r, remove_dot_segments(r.path));
  const Parts b = parse(base);
  Parts t;
  t.scheme = b.scheme;
  t.has_scheme = b.has_scheme;
  t.fragment = r.fragment;
  t.has_fragment = r.has_fragment;
  std::string path;
  if (r.has_authority) {
    t.authority = r.authority;
    t.has_authority = true;
    path = remove_dot_segments(r.path);
    t.query = r.query;
    t.has_query = r.has_query;
  } else {
    t.authority = b.authority;
    t.has_authority = b.has_authority;
    if (r.path.empty()) {
      path = std::string(b.path);
      t.query = r.has_query ? r.query : b.query;
      t.has_query = r.has_query || b.has_query;
    } else {
      if (r.path.starts_with('/')) {
        path = remove_dot_segments(r.path);
      } else {
        std::string merged;
        if (b.has_authority && b.path.empty()) {
          merged = "/";
        } else {
          const auto slash = b.path.rfind('/');
          if (slash != std::string_view::npos) merged = std::string(b.path.substr(0, slash + 1));
        }
        merged += r.path;
        path = remove_dot_segments(merged);
      }
      t.query = r.query;
      t.has_query = r.has_query;
    }
  }
  return compose(t, path);
}

std::pair<std::string, std::string> split_fragment(std::string_view uri) {
  const auto hash = uri.find('#');
  if (hash == std::string_view::npos) return {std::string(uri), ""};
  return {std::string(uri.substr(0, hash)), std::string(uri.substr(hash + 1))};
}

}  // namespace asdfcore::schema::detail
