package target

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/llmgate/llmgate/untrusted"
	tcexec "github.com/testcontainers/testcontainers-go/exec"
)

// metadataTimeout bounds each best-effort metadata probe.
const metadataTimeout = 10 * time.Second

// getJSON GETs base+path (with a bearer token when apiKey is set) and decodes the JSON body into v.
func getJSON(ctx context.Context, base, path, apiKey string, v any) error {
	ctx, cancel := context.WithTimeout(ctx, metadataTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(base, "/")+path, nil)
	if err != nil {
		return err
	}
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("GET %s: %s: %s", path, untrusted.Line(resp.Status), untrusted.Line(strings.TrimSpace(string(body))))
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("GET %s: decode: %w", path, err)
	}
	return nil
}

// fetchVersion returns the server's version from GET /version ("" if it has none).
func fetchVersion(ctx context.Context, base string) string {
	var v struct {
		Version string `json:"version"`
	}
	if err := getJSON(ctx, base, "/version", "", &v); err != nil {
		return ""
	}
	return displayText(v.Version)
}

// maxDisplayText bounds a server-reported name llmgate only shows.
const maxDisplayText = 200

// displayText makes a string the server reports about itself (its version,
// its GPUs) safe to print and publish, and short.
func displayText(s string) string { return untrusted.Short(s, maxDisplayText) }

// fetchModels returns the ids GET /v1/models lists.
func fetchModels(ctx context.Context, base, apiKey string) ([]string, error) {
	var m struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := getJSON(ctx, base, "/v1/models", apiKey, &m); err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(m.Data))
	for _, d := range m.Data {
		ids = append(ids, d.ID)
	}
	return ids, nil
}

// servedModel picks the model name to put in requests: the wanted one when
// the server lists it (or lists nothing), else the first one it serves (a
// --served-model-name alias: the server only answers to what it lists).
func servedModel(want string, served []string) string {
	if len(served) == 0 || slices.Contains(served, want) {
		return want
	}
	return served[0]
}

// collectMetadata asks the running container and the daemon what it is. Every
// probe is best effort: a field stays empty when its source is unavailable.
func (c *Container) collectMetadata(ctx context.Context) Metadata {
	m := Metadata{Image: c.image}
	m.VLLMVersion = fetchVersion(ctx, c.baseURL)
	served, _ := fetchModels(ctx, c.baseURL, c.apiKey)
	m.Model = servedModel(c.model, served)
	m.ImageDigest = c.imageDigest(ctx)
	m.GPU = c.gpuName(ctx)
	return m
}

// imageDigest returns the repo digest ("sha256:...") of the container's
// image, or its image id when it has no digest (built locally).
func (c *Container) imageDigest(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, metadataTimeout)
	defer cancel()
	ins, err := c.ctr.Inspect(ctx)
	if err != nil {
		return ""
	}
	img, err := c.cli.ImageInspect(ctx, ins.Image)
	if err != nil {
		return ins.Image
	}
	return digestOf(img.RepoDigests, img.ID)
}

// digestOf picks the digest from repo digests ("repo@sha256:...") or falls back to the id.
func digestOf(repoDigests []string, id string) string {
	for _, rd := range repoDigests {
		if _, d, ok := strings.Cut(rd, "@"); ok {
			return d
		}
	}
	return id
}

// gpuName runs nvidia-smi in the container; "" when it is not there (the simulator image).
func (c *Container) gpuName(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, metadataTimeout)
	defer cancel()
	code, out, err := c.ctr.Exec(ctx, []string{"nvidia-smi", "--query-gpu=name", "--format=csv,noheader"}, tcexec.Multiplexed())
	if err != nil || code != 0 {
		return ""
	}
	b, err := io.ReadAll(out)
	if err != nil {
		return ""
	}
	return displayText(summarizeGPUs(string(b)))
}

// summarizeGPUs turns nvidia-smi's one-name-per-line output into "NAME" or
// "4x NAME" (or the names joined by ", " when they differ).
func summarizeGPUs(out string) string {
	var names []string
	for l := range strings.Lines(out) {
		if l = strings.TrimSpace(l); l != "" {
			names = append(names, l)
		}
	}
	switch {
	case len(names) == 0:
		return ""
	case len(names) == 1:
		return names[0]
	}
	for _, n := range names[1:] {
		if n != names[0] {
			return strings.Join(names, ", ")
		}
	}
	return fmt.Sprintf("%dx %s", len(names), names[0])
}
