// The batch report as an HTML page (`batch --html`, `fitsasdf report --html`): the counts,
// the failures by category, the thumbnails as data URIs, no external resource, and the page as
// headless Chromium shows it (its DOM after the page's script ran, and a screenshot that is not
// blank).
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "support/catch.h"
#include "support/layers.h"
#include "support/paths.h"
#include "support/png_image.h"
#include "support/run.h"
#include "support/temp_dir.h"

using namespace fitsasdf::test;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The number shown in the totals cell `id` (-1 when there is none).
long long total(const std::string& html, const std::string& id) {
  const std::regex cell("id=\"" + id + "\" data-v=\"[^\"]*\">([0-9]+)<");
  std::smatch m;
  return std::regex_search(html, m, cell) ? std::stoll(m[1]) : -1;
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
  return n;
}

/// A small archive: three FITS files with images, one cut short, one that is not FITS.
struct Archive {
  TempDir dir;
  fs::path in = dir / "in";
  fs::path report = dir / "run.jsonl";
  fs::path page = dir / "run.html";
  Archive() {
    fs::create_directories(in);
    const fs::path corpus = corpus_dir() / "fits-astropy";
    for (const char* name : {"test0.fits", "arange.fits", "o4sp040b0_raw.fits"}) {
      fs::copy_file(corpus / name, in / name);
    }
    const std::string whole = slurp(corpus / "test0.fits");
    std::ofstream(in / "cut.fits", std::ios::binary) << whole.substr(0, 2880 + 1000);
    std::ofstream(in / "notes.fits") << "these are notes, not FITS\n";
  }
};

void check_page(const std::string& html, const std::string& where) {
  INFO(where);
  CHECK(total(html, "count-inputs") == 5);
  CHECK(total(html, "count-ok") == 3);
  CHECK(total(html, "count-failed") == 2);
  CHECK(total(html, "count-skipped") == 0);
  // Each failure in its category, its message and its row in the inputs table.
  CHECK(html.find("data-category=\"not-fits\"") != std::string::npos);
  CHECK(html.find("data-category=\"truncated\"") != std::string::npos);
  CHECK(std::regex_search(html, std::regex("<tr class=\"failed\"><td>[^<]*cut\\.fits</td>")));
  CHECK(std::regex_search(html, std::regex("<tr class=\"failed\"><td>[^<]*notes\\.fits</td>")));
  // Self-contained: no stylesheet, script, image or font from elsewhere.
  for (const char* external : {"<link", "src=\"http", "src=\"//", "src=\"/", "@import", "url("}) {
    CHECK(html.find(external) == std::string::npos);
  }
}

}  // namespace

TEST_CASE("batch --html and report --html show the run: counts, failures, thumbnails",
          "[cli][report]") {
  Archive a;
  auto r = run_cli({"batch", a.in.string(), "-o", (a.dir / "out").string(), "--report",
                    a.report.string(), "--html", a.page.string(), "--thumbnails", "2", "-q",
                    "--no-fsync"});
  INFO(r.err);
  REQUIRE(r.status == 1);  // two inputs failed
  const std::string html = slurp(a.page);
  check_page(html, "batch --html");
  CHECK(count_of(html, "<img alt=\"preview\" src=\"data:image/png;base64,") == 2);
  CHECK(html.find("id=\"in-progress\"") == std::string::npos);  // the final page

  // The same page from the report alone; without thumbnails, none.
  const fs::path again = a.dir / "again.html";
  r = run_cli({"report", a.report.string(), "--html", again.string()});
  REQUIRE(r.status == 0);
  CHECK(r.out.find("5 inputs, 2 failed") != std::string::npos);
  check_page(slurp(again), "report --html");
  CHECK(count_of(slurp(again), "data:image/png") == 0);

  // A table cut to fewer rows says so and keeps the failures.
  r = run_cli({"report", a.report.string(), "--html", again.string(), "--max-rows", "2", "-q"});
  REQUIRE(r.status == 0);
  const std::string cut = slurp(again);
  CHECK(cut.find("The table shows 2 of 5 inputs") != std::string::npos);
  CHECK(count_of(cut.substr(cut.find("id=\"inputs\"")), "<tr class=\"failed\">") == 2);

  // Usage errors.
  CHECK(run_cli({"batch", a.in.string(), "-o", (a.dir / "o2").string(), "--html",
                 (a.dir / "x.html").string()})
            .status == 4);  // --html needs --report
  CHECK(run_cli({"report", a.report.string()}).status == 4);
  r = run_cli({"report", (a.dir / "missing.jsonl").string(), "--html", again.string()});
  CHECK(r.status == 0);  // a missing report has no lines
  CHECK(total(slurp(again), "count-inputs") == 0);
}

TEST_CASE("the HTML report opens in headless Chromium and shows the run", "[cli][report]") {
  const fs::path chromium = "/usr/bin/chromium";
  if (access(chromium.c_str(), X_OK) != 0) {
    FITSASDF_SKIP_LAYER(kLayerChromium,
                        "chromium is not installed (scripts/install-deps.sh test installs it)");
  }
  Archive a;
  auto r = run_cli({"batch", a.in.string(), "-o", (a.dir / "out").string(), "--report",
                    a.report.string(), "--html", a.page.string(), "--thumbnails", "3", "-q",
                    "--no-fsync"});
  REQUIRE(r.status == 1);
  // As root (CI) Chromium runs only without its sandbox; /dev/shm may be missing in a chroot.
  const std::vector<std::string> base{chromium.string(),
                                      "--headless",
                                      "--no-sandbox",
                                      "--disable-gpu",
                                      "--disable-dev-shm-usage",
                                      "--no-first-run",
                                      "--user-data-dir=" + (a.dir / "profile").string(),
                                      "--window-size=1200,1600"};
  const std::string url = "file://" + a.page.string();
  auto dom_args = base;
  dom_args.push_back("--dump-dom");
  dom_args.push_back(url);
  const RunResult dom = run(dom_args);
  INFO(dom.err);
  REQUIRE(dom.status == 0);
  // The script ran (the tables became sortable) and the DOM shows the counts and failures.
  CHECK(count_of(dom.out, "data-sortable=\"ready\"") == 3);  // inputs, largest, slowest
  check_page(dom.out, "Chromium's DOM");
  CHECK(count_of(dom.out, "data:image/png;base64,") == 3);

  auto shot_args = base;
  const fs::path shot = a.dir / "shot.png";
  shot_args.push_back("--screenshot=" + shot.string());
  shot_args.push_back(url);
  const RunResult taken = run(shot_args);
  INFO(taken.err);
  REQUIRE(taken.status == 0);
  const Png png = decode_png(shot);
  CHECK(png.width == 1200);
  // Not blank: text, tables and thumbnails give many colours and many non-white pixels.
  std::set<std::array<std::uint8_t, 3>> colours;
  std::size_t inked = 0;
  for (std::uint32_t y = 0; y < png.height; ++y) {
    for (std::uint32_t x = 0; x < png.width; ++x) {
      const auto c = png.at(x, y);
      colours.insert(c);
      if (c != std::array<std::uint8_t, 3>{255, 255, 255}) ++inked;
    }
  }
  CHECK(colours.size() > 50);
  CHECK(inked > static_cast<std::size_t>(png.width) * png.height / 50);
  layer_ran(kLayerChromium, "chromium --headless (--dump-dom, --screenshot)");
}
