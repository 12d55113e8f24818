package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"sort"
	"time"

	"github.com/llmgate/llmgate/runspec"
)

// Fingerprint identifies what the plan runs: its groups in order, each
// group's target (kind, name, image, model, args, profile, URL, GPUs) and
// server args, and each run's name, load, workload, request shape, goodput
// limits and asserts. It is "sha256:" and 64 hex digits. Two shard jobs that loaded the
// same suite with the same variables (and --only) get the same fingerprint;
// a changed variable that changes a run changes it. Secrets stay out: the
// API key, the values of the server's environment and the volumes' host
// paths are not part of it, nor is where a dataset or trace file lives (only its
// name, and a trace's digest): those may differ between runners.
func (p *Plan) Fingerprint() string {
	type target struct {
		Kind, Name, Image, Model, GPUs, IPC, URL, Profile string
		Args, EnvKeys                                     []string
		ModelFlag                                         bool
	}
	type loadConfig struct {
		Concurrency       int
		Rate, Burstiness  float64
		Ramp              runspec.Ramp
		Requests, Warmup  int
		Duration, Timeout time.Duration
		Seed              int64
		Workload          runspec.Workload
		// ExtraBody and Headers are the request block's; a secret
		// header's value stays out
		// (omitted when empty: a suite without one keeps its fingerprint)
		ExtraBody string      `json:",omitempty"`
		Headers   [][2]string `json:",omitempty"`
	}
	type assert struct{ Name, Source, Message string }
	type run struct {
		Name, Scenario string
		Params         [][2]string
		Trace          string // the trace file's digest
		Load           loadConfig
		Goodput        Goodput
		Asserts        []assert
	}
	type group struct {
		Target     *target
		ServerArgs []string
		Runs       []run
	}
	gs := make([]group, 0, len(p.Groups))
	for _, g := range p.Groups {
		cg := group{ServerArgs: g.ServerArgs}
		if t := g.Target; t != nil {
			ct := &target{Kind: string(t.Kind), Name: t.Name, Image: t.Image, Model: t.Model, GPUs: t.GPUs, IPC: t.IPC,
				URL: t.URL, Profile: t.Profile, Args: t.Args, ModelFlag: t.ModelFlag}
			for k := range t.Env {
				ct.EnvKeys = append(ct.EnvKeys, k)
			}
			sort.Strings(ct.EnvKeys)
			cg.Target = ct
		}
		for _, r := range g.Runs {
			c := r.Load
			if c.Workload.DatasetPath != "" {
				// Where the checkout lives differs between runners.
				c.Workload.DatasetPath = filepath.Base(c.Workload.DatasetPath)
			}
			if c.Workload.TracePath != "" {
				c.Workload.TracePath = filepath.Base(c.Workload.TracePath)
			}
			cr := run{Name: r.Name, Scenario: r.Scenario, Goodput: r.Goodput, Load: loadConfig{
				Concurrency: c.Concurrency, Rate: c.Rate, Burstiness: c.Burstiness, Ramp: c.Ramp,
				Requests: c.Requests, Warmup: c.Warmup, Duration: c.Duration, Timeout: c.Timeout,
				Seed: c.Seed, Workload: c.Workload, ExtraBody: string(c.Request.ExtraBody),
			}}
			for _, h := range c.Request.Headers {
				v := h.Value
				if h.Secret {
					v = ""
				}
				cr.Load.Headers = append(cr.Load.Headers, [2]string{h.Name, v})
			}
			if r.Trace != nil {
				cr.Trace = r.Trace.Digest
			}
			for _, pr := range r.Params {
				cr.Params = append(cr.Params, [2]string{pr.Key, pr.Text})
			}
			for _, a := range r.Asserts {
				cr.Asserts = append(cr.Asserts, assert{a.Name, a.Source, a.ErrorMessage})
			}
			cg.Runs = append(cg.Runs, cr)
		}
		gs = append(gs, cg)
	}
	b, err := json.Marshal(gs)
	if err != nil {
		// Every field above is a plain value: Marshal cannot fail.
		panic("plan: fingerprint: " + err.Error())
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}
