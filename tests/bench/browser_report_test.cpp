// The two self-contained pages, compare's and explain's index.html, rendered by a real browser:
// headless Chromium (Debian's `chromium`) loads a copy of each page with a small check script
// added, which writes what it found into the page: every <img> loaded with a size, every inline
// <svg> drawn with a size, every table's rows. The page itself holds no script and fetches
// nothing (checked on its text). A screenshot of each page is kept under the build folder
// (browser/compare.png, browser/explain.png). Skipped, with the reason, where Chromium is absent.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "bench/experiments/spawned_program.h"
#include "command_runner.h"

namespace fs = std::filesystem;
using ablate::bench::experiments::run_program;
using ablate::bench::testing::slurp;

namespace {

const char* const kChromium = "/usr/bin/chromium";

// Runs after the page's load event (every image decoded or failed) and writes the findings.
const char* const kCheckScript = R"(<script>
window.addEventListener('load', () => {
  const imgs = [...document.images];
  const loaded = imgs.filter(i => i.complete && i.naturalWidth > 0 && i.getBoundingClientRect().width > 0);
  const svgs = [...document.querySelectorAll('svg')];
  const drawn = svgs.filter(s => s.getBoundingClientRect().width > 0 && s.getBoundingClientRect().height > 0);
  const rows = [...document.querySelectorAll('table')].map(t => t.tBodies.length ? t.tBodies[0].rows.length : 0);
  const out = document.createElement('pre');
  out.id = 'ablate-check';
  out.textContent = 'images ' + imgs.length + ' loaded ' + loaded.length + ' svgs ' + svgs.length + ' drawn ' +
                    drawn.length + ' table_rows ' + rows.join(',') + ' end';
  document.body.appendChild(out);
});
</script>)";

struct PageCheck {
  int images = -1, loaded = -1, svgs = -1, drawn = -1;
  std::string table_rows;  // "4,2": body rows of each table
};

class BrowserReport : public ablate::bench::testing::CommandTest {
 protected:
  void SetUp() override {
    CommandTest::SetUp();
    if (!fs::exists(kChromium)) GTEST_SKIP() << "Chromium is not installed (Debian: apt-get install chromium): no browser check";
  }
  std::vector<std::string> chromium(const std::vector<std::string>& more) {
    std::vector<std::string> argv = {kChromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                                     "--user-data-dir=" + (dir_ / "chromium-profile").string(), "--virtual-time-budget=10000"};
    argv.insert(argv.end(), more.begin(), more.end());
    return argv;
  }
  // The page's copy with the check script, rendered; what the script found. Keeps a screenshot
  // of the page itself as build/browser/NAME.png.
  PageCheck render(const fs::path& page, const std::string& name) {
    const std::string html = slurp(page);
    EXPECT_EQ(html.find("<script"), std::string::npos) << page << " holds a script";
    EXPECT_EQ(html.find("src=\"http"), std::string::npos) << page << " fetches something";
    EXPECT_EQ(html.find("href=\"http"), std::string::npos) << page << " links out for a resource";
    const fs::path checked = page.parent_path() / ("checked-" + page.filename().string());
    std::ofstream(checked) << std::regex_replace(html, std::regex("</body>"), std::string(kCheckScript) + "</body>");
    const auto dom = run_program(chromium({"--dump-dom", "file://" + checked.string()}));
    PageCheck c;
    std::smatch m;
    const std::regex found("images (\\d+) loaded (\\d+) svgs (\\d+) drawn (\\d+) table_rows ([0-9,]*) end");
    if (!std::regex_search(dom.output, m, found)) {
      ADD_FAILURE() << "Chromium did not run the check on " << checked << " (exit " << dom.exit_code << "):\n"
                    << dom.output.substr(0, 3000);
      return c;
    }
    c = {std::stoi(m[1]), std::stoi(m[2]), std::stoi(m[3]), std::stoi(m[4]), m[5]};
    const fs::path shots = fs::path(ABLATE_BINARY).parent_path() / "browser";
    fs::create_directories(shots);
    const fs::path shot = shots / (name + ".png");
    fs::remove(shot);
    run_program(chromium({"--screenshot=" + shot.string(), "--window-size=1280,2400", "file://" + page.string()}));
    EXPECT_GT(fs::exists(shot) ? fs::file_size(shot) : 0, 10000u) << "no screenshot of " << page << " at " << shot;
    return c;
  }
};

}  // namespace

TEST_F(BrowserReport, ComparePageShowsEveryPlotAndTheTableRows) {
  const fs::path report = dir_ / "compare";
  const auto o = ablate("compare --dataset synthetic --frameworks caffe,torch,theano --scale 0.001 --threads 1 --quiet "
                        "--test-iterations 1 --report " + report.string());
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  const PageCheck c = render(report / "index.html", "compare");
  const std::string md = slurp(report / "report.md");
  if (md.find("Plots skipped") == std::string::npos)
    EXPECT_GE(c.images, 3) << "accuracy and loss against time, the bars";
  else
    EXPECT_NE(md.find("matplotlib is not installed"), std::string::npos) << md;
  EXPECT_EQ(c.loaded, c.images) << "an image did not load";
  EXPECT_EQ(c.table_rows.substr(0, c.table_rows.find(',')), "3") << "the table: one row per framework (" << c.table_rows << ")";
}

TEST_F(BrowserReport, ExplainPageDrawsItsGraphs) {
  const auto o = ablate("explain --framework caffe --batch 2 --precision f64 --backend reference --out " + (dir_ / "explain").string());
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  const PageCheck c = render(dir_ / "explain" / "index.html", "explain");
  EXPECT_EQ(c.svgs, 4) << "memory plan, net, tape, compiled graph";
  EXPECT_EQ(c.drawn, c.svgs) << "an inline drawing has no size";
  EXPECT_EQ(c.loaded, c.images);
}
