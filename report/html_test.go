package report

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
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
d.setAttribute("data-errors",window.__errors.join("|"));document.body.appendChild(d)});</script>`

// TestHTMLInBrowser opens the report in Debian's headless chromium and
// checks the charts are drawn and no script error happened. It is skipped
// when chromium is absent, except under CI=true where it must run.
func TestHTMLInBrowser(t *testing.T) {
	bin := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("chromium not found; CI must install it (apt-get install -y chromium)")
		}
		t.Skip("chromium not installed (apt-get install -y chromium); skipping the browser test")
	}
	base, cur, c := fixture()
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
	cmd := exec.CommandContext(ctx, bin, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--enable-logging=stderr", "--v=0",
		"--virtual-time-budget=5000", "--dump-dom", "file://"+path)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium failed: %v\n%s", err, stderr.String())
	}
	m := regexp.MustCompile(`<div id="probe" data-drawn="(\d+)" data-svgs="(\d+)" data-errors="([^"]*)"`).FindStringSubmatch(stdout.String())
	if m == nil {
		t.Fatalf("probe did not run; DOM tail:\n%s\nstderr:\n%s", tail(stdout.String(), 500), stderr.String())
	}
	drawn, _ := strconv.Atoi(m[1])
	svgs, _ := strconv.Atoi(m[2])
	// Every CDF chart draws baseline and current where both have the run;
	// the sweep chart draws two curves.
	if want := 1 + 2*len(cur.Runs); svgs != want {
		t.Errorf("browser found %d svg charts, want %d", svgs, want)
	}
	if drawn < svgs {
		t.Errorf("browser drew %d paths for %d charts", drawn, svgs)
	}
	if m[3] != "" {
		t.Errorf("script errors in the page: %s", m[3])
	}
	if strings.Contains(stderr.String(), ":CONSOLE(") {
		t.Errorf("console messages from the page:\n%s", stderr.String())
	}
	t.Logf("chromium drew %d paths in %d charts", drawn, svgs)
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}
