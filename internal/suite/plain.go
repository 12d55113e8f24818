package suite

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/llmgate/llmgate/runspec"
)

// This file turns what the suite decoded into the plain data the packages
// downstream take (compare, report, ghaction link no HCL): source ranges
// into runspec.Source, diagnostics into runspec.Diagnostic, the gate block
// into a compare.Config.

// sourceOf is r as plain data; the zero Source for a range with no file.
func sourceOf(r hcl.Range) runspec.Source {
	if r.Filename == "" {
		return runspec.Source{}
	}
	return runspec.Source{
		File:  r.Filename,
		Start: runspec.Pos{Line: r.Start.Line, Column: r.Start.Column},
		End:   runspec.Pos{Line: r.End.Line, Column: r.End.Column},
	}
}

// PlainDiagnostics is diags as plain data, in order, for the step summary
// and the annotations of a suite that did not load.
func PlainDiagnostics(diags hcl.Diagnostics) []runspec.Diagnostic {
	out := make([]runspec.Diagnostic, 0, len(diags))
	for _, d := range diags {
		pd := runspec.Diagnostic{Severity: runspec.Warning, Summary: d.Summary, Detail: d.Detail}
		if d.Severity == hcl.DiagError {
			pd.Severity = runspec.Error
		}
		if d.Subject != nil {
			pd.Source = sourceOf(*d.Subject)
		}
		out = append(out, pd)
	}
	return out
}

// ScenarioSources is where each scenario of s is declared, by name (its
// block's header), for annotations that have no tolerance block to point
// at; nil for a nil suite.
func (s *Suite) ScenarioSources() map[string]runspec.Source {
	if s == nil {
		return nil
	}
	out := make(map[string]runspec.Source, len(s.Scenarios))
	for _, sc := range s.Scenarios {
		if src := sourceOf(sc.DeclRange); !src.IsZero() {
			out[sc.Name] = src
		}
	}
	return out
}
