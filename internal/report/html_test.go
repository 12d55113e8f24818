package report

import (
	"bytes"
	"context"
	stdhtml "html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/internal/comparetest"
	"github.com/llmgate/llmgate/internal/diagnose"
	"github.com/llmgate/llmgate/results"
)

func TestHTMLSelfContained(t *testing.T) {
	base, cur, c := fixture()
	var b bytes.Buffer
	if err := HTML(&b, cur, base, c); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{`src="http`, `href="http`, `@import`, `url(http`} {
		if strings.Contains(page, bad) {
			t.Errorf("report loads an external resource (%s)", bad)
		}
	}
	// One sweep curve plus a TTFT and an E2EL CDF per run.
	if n := strings.Count(page, "<svg "); n != 1+2*len(cur.Runs) {
		t.Errorf("report has %d charts, want %d", n, 1+2*len(cur.Runs))
	}
}

// probe is injected into the page under test: it records script errors and,
// after load, counts the SVG paths the browser actually drew with a length.
const probe = `<script>window.__errors=[];window.onerror=function(m){window.__errors.push(String(m))};
addEventListener("load",function(){var n=0;document.querySelectorAll("svg path.series").forEach(function(p){if(p.getTotalLength()>0&&p.getBBox().width>0)n++});
var d=document.createElement("div");d.id="probe";d.setAttribute("data-drawn",n);d.setAttribute("data-svgs",document.querySelectorAll("svg").length);
d.setAttribute("data-errors",window.__errors.join("|"));
var de=document.documentElement,cut=[];document.querySelectorAll("table,svg,pre,p,li").forEach(function(e){if(e.getBoundingClientRect().right>de.clientWidth+0.5)cut.push(e.tagName)});
document.querySelectorAll("pre").forEach(function(e){if(e.scrollWidth>e.clientWidth+0.5)cut.push("PRE(scrolls)")});
d.setAttribute("data-scroll",de.scrollWidth);d.setAttribute("data-client",de.clientWidth);d.setAttribute("data-cut",cut.join(" "));
document.body.appendChild(d)});</script>`

// chromium returns Debian's headless chromium, skipping the test when it
// is absent, except under CI=true where it must run.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium not found; CI must install it (apt-get install -y chromium)")
	}
	t.Skip("chromium not installed (apt-get install -y chromium); skipping the browser test")
	return ""
}

// probed is what the probe saw in the browser.
type probed struct {
	drawn, svgs, scrollWidth, clientWidth int
	errors, cut                           string
}

// openInBrowser renders fix's report, opens it in headless chromium in a
// window width px wide, and returns what the probe saw. With
// LLMGATE_SCREENSHOT_DIR set it also saves a screenshot there, named name.
func openInBrowser(t *testing.T, bin string, width int, name string, fix func() (base, cur *results.File, c *compare.Comparison)) probed {
	t.Helper()
	base, cur, c := fix()
	var b bytes.Buffer
	if err := HTML(&b, cur, base, c); err != nil {
		t.Fatal(err)
	}
	page := strings.Replace(b.String(), "<head>", "<head>"+probe, 1)
	dir := t.TempDir()
	path := filepath.Join(dir, "report.html")
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := []string{"--headless", "--disable-gpu", "--no-sandbox", "--no-first-run", "--hide-scrollbars",
		"--user-data-dir=" + filepath.Join(dir, "profile"), "--enable-logging=stderr", "--v=0",
		"--virtual-time-budget=5000", "--window-size=" + strconv.Itoa(width) + ",1200"}
	cmd := exec.CommandContext(ctx, bin, append(args, "--dump-dom", "file://"+path)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium failed: %v\n%s", err, stderr.String())
	}
	m := regexp.MustCompile(`<div id="probe" data-drawn="(\d+)" data-svgs="(\d+)" data-errors="([^"]*)" data-scroll="(\d+)" data-client="(\d+)" data-cut="([^"]*)"`).FindStringSubmatch(stdout.String())
	if m == nil {
		t.Fatalf("probe did not run; DOM tail:\n%s\nstderr:\n%s", tail(stdout.String(), 500), stderr.String())
	}
	if strings.Contains(stderr.String(), ":CONSOLE(") {
		t.Errorf("console messages from the page:\n%s", stderr.String())
	}
	var p probed
	p.drawn, _ = strconv.Atoi(m[1])
	p.svgs, _ = strconv.Atoi(m[2])
	p.errors = m[3]
	p.scrollWidth, _ = strconv.Atoi(m[4])
	p.clientWidth, _ = strconv.Atoi(m[5])
	p.cut = m[6]
	if shots := os.Getenv("LLMGATE_SCREENSHOT_DIR"); shots != "" {
		png := filepath.Join(shots, name+"-"+strconv.Itoa(width)+".png")
		shot := exec.CommandContext(ctx, bin, append(args[:len(args)-1], "--window-size="+strconv.Itoa(width)+",2400", "--screenshot="+png, "file://"+path)...)
		if out, err := shot.CombinedOutput(); err != nil {
			t.Errorf("screenshot: %v\n%s", err, out)
		}
	}
	return p
}

