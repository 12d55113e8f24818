package backend

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// exporterPage is two GPUs as dcgm-exporter serves them, with a family
// llmgate does not read.
const exporterPage = `# HELP DCGM_FI_DEV_GPU_TEMP GPU temperature (in C).
# TYPE DCGM_FI_DEV_GPU_TEMP gauge
DCGM_FI_DEV_GPU_TEMP{gpu="0",UUID="GPU-1",device="nvidia0",modelName="NVIDIA A100-SXM4-80GB",Hostname="n1"} 61
# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).
# TYPE DCGM_FI_DEV_GPU_UTIL gauge
DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-1",device="nvidia0",modelName="NVIDIA A100-SXM4-80GB",Hostname="n1"} 93
DCGM_FI_DEV_GPU_UTIL{gpu="1",UUID="GPU-2",device="nvidia1",modelName="NVIDIA A100-SXM4-80GB",Hostname="n1"} 31
# HELP DCGM_FI_DEV_FB_USED Framebuffer memory used (in MiB).
# TYPE DCGM_FI_DEV_FB_USED gauge
DCGM_FI_DEV_FB_USED{gpu="0",UUID="GPU-1",device="nvidia0",modelName="NVIDIA A100-SXM4-80GB",Hostname="n1"} 72000
DCGM_FI_DEV_FB_USED{gpu="1",UUID="GPU-2",device="nvidia1",modelName="NVIDIA A100-SXM4-80GB",Hostname="n1"} 1024
# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).
# TYPE DCGM_FI_DEV_POWER_USAGE gauge
DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-1",device="nvidia0",modelName="NVIDIA A100-SXM4-80GB",Hostname="n1"} 301.5
DCGM_FI_DEV_POWER_USAGE{gpu="1",UUID="GPU-2",device="nvidia1",modelName="NVIDIA A100-SXM4-80GB",Hostname="n1"} 88
`

func TestDCGMExporterReadsGPUs(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		fmt.Fprint(w, exporterPage)
	}))
	defer srv.Close()
	d := NewDCGMExporter(srv.URL+"/metrics", nil)
	for range 2 { // the buffer is reused between reads
		rs, err := d.ReadGPUs(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) != 2 || rs[0].UtilPercent != 93 || rs[0].MemoryUsedMiB != 72000 || *rs[0].PowerWatts != 301.5 ||
			rs[1].UtilPercent != 31 || rs[1].MemoryUsedMiB != 1024 || *rs[1].PowerWatts != 88 {
			t.Errorf("readings %+v", rs)
		}
	}
	if _, err := NewDCGMExporter(srv.URL+"/other", nil).ReadGPUs(t.Context()); err == nil || err.Error() != "DCGM exporter: HTTP 404" {
		t.Errorf("a missing page: %v", err)
	}
}

// TestDCGMExporterHostile serves what a broken or hostile exporter might
// and checks each read ends within its bounds with a reason.
func TestDCGMExporterHostile(t *testing.T) {
	stream := func(w http.ResponseWriter, r *http.Request, line string, limit int64) {
		fl := w.(http.Flusher)
		for n := int64(0); limit < 0 || n < limit; n += int64(len(line)) {
			if _, err := fmt.Fprint(w, line); err != nil {
				return
			}
			if r.Context().Err() != nil {
				return
			}
		}
		fl.Flush()
	}
	var many strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&many, "DCGM_FI_DEV_GPU_UTIL{gpu=\"%d\"} 50\nDCGM_FI_DEV_FB_USED{gpu=\"%d\"} 10\n", i, i)
	}
	// The size bound is checked with a generous time bound, so that a busy
	// machine cannot turn it into a timeout; the time bound with a short one.
	const roomy, short = 10 * time.Second, 300 * time.Millisecond
	cases := []struct {
		name    string
		timeout time.Duration
		handler http.HandlerFunc
		want    string
	}{
		{"error status", short, func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "\x1b[2J::error::injected", http.StatusInternalServerError)
		}, "DCGM exporter: HTTP 500"},
		{"huge page", roomy, func(w http.ResponseWriter, r *http.Request) {
			stream(w, r, strings.Repeat("# "+strings.Repeat("x", 1000)+"\n", 64), 3<<20)
		}, "the page is larger than 1048576 bytes"},
		{"endless page", roomy, func(w http.ResponseWriter, r *http.Request) {
			stream(w, r, strings.Repeat("DCGM_FI_DEV_SM_CLOCK{gpu=\"0\"} 1980\n", 2000), -1)
		}, "the page is larger than 1048576 bytes"},
		{"stalls mid-page", short, func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, "# TYPE DCGM_FI_DEV_GPU_UTIL gauge\nDCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} ")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}, "context deadline exceeded"},
		{"never answers", short, func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done()
		}, "context deadline exceeded"},
		{"NaN", short, func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} NaN\nDCGM_FI_DEV_FB_USED{gpu=\"0\"} 1\n")
		}, "NaN is not in [0, 100]"},
		{"negative power", short, func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 1\nDCGM_FI_DEV_FB_USED{gpu=\"0\"} 1\nDCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} -5\n")
		}, "-5 is not in [0, 100000]"},
		{"thousands of GPUs", roomy, func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, many.String())
		}, "more than 64 GPUs"},
		{"not prometheus", short, func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, "<html><body>login</body></html>\n")
		}, "parse the DCGM exporter's page"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(c.handler)
			defer srv.Close()
			defer srv.CloseClientConnections()
			d := NewDCGMExporter(srv.URL+"/metrics", nil)
			d.timeout = c.timeout
			t0 := time.Now()
			rs, err := d.ReadGPUs(context.Background())
			took := time.Since(t0)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("readings %+v, error %v; want an error with %q", rs, err, c.want)
			}
			if strings.Contains(err.Error(), "injected") || strings.Contains(err.Error(), "login") {
				t.Errorf("the error quotes the exporter: %v", err)
			}
			// The bound holds: a read never outlives its timeout by much,
			// even on a busy machine.
			if took > d.timeout+5*time.Second {
				t.Errorf("the read took %v, bound %v", took, d.timeout)
			}
			if d.buf.Len() > DCGMMaxBytes+1 || d.buf.Cap() > 4*DCGMMaxBytes {
				t.Errorf("buffered %d bytes (capacity %d), bound %d", d.buf.Len(), d.buf.Cap(), DCGMMaxBytes)
			}
		})
	}
}
