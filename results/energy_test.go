package results

import (
	"math"
	"testing"
)

func watts(ws ...float64) []GPUReading {
	rs := make([]GPUReading, len(ws))
	for i, w := range ws {
		rs[i].PowerWatts = ptr(w)
	}
	return rs
}

// TestGPUEnergy integrates the GPUs' total power over the window: linear
// between readings, each end held at its nearest one.
func TestGPUEnergy(t *testing.T) {
	for _, tc := range []struct {
		name    string
		samples []GPUSample
		window  float64
		want    float64
		ok      bool
	}{
		// two GPUs at a constant 300 + 100 W over 10 s, read at 0.5, 1.5, ... 9.5 s
		{name: "constant", samples: func() []GPUSample {
			var ss []GPUSample
			for i := range 10 {
				ss = append(ss, GPUSample{T: float64(i) + 0.5, GPUs: watts(300, 100)})
			}
			return ss
		}(), window: 10, want: 4000, ok: true},
		// a ramp from 100 to 300 W between 1 s and 3 s of a 4 s window
		{name: "ramp", samples: []GPUSample{{T: 1, GPUs: watts(100)}, {T: 3, GPUs: watts(300)}}, window: 4, want: 100 + 400 + 300, ok: true},
		// a reading without power is left out; another GPU count too
		{name: "gaps", samples: []GPUSample{{T: 1, GPUs: watts(200)}, {T: 2, GPUs: []GPUReading{{}}}, {T: 3, GPUs: watts(200, 50)}}, window: 5, want: 1000, ok: true},
		{name: "no power", samples: []GPUSample{{T: 1, GPUs: []GPUReading{{}}}}, window: 5},
		{name: "empty window", samples: []GPUSample{{T: 1, GPUs: watts(200)}}, window: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := GPUEnergy(&GPUSeries{Samples: tc.samples}, tc.window)
			if ok != tc.ok || math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("energy %v J (%v), want %v J (%v)", got, ok, tc.want, tc.ok)
			}
		})
	}
	g := &GPUMetrics{}
	g.SetEnergy(&GPUSeries{Samples: []GPUSample{{T: 0, GPUs: watts(250)}}}, 8, 4000)
	s := Summary{GPU: g}
	for name, want := range map[string]float64{"gpu.energy": 2000, "gpu.energy_per_token": 0.5} {
		m, _ := LookupMetric(name)
		if v, ok := m.Value(&s); !ok || v != want {
			t.Errorf("%s = %v (%v), want %v", name, v, ok, want)
		}
	}
	// no output token: energy per token is absent (nil), not 0 J/token
	g.SetEnergy(&GPUSeries{Samples: []GPUSample{{T: 0, GPUs: watts(250)}}}, 8, 0)
	if g.Energy == nil || g.Energy.PerToken != nil {
		t.Fatalf("energy %+v without output tokens, want joules and no per-token figure", g.Energy)
	}
	if m, _ := LookupMetric("gpu.energy_per_token"); m.WhyNotMeasured(&s) == "" {
		t.Error("gpu.energy_per_token measured without output tokens")
	}
}
