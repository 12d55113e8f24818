package suite

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
)

// fileSuite writes a suite whose assert message is file(path) into dir/perf
// (dir is a repository: it has .git) and loads it.
func fileSuite(t *testing.T, dir, path string) (*Suite, hcl.Diagnostics) {
	t.Helper()
	suiteDir := filepath.Join(dir, "perf")
	if err := os.MkdirAll(suiteDir, 0o755); err != nil {
		t.Fatal(err)
	}
	src := `
simulator "sim" {}
scenario "chat" {
  target = simulator.sim
  load {
    concurrency = 1
    requests    = 1
  }
  assert "x" {
    condition     = ttft.p95 < 1
    error_message = file("` + path + `")
  }
}
`
	p := filepath.Join(suiteDir, "suite.hcl")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return Load(p, Options{Getenv: func(string) string { return "" }})
}

// The probes: file("/proc/self/environ") and file("../../../../etc/passwd")
// were read and published; file() on a FIFO hung validate. file() now
// reads regular files of the suite's repository only.
func TestFileIsConfinedToTheRepository(t *testing.T) {
	repo := t.TempDir()
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "msg.txt"), []byte("from the repository"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(repo, "perf-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(repo, "msg.txt"), filepath.Join(repo, "inside-link")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(repo, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ path, want string }{
		{"/proc/self/environ", "is outside the repository"},
		{"../../../../../../../../etc/passwd", "is outside the repository"},
		{secret, "is outside the repository"},
		{"../perf-link", "is outside the repository"},
		{"../fifo", "not a regular file (a FIFO)"},
		{"..", "not a regular file (a directory)"},
		{"/dev/zero", "is outside the repository"},
		{"../nope.txt", "no such file"},
	} {
		start := time.Now()
		s, diags := fileSuite(t, repo, tt.path)
		if !diags.HasErrors() || !strings.Contains(diags.Error(), tt.want) {
			t.Errorf("file(%q): %v, want an error with %q", tt.path, diags, tt.want)
			continue
		}
		// file:line:col of the call, in the suite
		if d := diags.Errs()[0].(*hcl.Diagnostic); d.Subject == nil || d.Subject.Start.Line != 11 || d.Subject.Start.Column != 21 || !strings.HasSuffix(d.Subject.Filename, "suite.hcl") {
			t.Errorf("file(%q): diagnostic at %v, want suite.hcl:11:21", tt.path, d.Subject)
		}
		if s != nil && strings.Contains(strings.Join(s.Secrets, ","), "wJalr") {
			t.Errorf("file(%q) read the secret", tt.path)
		}
		if took := time.Since(start); took > 10*time.Second {
			t.Errorf("file(%q) took %v", tt.path, took) // a FIFO would block forever
		}
	}
	for _, ok := range []string{"../msg.txt", filepath.Join(repo, "msg.txt"), "../inside-link"} {
		s, diags := fileSuite(t, repo, ok)
		if diags.HasErrors() {
			t.Errorf("file(%q): %v", ok, diags)
			continue
		}
		if got := s.Scenarios[0].Runs[0].Asserts[0].ErrorMessage; got != "from the repository" {
			t.Errorf("file(%q) = %q", ok, got)
		}
	}
	// outside a repository the suite's own directory is the limit
	plain := t.TempDir()
	if err := os.WriteFile(filepath.Join(plain, "msg.txt"), []byte("beside"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, diags := fileSuite(t, plain, "../msg.txt"); !diags.HasErrors() || !strings.Contains(diags.Error(), "outside the suite's directory") {
		t.Errorf("outside a repository, ../msg.txt: %v", diags)
	}
}

// The probe: a suite that reads the job's GitHub token with env() could
// send it to any endpoint. It is refused at validate, at the call.
func TestEnvRefusesTheJobsTokens(t *testing.T) {
	for _, name := range []string{"GITHUB_TOKEN", "github_token", "GH_TOKEN", "INPUT_GITHUB-TOKEN", "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN", "ACTIONS_CACHE_URL"} {
		src := "simulator \"sim\" {\n  args = [env(\"" + name + "\")]\n}\nscenario \"chat\" {\n  target = simulator.sim\n  load {\n    concurrency = 1\n    requests = 1\n  }\n}\n"
		path := filepath.Join(t.TempDir(), "suite.hcl")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		s, diags := Load(path, Options{Getenv: func(string) string { return "ghs_0123456789abcdefghijkl" }})
		if !diags.HasErrors() || !strings.Contains(diags.Error(), "is refused") {
			t.Errorf("env(%q): %v", name, diags)
			continue
		}
		if d := diags.Errs()[0].(*hcl.Diagnostic); d.Subject == nil || d.Subject.Start.Line != 2 || d.Subject.Start.Column != 11 {
			t.Errorf("env(%q) reported at %v, want 2:11", name, d.Subject)
		}
		if strings.Contains(strings.Join(s.Secrets, ","), "ghs_") {
			t.Errorf("env(%q) was read", name)
		}
	}
}

// The probe: a server's volumes mounted /var/run/docker.sock and /. They
// are refused at validate, at the entry that names them, unless the block
// says unsafe_host_mounts = true.
func TestServerVolumesRefuseTheHost(t *testing.T) {
	src := func(volumes, extra string) string {
		return "server \"vllm\" {\n  image   = \"img\"\n  model   = \"m\"\n  volumes = " + volumes + "\n" + extra + "}\nscenario \"x\" {\n  load {\n    concurrency = 1\n    requests    = 1\n  }\n}\n"
	}
	_, diags := loadText(t, src(`{ "/data/hf" = "/root/.cache/huggingface", "/var/run/docker.sock" = "/var/run/docker.sock" }`, ""), Options{})
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "Unsafe host mount") || !strings.Contains(diags.Error(), "unsafe_host_mounts = true") {
		t.Fatalf("docker socket: %v", diags)
	}
	if d := diags.Errs()[0].(*hcl.Diagnostic); d.Subject == nil || d.Subject.Start.Line != 4 || d.Subject.Start.Column != 56 {
		t.Errorf("reported at %v, want the socket's key at 4:56", d.Subject)
	}
	if _, diags := loadText(t, src(`{ "/" = "/host" }`, ""), Options{}); !diags.HasErrors() || !strings.Contains(diags.Error(), "root directory") {
		t.Errorf("host root: %v", diags)
	}
	s, diags := loadText(t, src(`{ "/" = "/host" }`, "  unsafe_host_mounts = true\n"), Options{})
	if diags.HasErrors() || !s.Targets["server.vllm"].UnsafeHostMounts {
		t.Errorf("with unsafe_host_mounts = true: %v", diags)
	}
}
