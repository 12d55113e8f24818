package backend_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/backend"
)

// TestE2ERunMasksSecretsAContainerPrints starts the simulator image with a
// token in its environment, in its API key and, through a bad --seed, in
// the error it prints before exiting 1: what llmgate prints, the results
// file and the container log file must hold none of the secrets, and under
// GitHub Actions each is registered with ::add-mask:: before anything else.
func TestE2ERunMasksSecretsAContainerPrints(t *testing.T) {
	image := backend.SimImage(t)
	const token = "hf_E2eSecretTokenAbCdEfGhIj"
	const key = "e2e-api-key-314159"
	name := "secret_" + backend.NewSession()
	src := `suite "secret" {}
variable "image" {}
server "` + name + `" {
  image           = var.image
  model           = "e2e-model"
  env             = { HF_TOKEN = env("LLMGATE_E2E_TOKEN") }
  api_key         = "` + key + `"
  args            = ["--profile", "tiny", "--seed", env("LLMGATE_E2E_TOKEN")]
  startup_timeout = "2m"
}
scenario "chat" {
  load {
    concurrency = 1
    requests    = 2
  }
}
`
	dir := t.TempDir()
	path := filepath.Join(dir, "secret.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	summary := filepath.Join(dir, "summary.md")
	var out bytes.Buffer
	cmd := exec.Command(backend.LLMGateBinary(t), "run", path, "-o", filepath.Join(dir, "results.json"), "--var", "image="+image, "--log-dir", filepath.Join(dir, "logs"))
	cmd.Env = append(os.Environ(), "TESTCONTAINERS_RYUK_DISABLED=true", "GITHUB_ACTIONS=true", "GITHUB_STEP_SUMMARY="+summary, "CI=", "LLMGATE_E2E_TOKEN="+token)
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if code := exitCode(err); code != 3 {
		t.Fatalf("exit %d (%v), want 3: the server exits at once\n%s", code, err, out.String())
	}
	if !strings.HasPrefix(out.String(), "::add-mask::") || !strings.Contains(out.String(), "::add-mask::"+token) {
		t.Errorf("the secrets are not registered first:\n%.600s", out.String())
	}
	if !strings.Contains(out.String(), `"***" is not an integer`) {
		t.Errorf("the container's own error line is not shown, masked:\n%s", out.String())
	}
	published := map[string]string{"output": strings.ReplaceAll(out.String(), "::add-mask::"+token, "")}
	published["output"] = strings.ReplaceAll(published["output"], "::add-mask::"+key, "")
	for _, rel := range []string{"results.json", "logs"} {
		filepath.Walk(filepath.Join(dir, rel), func(p string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() {
				b, _ := os.ReadFile(p)
				published[p] = string(b)
			}
			return nil
		})
	}
	if len(published) < 3 {
		t.Errorf("expected the results file and a container log, got %d files", len(published)-1)
	}
	for where, text := range published {
		for _, secret := range []string{token, key} {
			if strings.Contains(text, secret) {
				t.Errorf("%s holds %q:\n%s", where, secret, text)
			}
		}
	}
	if ids := targetContainers(t, name); len(ids) > 0 {
		t.Errorf("containers left: %v", ids)
	}
}
