#include "batch/html_report.h"

#include <openssl/evp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <map>
#include <random>

#include "asdfcore/error.h"
#include "asdfcore/io/atomic_file.h"
#include "batch/batch_report.h"
#include "batch/report_digest.h"
#include "fitsasdf/preview.h"

namespace fitsasdf::cli::batch {
namespace {

namespace fs = std::filesystem;

/// One input as the page shows it.

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}


std::string fixed(double v, int digits) {
  char text[48];
  std::snprintf(text, sizeof text, "%.*f", digits, v);
  return text;
}

std::string base64(std::span<const std::uint8_t> bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), bytes.data(),
                                static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

std::string now_utc() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return text;
}

constexpr const char* kStyle = R"(
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
.meta { color: #666; } .state { padding: 0.4em 0.7em; background: #fff4d6; display: inline-block; }
table { border-collapse: collapse; margin: 0.4em 0; } th, td { padding: 0.2em 0.6em; text-align: left; }
th { background: #eef; } tr:nth-child(even) td { background: #f7f7f7; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
table.sortable th { cursor: pointer; } table.sortable th:hover { background: #dde; }
tr.failed td { color: #a00; } .msg { font-family: monospace; font-size: 12px; word-break: break-all; }
.totals td:first-child { color: #555; } .totals td.n { font-weight: bold; }
.thumbs { display: flex; flex-wrap: wrap; gap: 12px; } .thumbs figure { margin: 0; width: 170px; }
.thumbs img { border: 1px solid #ccc; max-width: 160px; } .thumbs figcaption { font-size: 11px; word-break: break-all; }
)";

// Sorting by a click on a column's heading; numbers sort by their data-v value.
constexpr const char* kScript = R"(
document.querySelectorAll('table.sortable').forEach(function (table) {
  table.querySelectorAll('th').forEach(function (th, column) {
    th.addEventListener('click', function () {
      var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      var ascending = th.getAttribute('data-dir') !== 'asc';
      rows.sort(function (a, b) {
        var x = a.cells[column], y = b.cells[column];
        var vx = x.hasAttribute('data-v') ? parseFloat(x.getAttribute('data-v')) : x.textContent;
        var vy = y.hasAttribute('data-v') ? parseFloat(y.getAttribute('data-v')) : y.textContent;
        var c = typeof vx === 'number' ? vx - vy : String(vx).localeCompare(String(vy));
        return ascending ? c : -c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
      th.setAttribute('data-dir', ascending ? 'asc' : 'desc');
    });
  });
  table.setAttribute('data-sortable', 'ready');
});
)";

class Page {
 public:
  void raw(std::string_view s) { out_ += s; }
  void text(std::string_view s) { out_ += escape(s); }
  std::string& str() { return out_; }

  void number_cell(double sort_value, const std::string& shown, const char* id = nullptr) {
    out_ += "<td class=\"n\"";
    if (id) out_ += std::string(" id=\"") + id + "\"";
    out_ += " data-v=\"" + fixed(sort_value, 6) + "\">" + escape(shown) + "</td>";
  }

  void row(const Row& r, bool with_error) {
    out_ += r.status == "failed" ? "<tr class=\"failed\">" : "<tr>";
    out_ += "<td>" + escape(r.input) + "</td><td>" + escape(r.status) + "</td>";
    number_cell(static_cast<double>(r.bytes_in), human_bytes(static_cast<double>(r.bytes_in)));
    number_cell(static_cast<double>(r.bytes_out), human_bytes(static_cast<double>(r.bytes_out)));
    number_cell(r.seconds, fixed(r.seconds, 3));
    if (with_error) out_ += "<td class=\"msg\">" + escape(r.error) + "</td>";
    out_ += "</tr>\n";
  }

 private:
  std::string out_;
};

constexpr const char* kRowHead =
    "<tr><th>input</th><th>status</th><th class=\"n\">bytes in</th><th class=\"n\">bytes "
    "out</th><th class=\"n\">seconds</th>";

void totals(Page& p, const Digest& d) {
  double seconds = 0;
  std::size_t not_done = 0;
  std::vector<std::string> stops;
  for (const auto& s : d.summaries) {
    seconds += s.value("seconds", 0.0);
    not_done += s.value("not_done", std::size_t{0});
    if (s.contains("stopped") && s["stopped"].is_string()) {
      stops.push_back(s["stopped"].get<std::string>() + ": " + s.value("message", ""));
    }
  }
  auto count = [&](const char* status) {
    const auto it = d.by_status.find(status);
    return it == d.by_status.end() ? std::size_t{0} : it->second;
  };
  p.raw("<h2>Totals</h2>\n<table class=\"totals\">\n");
  auto line = [&](const char* label, const char* id, double v, const std::string& shown) {
    p.raw("<tr><td>");
    p.raw(label);
    p.raw("</td>");
    p.number_cell(v, shown, id);
    p.raw("</tr>\n");
  };
  line("inputs", "count-inputs", static_cast<double>(d.inputs), std::to_string(d.inputs));
  for (const char* status : {"ok", "failed", "skipped"}) {
    const std::string id = std::string("count-") + status;
    line(status, id.c_str(), static_cast<double>(count(status)), std::to_string(count(status)));
  }
  if (!d.summaries.empty()) {
    line("not done", "count-not-done", static_cast<double>(not_done), std::to_string(not_done));
  }
  line("with findings", "count-findings", static_cast<double>(d.with_findings),
       std::to_string(d.with_findings));
  line("bytes in", "bytes-in", static_cast<double>(d.bytes_in),
       human_bytes(static_cast<double>(d.bytes_in)));
  line("bytes out", "bytes-out", static_cast<double>(d.bytes_out),
       human_bytes(static_cast<double>(d.bytes_out)));
  if (seconds > 0) {
    const char* label = d.summaries.size() > 1 ? "seconds (the reports' runs added up)" : "seconds";
    line(label, "seconds", seconds, fixed(seconds, 1));
    const double files = static_cast<double>(count("ok")) / seconds;
    const double bytes = static_cast<double>(d.converted_bytes) / seconds;
    line("files converted per second", "files-per-second", files, fixed(files, 1));
    line("input converted per second", "bytes-per-second", bytes, human_bytes(bytes) + "/s");
  }
  p.raw("</table>\n");
  for (const auto& s : stops) {
    p.raw("<p class=\"state\">stopped: ");
    p.text(s);
    p.raw("</p>\n");
  }
}

void failures(Page& p, const Digest& d) {
  p.raw("<h2>Failures by category</h2>\n");
  if (d.categories.empty()) {
    p.raw("<p id=\"no-failures\">No input failed.</p>\n");
    return;
  }
  std::vector<std::pair<std::string, const Digest::Category*>> sorted;
  for (const auto& [name, c] : d.categories) sorted.emplace_back(name, &c);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second->count > b.second->count; });
  p.raw("<table id=\"failures\">\n<tr><th>category</th><th class=\"n\">inputs</th>"
        "<th>examples</th></tr>\n");
  for (const auto& [name, c] : sorted) {
    p.raw("<tr class=\"failed\" data-category=\"" + escape(name) + "\"><td>");
    p.text(name);
    p.raw("</td>");
    p.number_cell(static_cast<double>(c->count), std::to_string(c->count));
    p.raw("<td class=\"msg\">");
    for (const auto& e : c->examples) {
      p.text(e.input);
      p.raw(": ");
      p.text(e.error);
      p.raw("<br>");
    }
    if (c->count > c->examples.size()) {
      p.raw("(and " + std::to_string(c->count - c->examples.size()) + " more)");
    }
    p.raw("</td></tr>\n");
  }
  p.raw("</table>\n");
}

void top_list(Page& p, const char* heading, const char* id, const std::vector<Row>& rows) {
  if (rows.empty()) return;
  p.raw(std::string("<h2>") + heading + "</h2>\n<table id=\"" + id + "\" class=\"sortable\">\n<thead>");
  p.raw(kRowHead);
  p.raw("</tr></thead><tbody>\n");
  for (const auto& r : rows) p.row(r, false);
  p.raw("</tbody></table>\n");
}

std::size_t thumbnails(Page& p, const Digest& d, const HtmlReportOptions& options) {
  if (options.thumbnails == 0) return 0;
  std::vector<std::pair<std::string, std::string>> shown;  // output, data URI
  for (const auto& output : d.candidates) {
    if (shown.size() >= options.thumbnails) break;
    try {
      PreviewOptions o;
      o.size = options.thumbnail_size;
      const PreviewResult r = preview(output, o);
      const auto png = encode_png(r.rgb, r.out_width, r.out_height);
      shown.emplace_back(output, "data:image/png;base64," + base64(png));
    } catch (const asdfcore::Error&) {
      // An output with no image (a table, a header only) or one removed since: none shown.
    }
  }
  p.raw("<h2>Thumbnails</h2>\n");
  if (shown.empty()) {
    p.raw("<p>None of the sampled outputs holds an image.</p>\n");
    return 0;
  }
  p.raw("<p class=\"meta\">" + std::to_string(shown.size()) +
        " outputs chosen at random; ZScale limits, linear stretch, row 0 at the bottom, "
        "missing values dark red.</p>\n<div class=\"thumbs\">\n");
  for (const auto& [output, uri] : shown) {
    p.raw("<figure><img alt=\"preview\" src=\"" + uri + "\"><figcaption>");
    p.text(fs::path(output).filename().string());
    p.raw("</figcaption></figure>\n");
  }
  p.raw("</div>\n");
  return shown.size();
}

}  // namespace


HtmlReportStats write_html_report(const std::vector<fs::path>& reports, const fs::path& out,
                                  const HtmlReportOptions& options) {
  DigestOptions digest;
  digest.top = options.top;
  digest.examples = options.examples;
  digest.max_rows = options.max_rows;
  digest.thumbnails = options.thumbnails;
  const fs::path folder = out.parent_path().empty() ? fs::path(".") : out.parent_path();
  Digest d = digest_reports(reports, folder, digest);
  // A report without a summary line (a run still going, or killed) has no run to show.
  std::erase_if(d.summaries, [](const Line& s) { return s.is_null(); });

  Page p;
  p.raw("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>");
  p.text(options.title);
  p.raw("</title>\n<style>");
  p.raw(kStyle);
  p.raw("</style>\n</head>\n<body>\n<h1>");
  p.text(options.title);
  p.raw("</h1>\n<p class=\"meta\">Made by fitsasdf at " + now_utc() + " from ");
  for (std::size_t i = 0; i < reports.size(); ++i) {
    if (i > 0) p.raw(", ");
    p.raw("<code>");
    p.text(reports[i].string());
    p.raw("</code>");
  }
  p.raw(".</p>\n");
  if (!options.in_progress.empty()) {
    p.raw("<p class=\"state\" id=\"in-progress\">");
    p.text(options.in_progress);
    p.raw(" (this page is refreshed while the batch runs)</p>\n");
  }
  totals(p, d);
  failures(p, d);
  top_list(p, "Largest inputs", "largest", d.largest.sorted());
  top_list(p, "Slowest inputs", "slowest", d.slowest.sorted());
  HtmlReportStats stats;
  stats.inputs = d.inputs;
  stats.failed = d.by_status.contains("failed") ? d.by_status.at("failed") : 0;
  stats.thumbnails = thumbnails(p, d, options);

  p.raw("<h2>Inputs</h2>\n");
  std::vector<const Row*> rows;
  for (const auto& r : d.failed_rows) {
    if (rows.size() < options.max_rows) rows.push_back(&r);
  }
  for (const auto& r : d.other_rows) {
    if (rows.size() < options.max_rows) rows.push_back(&r);
  }
  stats.rows = rows.size();
  if (rows.size() < d.inputs) {
    p.raw("<p class=\"meta\" id=\"rows-note\">The table shows " + std::to_string(rows.size()) +
          " of " + std::to_string(d.inputs) +
          " inputs, failures first; the JSON-lines report has them all.</p>\n");
  }
  p.raw("<table id=\"inputs\" class=\"sortable\">\n<thead>");
  p.raw(kRowHead);
  p.raw("<th>error</th></tr></thead><tbody>\n");
  for (const Row* r : rows) p.row(*r, true);
  p.raw("</tbody></table>\n<script>");
  p.raw(kScript);
  p.raw("</script>\n</body>\n</html>\n");

  asdfcore::io::AtomicFile file(out.string(), false);
  const std::string& html = p.str();
  file.write({reinterpret_cast<const std::uint8_t*>(html.data()), html.size()});
  file.commit();
  return stats;
}

}  // namespace fitsasdf::cli::batch