// TestHTMLInBrowser opens the report in headless chromium and checks the
// charts are drawn and no script error happened.
func TestHTMLInBrowser(t *testing.T) {
	bin := chromium(t)
	_, cur, _ := fixture()
	p := openInBrowser(t, bin, 1280, "report", fixture)
	// Every CDF chart draws baseline and current where both have the run;
	// the sweep chart draws two curves.
	if want := 1 + 2*len(cur.Runs); p.svgs != want {
		t.Errorf("browser found %d svg charts, want %d", p.svgs, want)
	}
	if p.drawn < p.svgs {
		t.Errorf("browser drew %d paths for %d charts", p.drawn, p.svgs)
	}
	if p.errors != "" {
		t.Errorf("script errors in the page: %s", p.errors)
	}
	t.Logf("chromium drew %d paths in %d charts", p.drawn, p.svgs)
}

// TestHTMLFitsWidths checks the page has no horizontal overflow at the
// widths of common screens, 1280 to 1920 px, with and without GPU figures
// (their run table columns and charts): its scroll width is its
// client width, and no table, chart or paragraph ends past the right edge
// (the comparison table once cut off its verdict text at 1400 px).
func TestHTMLFitsWidths(t *testing.T) {
	if testing.Short() {
		t.Skip("renders six pages in chromium (about 40 s): full run only; TestHTMLInBrowser covers one page under -short")
	}
	bin := chromium(t)
	for _, f := range []struct {
		name string
		fix  func() (base, cur *results.File, c *compare.Comparison)
	}{{"report", fixture}, {"report-gpu", gpuFixture}} { // the GPU columns widen the run table
		for _, w := range []int{1280, 1400, 1920} {
			p := openInBrowser(t, bin, w, f.name, f.fix)
			if p.scrollWidth > p.clientWidth || p.cut != "" {
				t.Errorf("%s at %d px: scroll width %d, client width %d, cut off: %q", f.name, w, p.scrollWidth, p.clientWidth, p.cut)
			}
		}
	}
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// TestHTMLRunsAreTables checks the page's Runs section is HTML that wraps
// to the window: the run table a table with a row per run, the hints
// whole in list items. It was the terminal's text in a <pre> that scrolled
// sideways and cut the hints off.
func TestHTMLRunsAreTables(t *testing.T) {
	f := runTableFile()
	var b bytes.Buffer
	if err := HTML(&b, f, nil, nil); err != nil {
		t.Fatal(err)
	}
	page := stdhtml.UnescapeString(b.String())
	if strings.Contains(page, "<pre") {
		t.Error("the page still has a <pre> block")
	}
	_, runs, ok := strings.Cut(page, "<h2>Runs</h2>")
	if !ok {
		t.Fatal("the page has no Runs section")
	}
	table, _, _ := strings.Cut(runs, "</table>")
	if n := strings.Count(table, "<tr>"); n != 1+len(f.Runs) {
		t.Errorf("the run table has %d rows, want a head and %d runs:\n%s", n, len(f.Runs), table)
	}
	for _, r := range f.Runs {
		if !strings.Contains(table, `<td class="l">`+r.Name+`</td>`) {
			t.Errorf("the run table has no cell for %s", r.Name)
		}
	}
	for _, h := range diagnose.File(f) {
		if !strings.Contains(runs, "<li>"+HintLine(h)+"</li>") {
			t.Errorf("the hint is not whole in a list item: %s", HintLine(h))
		}
	}
}

// TestHTMLMarkWithoutEmoji checks the page draws the verdict's mark with
// its CSS and holds no emoji: Debian's chromium, without an emoji font,
// drew the headline's ❌ as an empty box. (⚠, which its DejaVu fonts have,
// may stay.)
func TestHTMLMarkWithoutEmoji(t *testing.T) {
	env := results.Environment{Model: "m"}
	spec := comparetest.RunSpec{Name: "chat", TTFT: 100, TPOT: 9, E2EL: 2000, OutTokPerSec: 1000, ReqPerSec: 4, CV: 0.1, N: 200}
	other := spec
	other.Seed = 7
	invalid := other
	invalid.Status = results.StatusInvalid
	base, cur, failing := fixture()
	for _, tc := range []struct {
		mark      string
		base, cur *results.File
		c         *compare.Comparison
	}{
		{"fail", base, cur, failing},
		{"pass", comparetest.File(env, spec), comparetest.File(env, other), nil},
		{"error", comparetest.File(env, spec), comparetest.File(env, invalid), nil},
	} {
		c := tc.c
		if c == nil {
			c = compare.Compare(tc.base, tc.cur, compare.DefaultConfig())
		}
		var b bytes.Buffer
		if err := HTML(&b, tc.cur, tc.base, c); err != nil {
			t.Fatal(err)
		}
		page := b.String()
		if htmlMark(c.Decide()) != tc.mark || !strings.Contains(page, `<span class="verdict-mark `+tc.mark+`" role="img" aria-label="`+tc.mark+`"></span>`) {
			t.Errorf("decision %s: the page lacks the %s mark", c.Decide(), tc.mark)
		}
		for _, r := range page {
			if (r >= 0x2600 && r <= 0x27BF && r != '⚠') || r >= 0x1F000 {
				t.Errorf("decision %s: the page holds %q (U+%04X), which a browser without an emoji font draws as a box", c.Decide(), r, r)
				break
			}
		}
	}
}
