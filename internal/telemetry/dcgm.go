package telemetry

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/llmgate/llmgate/results"
)

// The DCGM exporter's fields that become a results.GPUReading (NVIDIA's
// dcgm-exporter, default counters): utilisation in %, framebuffer memory in
// MiB, power draw in W. Each sample carries the device's index as the label
// "gpu" (and its UUID as "UUID").
const (
	DCGMUtil     = "DCGM_FI_DEV_GPU_UTIL"
	DCGMFBUsed   = "DCGM_FI_DEV_FB_USED"
	DCGMFBFree   = "DCGM_FI_DEV_FB_FREE"
	DCGMFBReserv = "DCGM_FI_DEV_FB_RESERVED"
	DCGMPower    = "DCGM_FI_DEV_POWER_USAGE"
)

// maxDCGMLabel is the longest gpu (or UUID) label accepted.
const maxDCGMLabel = 64

// dcgmGPU gathers one device's fields from a page.
type dcgmGPU struct {
	util, used, free, reserved, power *float64
}

// ParseDCGM reads one page of a DCGM exporter (Prometheus text) and returns
// a reading per GPU, in the order of their "gpu" labels (device indices).
// The page is untrusted: its size is the caller's to bound; here at most
// results.MaxGPUs devices are accepted, every value must be a finite
// number within its limit (results.LimitUtilisation, LimitMemory,
// LimitPower: what results.Check accepts), and every GPU must report
// utilisation and memory used. Power is optional (nil when a device does
// not export it); the memory total is used + free (+ reserved), or 0 when
// free is not exported, and must be within results.LimitMemory too. Other
// families and extra labels are ignored. With devices set, only the GPUs whose "gpu" or "UUID"
// label is one of them are read (the exporter reports its whole node; the
// server may use some of its GPUs). Errors quote no value from the page
// beyond a short label.
func ParseDCGM(r io.Reader, devices []string) ([]results.GPUReading, error) {
	p := expfmt.NewTextParser(promTextModel)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("parse the DCGM exporter's page: %w", err)
	}
	if fams[DCGMUtil] == nil {
		return nil, fmt.Errorf("the DCGM exporter's page has no %s", DCGMUtil)
	}
	gpus := map[string]*dcgmGPU{}
	fields := []struct {
		name  string
		limit results.Limit
		set   func(g *dcgmGPU) **float64
	}{
		{DCGMUtil, results.LimitUtilisation, func(g *dcgmGPU) **float64 { return &g.util }},
		{DCGMFBUsed, results.LimitMemory, func(g *dcgmGPU) **float64 { return &g.used }},
		{DCGMFBFree, results.LimitMemory, func(g *dcgmGPU) **float64 { return &g.free }},
		{DCGMFBReserv, results.LimitMemory, func(g *dcgmGPU) **float64 { return &g.reserved }},
		{DCGMPower, results.LimitPower, func(g *dcgmGPU) **float64 { return &g.power }},
	}
	for _, f := range fields {
		fam := fams[f.name]
		if fam == nil {
			continue
		}
		for _, m := range fam.GetMetric() {
			key, err := dcgmKey(m)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f.name, err)
			}
			if len(devices) > 0 && !dcgmDeviceIn(m, devices) {
				continue
			}
			v, ok := sampleValue(m)
			if !ok {
				continue
			}
			if f.limit.Problem(v) != "" {
				return nil, fmt.Errorf("%s{gpu=%q}: %g is not in [0, %g]", f.name, key, v, f.limit.Max)
			}
			g := gpus[key]
			if g == nil {
				if len(gpus) == results.MaxGPUs {
					return nil, fmt.Errorf("the DCGM exporter lists more than %d GPUs", results.MaxGPUs)
				}
				g = &dcgmGPU{}
				gpus[key] = g
			}
			// A device listed twice (a pod label per container that shares
			// it) keeps its highest value.
			p := f.set(g)
			if *p == nil || v > **p {
				*p = &v
			}
		}
	}
	keys := make([]string, 0, len(gpus))
	for k := range gpus {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, compareGPUKeys)
	rs := make([]results.GPUReading, 0, len(keys))
	for _, k := range keys {
		g := gpus[k]
		switch {
		case g.util == nil:
			return nil, fmt.Errorf("GPU %q has no %s", k, DCGMUtil)
		case g.used == nil:
			return nil, fmt.Errorf("GPU %q has no %s", k, DCGMFBUsed)
		}
		r := results.GPUReading{UtilPercent: *g.util, MemoryUsedMiB: *g.used, PowerWatts: g.power}
		if g.free != nil {
			r.MemoryTotalMiB = *g.used + *g.free
			if g.reserved != nil {
				r.MemoryTotalMiB += *g.reserved
			}
			if results.LimitMemory.Problem(r.MemoryTotalMiB) != "" {
				return nil, fmt.Errorf("GPU %q: a memory total (used + free + reserved) of %g MiB is not in [0, %g]", k, r.MemoryTotalMiB, results.LimitMemory.Max)
			}
		}
		rs = append(rs, r)
	}
	if len(rs) == 0 && len(devices) > 0 {
		return nil, fmt.Errorf("the DCGM exporter lists none of the GPUs %s", strings.Join(devices, ", "))
	}
	if len(rs) == 0 {
		return nil, errors.New("the DCGM exporter listed no GPUs")
	}
	return rs, nil
}

// dcgmKey names a sample's device: its "gpu" label, else its "UUID".
func dcgmKey(m *dto.Metric) (string, error) {
	var uuid string
	for _, l := range m.GetLabel() {
		switch l.GetName() {
		case "gpu":
			return checkLabel(l.GetValue())
		case "UUID":
			uuid = l.GetValue()
		}
	}
	if uuid == "" {
		return "", errors.New(`a sample without a "gpu" or "UUID" label`)
	}
	return checkLabel(uuid)
}

// dcgmDeviceIn reports whether m's "gpu" or "UUID" label is one of devices.
func dcgmDeviceIn(m *dto.Metric, devices []string) bool {
	for _, l := range m.GetLabel() {
		if (l.GetName() == "gpu" || l.GetName() == "UUID") && slices.Contains(devices, l.GetValue()) {
			return true
		}
	}
	return false
}

func checkLabel(v string) (string, error) {
	if v == "" || len(v) > maxDCGMLabel {
		return "", fmt.Errorf("a gpu label of %d bytes (want 1 to %d)", len(v), maxDCGMLabel)
	}
	return v, nil
}

// sampleValue is a gauge's, counter's or untyped sample's value.
func sampleValue(m *dto.Metric) (float64, bool) {
	switch {
	case m.Gauge != nil:
		return m.GetGauge().GetValue(), true
	case m.Untyped != nil:
		return m.GetUntyped().GetValue(), true
	case m.Counter != nil:
		return m.GetCounter().GetValue(), true
	}
	return 0, false
}

// compareGPUKeys orders device indices numerically, then other labels as text.
func compareGPUKeys(a, b string) int {
	ai, aerr := strconv.Atoi(a)
	bi, berr := strconv.Atoi(b)
	switch {
	case aerr == nil && berr == nil:
		return cmp.Compare(ai, bi)
	case aerr == nil:
		return -1
	case berr == nil:
		return 1
	}
	return cmp.Compare(a, b)
}
