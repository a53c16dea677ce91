package agent

import (
	"context"
	"encoding/json"

	"github.com/kobana/kobana-mcp/inbox/extract"
)

// ExtractorModel names the offline extractor's output format in
// Response.Model (and AgentRun.llm_model); bump it when the Result schema
// changes incompatibly.
const ExtractorModel = "kobana-extractor-1"

// ExtractorName is the Extractor provider's Name.
const ExtractorName = "extractor"

// Extractor is the default provider: it runs extract.Extract locally, so
// it is free (zero usage and cost), deterministic and needs no network.
// The output is the extract.Result JSON. The system message and model of
// the request are ignored.
func Extractor() Provider { return extractorProvider{} }

type extractorProvider struct{}

func (extractorProvider) Name() string { return ExtractorName }

func (extractorProvider) Run(ctx context.Context, req Request) (Response, error) {
	if err := ctx.Err(); err != nil {
		return Response{}, &Error{Provider: ExtractorName, Message: "canceled before running", Err: err}
	}
	out, err := json.Marshal(extract.Extract(req.Input))
	if err != nil {
		return Response{}, &Error{Provider: ExtractorName, Message: "encoding the result: " + err.Error(), Err: err}
	}
	return Response{Provider: ExtractorName, Model: ExtractorModel, Output: out}, nil
}
