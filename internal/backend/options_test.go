package backend

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/api/types/network"
)

func TestParseGPUs(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    container.DeviceRequest
		none    bool
		wantErr string
	}{
		// Unset means no device request at all.
		{name: "empty", in: "", none: true},
		// "all" is Docker's count -1.
		{name: "all", in: "all", want: container.DeviceRequest{Driver: "nvidia", Count: -1, Capabilities: [][]string{{"gpu"}}}},
		// A bare number is a count, like `docker run --gpus 2`.
		{name: "count", in: "2", want: container.DeviceRequest{Driver: "nvidia", Count: 2, Capabilities: [][]string{{"gpu"}}}},
		// Docker's own count= spelling.
		{name: "count prefix", in: "count=4", want: container.DeviceRequest{Driver: "nvidia", Count: 4, Capabilities: [][]string{{"gpu"}}}},
		// A comma makes a list of device ids.
		{name: "ids", in: "0,1", want: container.DeviceRequest{Driver: "nvidia", DeviceIDs: []string{"0", "1"}, Capabilities: [][]string{{"gpu"}}}},
		// device= selects one device by index.
		{name: "one device", in: "device=3", want: container.DeviceRequest{Driver: "nvidia", DeviceIDs: []string{"3"}, Capabilities: [][]string{{"gpu"}}}},
		// A UUID is an id, not a count.
		{name: "uuid", in: "GPU-6b6f8c1e", want: container.DeviceRequest{Driver: "nvidia", DeviceIDs: []string{"GPU-6b6f8c1e"}, Capabilities: [][]string{{"gpu"}}}},
		// Zero is ambiguous: refuse and say how to pick device 0.
		{name: "zero", in: "0", wantErr: `write "device=0"`},
		// Words other than all are refused.
		{name: "word", in: "many", wantErr: `want "all", a count`},
		// An empty id in a list is refused.
		{name: "empty id", in: "0,,1", wantErr: "empty device id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := parseGPUs(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("parseGPUs(%q) error = %v, want it to contain %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseGPUs(%q): %v", tt.in, err)
			}
			if tt.none {
				if g != nil {
					t.Fatalf("parseGPUs(%q) = %+v, want no request", tt.in, g)
				}
				return
			}
			if diff := cmp.Diff(tt.want, g.deviceRequest()); diff != "" {
				t.Errorf("device request for %q (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestSettingsCmd(t *testing.T) {
	tests := []struct {
		name string
		opts []ContainerOption
		want []string
	}{
		// The current vllm/vllm-openai image: `vllm serve <model> ...`.
		{name: "positional model", opts: []ContainerOption{WithModel("m"), WithArgs("--max-num-seqs", "8")}, want: []string{"m", "--max-num-seqs", "8"}},
		// Older images take --model.
		{name: "model flag", opts: []ContainerOption{WithModel("m"), WithModelFlag()}, want: []string{"--model", "m"}},
		// Target args then run server_args, in order, then the API key.
		{name: "args and key", opts: []ContainerOption{WithModel("m"), WithArgs("--a", "1"), WithArgs("--gpu-memory-utilization", "0.7"), WithAPIKey("k")},
			want: []string{"m", "--a", "1", "--gpu-memory-utilization", "0.7", "--api-key", "k"}},
		// No model: the image's own default command line.
		{name: "nothing", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := defaultSettings()
			for _, o := range tt.opts {
				if err := o(s); err != nil {
					t.Fatal(err)
				}
			}
			if diff := cmp.Diff(tt.want, s.cmd()); diff != "" {
				t.Errorf("cmd (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSettingsMounts(t *testing.T) {
	tests := []struct {
		name    string
		opts    []ContainerOption
		want    []mount.Mount
		wantErr string
	}{
		// By default both caches are named volumes that outlive the container.
		{name: "defaults", want: []mount.Mount{
			{Type: mount.TypeVolume, Source: HFCacheVolume, Target: HFCachePath},
			{Type: mount.TypeVolume, Source: VLLMCacheVolume, Target: VLLMCachePath},
		}},
		// A host path replaces the default at the same container path; the other default stays.
		{name: "bind replaces default", opts: []ContainerOption{WithVolumes(map[string]string{"/data/hf": HFCachePath})}, want: []mount.Mount{
			{Type: mount.TypeBind, Source: "/data/hf", Target: HFCachePath},
			{Type: mount.TypeVolume, Source: VLLMCacheVolume, Target: VLLMCachePath},
		}},
		// An empty source removes a default mount.
		{name: "empty source drops", opts: []ContainerOption{WithVolumes(map[string]string{"": VLLMCachePath})}, want: []mount.Mount{
			{Type: mount.TypeVolume, Source: HFCacheVolume, Target: HFCachePath},
		}},
		// WithoutVolumes mounts nothing.
		{name: "none", opts: []ContainerOption{WithoutVolumes()}, want: nil},
		// The probe: a server mounted /var/run/docker.sock and /, and a probe
		// container reached the host's Docker API. They are refused unless
		// the suite says unsafe_host_mounts = true.
		{name: "docker socket", opts: []ContainerOption{WithVolumes(map[string]string{"/var/run/docker.sock": "/var/run/docker.sock"})}, wantErr: "container runtime's socket"},
		{name: "dir of the socket", opts: []ContainerOption{WithVolumes(map[string]string{"/var/run": "/host-run"})}, wantErr: "holds the container runtime's socket"},
		{name: "host root", opts: []ContainerOption{WithVolumes(map[string]string{"/": "/host"})}, wantErr: "the host's root directory"},
		{name: "proc", opts: []ContainerOption{WithVolumes(map[string]string{"/proc/1": "/p"})}, wantErr: "under /proc"},
		{name: "sys", opts: []ContainerOption{WithVolumes(map[string]string{"/sys": "/s"})}, wantErr: "under /sys"},
		{name: "dev", opts: []ContainerOption{WithVolumes(map[string]string{"/dev/../dev/sda": "/d"})}, wantErr: "under /dev"},
		{name: "unsafe allowed", opts: []ContainerOption{WithoutVolumes(), WithVolumes(map[string]string{"/": "/host"}), WithUnsafeHostMounts()},
			want: []mount.Mount{{Type: mount.TypeBind, Source: "/", Target: "/host"}}},
		// "~" is not expanded by anyone: refuse rather than create a volume called "~".
		{name: "tilde", opts: []ContainerOption{WithVolumes(map[string]string{"~/hf": HFCachePath})}, wantErr: "not expanded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := defaultSettings()
			for _, o := range tt.opts {
				if err := o(s); err != nil {
					t.Fatal(err)
				}
			}
			got, err := s.mounts()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("mounts() error = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("mounts (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOptionErrors(t *testing.T) {
	tests := []struct {
		name string
		opt  ContainerOption
		want string
	}{
		// A zero or negative timeout would never wait.
		{name: "timeout", opt: WithStartupTimeout(0), want: "startup timeout must be positive"},
		// Negative shm size is a typo.
		{name: "shm", opt: WithShmSize(-1), want: "must not be negative"},
		// A volume needs a container path.
		{name: "volume", opt: WithVolumes(map[string]string{"v": ""}), want: "empty container path"},
		// A bad gpus value is reported by Run before anything starts.
		{name: "gpus", opt: WithGPUs("lots"), want: "gpus"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Run(t.Context(), "img", tt.opt)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Run error = %v, want it to contain %q", err, tt.want)
			}
			if errors.Is(err, ErrUnavailable) {
				t.Errorf("a bad option is the user's mistake, not an unavailable server: %v", err)
			}
		})
	}
	if d := defaultSettings().startupTimeout; d != 20*time.Minute {
		t.Errorf("default startup timeout = %s, want 20m", d)
	}
}

func TestSettingsHostConfig(t *testing.T) {
	all := container.DeviceRequest{Driver: "nvidia", Count: -1, Capabilities: [][]string{{"gpu"}}}
	ids := container.DeviceRequest{Driver: "nvidia", DeviceIDs: []string{"0", "1"}, Capabilities: [][]string{{"gpu"}}}
	tests := []struct {
		name string
		opts []ContainerOption
		want container.HostConfig
	}{
		// No GPU, no IPC setting: Docker's defaults stay.
		{name: "cpu only", want: container.HostConfig{}},
		// All GPUs, as `docker run --gpus all`, and ipc=host for vLLM's shared memory.
		{name: "all gpus", opts: []ContainerOption{WithGPUs("all")},
			want: container.HostConfig{Resources: container.Resources{DeviceRequests: []container.DeviceRequest{all}}, IpcMode: container.IPCModeHost}},
		// Device ids select devices; the count stays 0.
		{name: "device ids", opts: []ContainerOption{WithGPUs("0,1")},
			want: container.HostConfig{Resources: container.Resources{DeviceRequests: []container.DeviceRequest{ids}}, IpcMode: container.IPCModeHost}},
		// A shm size instead of ipc=host is respected: no IPC mode is forced.
		{name: "gpus with shm size", opts: []ContainerOption{WithGPUs("all"), WithShmSize(16 << 30)},
			want: container.HostConfig{Resources: container.Resources{DeviceRequests: []container.DeviceRequest{all}}, ShmSize: 16 << 30}},
		// An explicit IPC mode wins over the GPU default.
		{name: "explicit ipc", opts: []ContainerOption{WithGPUs("all"), WithIPC("private")},
			want: container.HostConfig{Resources: container.Resources{DeviceRequests: []container.DeviceRequest{all}}, IpcMode: "private"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := defaultSettings()
			for _, opt := range tt.opts {
				if err := opt(s); err != nil {
					t.Fatal(err)
				}
			}
			var got container.HostConfig
			s.hostConfig(&got, nil)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("host config (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSettingsContainerPort(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		// vLLM's default port.
		{name: "default", args: []string{"--max-num-seqs", "8"}, want: ContainerPort},
		// --port N moves the server, and so the port mapped and probed.
		{name: "port flag", args: []string{"--port", "9000", "--max-num-seqs", "8"}, want: "9000/tcp"},
		// --port=N, the last one winning as in argparse.
		{name: "port equals", args: []string{"--port=9000", "--port=9001"}, want: "9001/tcp"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := defaultSettings()
			s.args = tt.args
			if got := s.containerPort(); got != tt.want {
				t.Errorf("containerPort(%q) = %q, want %q", tt.args, got, tt.want)
			}
		})
	}
}

func TestSettingsDevModeByDefault(t *testing.T) {
	s := defaultSettings()
	if s.env[DevModeEnv] != "1" {
		t.Errorf("default env %v, want %s=1 so that the prefix cache can be reset", s.env, DevModeEnv)
	}
	if err := WithEnv(map[string]string{DevModeEnv: "0"})(s); err != nil || s.env[DevModeEnv] != "0" {
		t.Errorf("a suite's env cannot override %s: %v %v", DevModeEnv, s.env, err)
	}
}

func TestSettingsKeepAliveByDefault(t *testing.T) {
	s := defaultSettings()
	if s.env[KeepAliveEnv] != KeepAliveSeconds {
		t.Errorf("default env %v, want %s=%s: uvicorn's 5 s would close connections between turns", s.env, KeepAliveEnv, KeepAliveSeconds)
	}
	if err := WithEnv(map[string]string{KeepAliveEnv: "30"})(s); err != nil || s.env[KeepAliveEnv] != "30" {
		t.Errorf("a suite's env cannot override %s: %v %v", KeepAliveEnv, s.env, err)
	}
}

// PR runs and main's baseline runs shared the default cache volumes, so a
// pull request could poison main's weights and compiled graphs:
// LLMGATE_CACHE_NAMESPACE (the action's cache-namespace input) keeps them
// apart.
func TestCacheNamespace(t *testing.T) {
	t.Setenv(CacheNamespaceEnv, "pr")
	got, err := defaultSettings().mounts()
	want := []mount.Mount{
		{Type: mount.TypeVolume, Source: "llmgate-hf-cache-pr", Target: HFCachePath},
		{Type: mount.TypeVolume, Source: "llmgate-vllm-cache-pr", Target: VLLMCachePath},
	}
	if err != nil || !cmp.Equal(want, got) {
		t.Errorf("mounts = %v, %v; want the pr namespace's volumes", got, err)
	}
	for _, bad := range []string{"PR", "a/b", "-x", "x y", strings.Repeat("a", 33)} {
		t.Setenv(CacheNamespaceEnv, bad)
		if _, err := Run(t.Context(), "img"); err == nil || !strings.Contains(err.Error(), CacheNamespaceEnv) {
			t.Errorf("namespace %q: Run = %v", bad, err)
		}
	}
}

// The probe: VLLM_SERVER_DEV_MODE=1 also opens /collective_rpc and /sleep
// on the published port. With a local daemon the port is published on the
// host's loopback only.
func TestPublishOnLoopback(t *testing.T) {
	t.Setenv(PublishHostEnv, "")
	for daemon, want := range map[string]string{"unix:///var/run/docker.sock": "127.0.0.1", "npipe:////./pipe/docker_engine": "127.0.0.1", "tcp://10.0.0.5:2376": "invalid IP"} {
		a, err := publishAddr(daemon)
		if err != nil || a.String() != want {
			t.Errorf("publishAddr(%s) = %v, %v; want %s", daemon, a, err, want)
		}
	}
	t.Setenv(PublishHostEnv, "172.17.0.1")
	if a, _ := publishAddr("unix:///var/run/docker.sock"); a.String() != "172.17.0.1" {
		t.Errorf("with %s: %v", PublishHostEnv, a)
	}
	t.Setenv(PublishHostEnv, "everywhere")
	if _, err := publishAddr("unix:///var/run/docker.sock"); err == nil {
		t.Error("a bad address was accepted")
	}
	s := defaultSettings()
	s.publishIP = netip.MustParseAddr("127.0.0.1")
	var h container.HostConfig
	s.hostConfig(&h, nil)
	p, _ := network.ParsePort(ContainerPort)
	if b := h.PortBindings[p]; len(b) != 1 || b[0].HostIP.String() != "127.0.0.1" || b[0].HostPort != "0" {
		t.Errorf("port bindings = %v", h.PortBindings)
	}
}
