package kadu

import (
	"testing"

	"github.com/kobana/kobana-mcp/internal/layers"
)

// kaduLayers are Kadu's packages bottom up (kadu/doc.go): the records
// (rows, stores, the executions' state machine), the runtime that runs
// workflows and agents over them; the root is the API, catalog and Spec.
// kadu/wflang is a foundation below them all.
var kaduLayers = []string{"records", "runtime"}

// TestLayersPointDown: no Kadu package imports one of a layer above it,
// and the foundations import no layer.
func TestLayersPointDown(t *testing.T) {
	t.Parallel()
	graph, err := layers.Graph("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := graph[layers.Module+"/kadu/runtime"]; !ok {
		t.Fatal("go list does not show kadu/runtime")
	}
	for _, v := range layers.CheckWithin(graph, layers.Module+"/kadu", kaduLayers) {
		t.Error(v)
	}
}
