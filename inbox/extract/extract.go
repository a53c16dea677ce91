package extract

import (
	"time"
)

// Extract reads every part of in and returns the findings. It is
// deterministic for a given input (with ReferenceDate set) and never
// panics.
func Extract(in Input) Result {
	r, _ := Analyze(in)
	return r
}

// Analyze is Extract that also returns the plain text of each part it
// read, so callers that need both (the LLM providers) parse PDFs once.
func Analyze(in Input) (Result, []SourceText) {
	ref := in.ReferenceDate
	if ref.IsZero() {
		ref = time.Now()
	}
	texts, atts, warnings := readSources(in)
	c := newCollector(ref)
	for _, st := range texts {
		c.scan(st.Source, st.Text)
	}
	r := c.result()
	r.Attachments = atts
	r.Warnings = append(warnings, r.Warnings...)
	return r.normalized(), texts
}
