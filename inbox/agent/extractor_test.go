package agent

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/kobana/kobana-mcp/inbox/extract"
)

func TestExtractorRunsTheOfflineExtractor(t *testing.T) {
	t.Parallel()
	p := Extractor()
	if p.Name() != ExtractorName {
		t.Errorf("name %q", p.Name())
	}
	resp, err := p.Run(context.Background(), Request{Model: "ignored", SystemMessage: "ignored", Input: emailInput()})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Provider != ExtractorName || resp.Model != ExtractorModel || resp.Usage != (Usage{}) {
		t.Errorf("response %+v", resp)
	}
	var r extract.Result
	if err := json.Unmarshal(resp.Output, &r); err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(extract.Extract(emailInput()))
	if string(resp.Output) != string(want) {
		t.Errorf("output differs from extract.Extract:\n%s\n%s", resp.Output, want)
	}
	if len(r.Boletos) != 1 || len(r.Documents) != 1 {
		t.Errorf("findings %+v", r)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Run(ctx, Request{Input: emailInput()}); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled run: %v", err)
	}
}
