package runspec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHostMountRisk(t *testing.T) {
	dir := t.TempDir()
	toRun := filepath.Join(dir, "innocent")
	if err := os.Symlink("/var/run", toRun); err != nil {
		t.Fatal(err)
	}
	for src, want := range map[string]string{
		"/":                    "root directory",
		"/proc":                "under /proc",
		"/proc/self/environ":   "under /proc",
		"/sys/kernel":          "under /sys",
		"/dev":                 "under /dev",
		"/var/run/docker.sock": "runtime's socket",
		"/run/docker.sock":     "runtime's socket",
		"/var":                 "holds the container runtime's socket",
		"/run":                 "holds the container runtime's socket",
		toRun:                  "holds the container runtime's socket", // a symlink to /var/run
		"/data/hf-cache":       "",
		dir:                    "",
		"/devices":             "", // not /dev
		"/processes":           "",
	} {
		got := HostMountRisk(src)
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("HostMountRisk(%q) = %q, want %q", src, got, want)
		}
	}
}
