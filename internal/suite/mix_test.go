package suite

import (
	"strings"
	"testing"
	"time"

	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
)

const mixStagesSuite = `
defaults {
  workload {
    chat = true
  }
  load {
    rate     = 3
    duration = "1m"
  }
}

scenario "mixed" {
  mix {
    workload "chat" {
      weight        = 3
      kind          = "random"
      input_tokens  = 256
      output_tokens = 128
    }
    workload "rag" {
      weight        = 1
      kind          = "prefix"
      prefix_tokens = 512
      output_tokens = 64
    }
  }
  load {
    warmup = 2
    stage {
      rate     = 5
      duration = "60s"
    }
    stage {
      concurrency = 4
      requests    = 100
    }
  }
  assert "chat" {
    condition = mix.chat.ttft.p95 < 500
  }
  assert "stage2" {
    condition = stage.2.ttft.p95 < 50 && stage.1.requests.completed > 0
  }
}

gate {
  tolerance "mix.rag.ttft.p95" {
    max_regression = "20%"
  }
}
`

func TestMixAndStagesDecoded(t *testing.T) {
	s := mustLoad(t, mixStagesSuite, Options{})
	run := s.Scenarios[0].Runs[0]
	l := run.Load
	if len(l.Mix) != 2 || l.Mix[0].Name != "chat" || l.Mix[0].Weight != 3 || l.Mix[1].Weight != 1 {
		t.Fatalf("mix %+v", l.Mix)
	}
	chat, rag := l.Mix[0].Workload, l.Mix[1].Workload
	if chat.InputTokens != 256 || chat.OutputTokens != 128 || !chat.Chat || rag.Kind != runspec.WorkloadPrefix || rag.PrefixTokens != 512 || !rag.Chat {
		t.Fatalf("members' workloads (over the defaults' chat = true): chat %+v, rag %+v", chat, rag)
	}
	want := []runspec.Stage{{Rate: 5, Duration: time.Minute}, {Concurrency: 4, Requests: 100}}
	if len(l.Stages) != 2 || l.Stages[0] != want[0] || l.Stages[1] != want[1] {
		t.Fatalf("stages %+v, want %+v", l.Stages, want)
	}
	// the scenario's stages replace the defaults' rate and duration
	if l.Rate != 0 || l.Duration != 0 || l.Warmup != 2 {
		t.Fatalf("load rate %v duration %v warmup %d beside stages", l.Rate, l.Duration, l.Warmup)
	}
	if s.Gate == nil || len(s.Gate.Tolerances) != 1 {
		t.Fatalf("gate %+v", s.Gate)
	}
}

// partsRun is a run whose records give mix.chat TTFTs of 100 to 190 ms
// and mix.rag of 300 to 390, stage 1 holding the first ten and stage 2
// the last ten.
func partsSummary() *results.Summary {
	var recs []results.Record
	for i := range 20 {
		member, base := "chat", 100
		if i%2 == 1 {
			member, base = "rag", 300
		}
		ttft := time.Duration(base+10*(i/2)) * time.Millisecond
		recs = append(recs, results.Record{Seq: i, Index: i, Member: member, Stage: 1 + i/10, Sent: time.Duration(i) * time.Millisecond,
			TTFT: ttft, E2EL: ttft + time.Millisecond, InputTokens: 4, OutputTokens: 2})
	}
	s := results.Analyze(recs, results.SummarizeOptions{}).Summary
	return &s
}

func TestAssertsOnPartsEvaluate(t *testing.T) {
	s := mustLoad(t, mixStagesSuite, Options{})
	run := s.Scenarios[0].Runs[0]
	res := run.EvalAsserts(partsSummary())
	if len(res) != 2 {
		t.Fatalf("%d results", len(res))
	}
	// chat's p95 is 185.5 ms: under 500
	if !res[0].Passed || res[0].Values["mix.chat.ttft.p95"] < 180 || res[0].Values["mix.chat.ttft.p95"] > 190 {
		t.Fatalf("chat assert: %+v", res[0])
	}
	// stage 2's p95 is well above 50 ms: the assert fails, and says so
	if res[1].Passed || res[1].Values["stage.2.ttft.p95"] < 300 || res[1].Values["stage.1.requests.completed"] != 10 {
		t.Fatalf("stage assert: %+v", res[1])
	}
	// a run whose records lack stage 2 says why
	one := partsSummary()
	one.Parts = one.Parts[:len(one.Parts)-1]
	res = run.EvalAsserts(one)
	if res[1].Passed || !strings.Contains(res[1].Message.Raw(), "no stage 2 with a measured request") {
		t.Fatalf("stage assert without stage 2: %q", res[1].Message.Raw())
	}
}

func TestMixAndStagesErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"both", `scenario "s" {
  workload {
    kind = "random"
  }
  mix {
    workload "a" {
      weight = 1
    }
  }
  load {
    concurrency = 1
    requests    = 1
  }
}`, "suite.hcl:5,3-6: Both workload and mix"},
		{"empty mix", `scenario "s" {
  mix {
  }
  load {
    concurrency = 1
    requests    = 1
  }
}`, "suite.hcl:2,3-6: Empty mix"},
		{"bad weight", `scenario "s" {
  mix {
    workload "a" {
      weight = 0
    }
  }
  load {
    concurrency = 1
    requests    = 1
  }
}`, "suite.hcl:4,16-17: Invalid weight"},
		{"trace member", `scenario "s" {
  mix {
    workload "a" {
      kind = "conversation"
    }
  }
  load {
    concurrency = 1
    requests    = 1
  }
}`, "suite.hcl:4,14-28: Workload that can't be mixed"},
		{"duplicate member", `scenario "s" {
  mix {
    workload "a" {
    }
    workload "a" {
    }
  }
  load {
    concurrency = 1
    requests    = 1
  }
}`, "suite.hcl:5,5-17: Duplicate mix member"},
		{"rate beside stages", `scenario "s" {
  load {
    rate = 3
    stage {
      rate     = 1
      requests = 3
    }
  }
}`, "suite.hcl:3,12-13: rate beside stages"},
		{"stage without end", `scenario "s" {
  load {
    stage {
      rate = 1
    }
  }
}`, "suite.hcl:3,5-10: Stage without an end"},
		{"stage without arrivals", `scenario "s" {
  load {
    stage {
      requests = 4
    }
  }
}`, "suite.hcl:3,5-10: Stage without an arrival process"},
		{"unknown member", `scenario "s" {
  mix {
    workload "chat" {
    }
  }
  load {
    concurrency = 1
    requests    = 1
  }
  assert "a" {
    condition = mix.chta.ttft.p95 < 5
  }
}`, `suite.hcl:11,17-34: Unknown mix member; Run s has no mix member "chta"; its members are chat. Did you mean "chat"?`},
		{"unknown stage", `scenario "s" {
  load {
    stage {
      concurrency = 1
      requests    = 1
    }
  }
  assert "a" {
    condition = stage.2.ttft.p95 < 5
  }
}`, "suite.hcl:9,17-33: Unknown stage; Run s has no stage 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := errorsOf(t, tc.src)
			for _, e := range errs {
				if strings.Contains(e, tc.want) {
					return
				}
			}
			t.Fatalf("errors %q, want one containing %q", errs, tc.want)
		})
	}
}

func TestPlanShowsMixAndStages(t *testing.T) {
	var b strings.Builder
	if err := mustLoad(t, mixStagesSuite, Options{}).Plan().WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"load:     2 stages, one after another; 2 warmup\n",
		"stage 1: open loop at 5 req/s, for 1m0s\n",
		"stage 2: closed loop, 4 concurrent, 100 requests\n",
		"workload: a mix of 2, each request drawing its member by weight\n",
		"chat (weight 3, 75% of requests): random, 256 in / 128 out tokens, chat\n",
		"rag (weight 1, 25% of requests): prefix,",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the plan lacks %q:\n%s", want, b.String())
		}
	}
}

func TestCapacitySLOOnAMember(t *testing.T) {
	s := mustLoad(t, `scenario "s" {
  mix {
    workload "chat" {
      output_tokens = 16
    }
    workload "rag" {
      kind          = "prefix"
      prefix_tokens = 64
    }
  }
  load {
    requests = 100
  }
  capacity {
    vary = "concurrency"
    min  = 1
    max  = 8
    slo  = mix.chat.ttft.p95 < 500
  }
}`, Options{})
	if got := len(s.Scenarios[0].Runs[0].Load.Mix); got != 2 {
		t.Fatalf("%d members", got)
	}
}

func TestCapacitySLOOnAnUnknownMember(t *testing.T) {
	errs := errorsOf(t, `scenario "s" {
  mix {
    workload "chat" {
    }
  }
  load {
    requests = 100
  }
  capacity {
    vary = "concurrency"
    min  = 1
    max  = 8
    slo  = mix.rag.ttft.p95 < 500
  }
}`)
	if len(errs) != 1 || !strings.Contains(errs[0], `no mix member "rag"`) {
		t.Fatalf("errors %q", errs)
	}
}

func TestToleranceOnAnUndeclaredPart(t *testing.T) {
	errs := errorsOf(t, `scenario "s" {
  load {
    concurrency = 1
    requests    = 1
  }
}
gate {
  tolerance "stage.3.ttft.p95" {
    max_regression = "10%"
  }
}`)
	if len(errs) != 1 || !strings.Contains(errs[0], "Unknown stage; No scenario of this suite has stage 3") {
		t.Fatalf("errors %q", errs)
	}
}
