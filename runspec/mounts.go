package runspec

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// runtimeSockets are where container runtimes listen: a container that
// mounts one (or a directory above one) drives the host's Docker and so
// owns the host.
var runtimeSockets = []string{
	"/var/run/docker.sock", "/run/docker.sock",
	"/run/containerd/containerd.sock", "/var/run/containerd/containerd.sock",
	"/run/podman/podman.sock", "/run/crio/crio.sock",
}

// kernelTrees are host directories a benchmark never needs and through
// which a container reads or changes the host: its processes'
// environments, the kernel's settings, its devices.
var kernelTrees = []string{"/proc", "/sys", "/dev"}

// HostMountRisk says why mounting the host path source into a server
// container would hand the container the host ("" when it would not): the
// host's root, anything under /proc, /sys or /dev, a container runtime's
// socket or a directory that holds one (/var/run), any other socket. The
// path is made absolute and its symlinks resolved first, so /var/run and
// /run are one. A suite may still mount such a path with
// unsafe_host_mounts = true.
func HostMountRisk(source string) string {
	abs, err := filepath.Abs(source)
	if err != nil {
		return ""
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	if abs == "/" {
		return "it is the host's root directory"
	}
	for _, t := range kernelTrees {
		if within(abs, resolve(t)) {
			return "it is under " + t + ", the host's kernel interface"
		}
	}
	socks := append([]string(nil), runtimeSockets...)
	if h, ok := strings.CutPrefix(os.Getenv("DOCKER_HOST"), "unix://"); ok {
		socks = append(socks, h)
	}
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		socks = append(socks, filepath.Join(d, "docker.sock"))
	}
	for _, s := range socks {
		if within(resolve(s), abs) {
			if resolve(s) == abs {
				return "it is the container runtime's socket " + s + ", which controls the host's containers"
			}
			return "it holds the container runtime's socket " + s + ", which controls the host's containers"
		}
	}
	if fi, err := os.Stat(abs); err == nil && fi.Mode()&fs.ModeSocket != 0 {
		return "it is a socket"
	}
	return ""
}

// within reports whether path is dir or inside it.
func within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, strings.TrimSuffix(dir, "/")+"/")
}

// resolve is p with its symlinks resolved when it exists.
func resolve(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}
