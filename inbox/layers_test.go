package inbox

import (
	"testing"

	"github.com/kobana/kobana-mcp/internal/layers"
)

// TestLayersPointDown: the Inbox's sub-packages (agent, extract,
// mailparse) are foundations below its root: none imports the root.
func TestLayersPointDown(t *testing.T) {
	t.Parallel()
	graph, err := layers.Graph("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := graph[layers.Module+"/inbox/extract"]; !ok {
		t.Fatal("go list does not show inbox/extract")
	}
	for _, v := range layers.CheckWithin(graph, layers.Module+"/inbox", nil) {
		t.Error(v)
	}
}
