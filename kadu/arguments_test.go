package kadu

import (
	"testing"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/productkit/producttest"
)

// An unknown argument of a read tool comes back in Kadu's own error
// envelope naming the key, exactly as the API answers the unknown query
// parameter (the seeds' VALIDATION_ERROR, in Kadu's spelling).
func TestUnknownArgumentIsAValidationError(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		cfg := Config{}
		cfg.Runtime.Hold = true
		e := producttest.Start(t, db, specWith(cfg), producttest.Options{})
		want := `{"error":{"code":"validation_failed","message":"the request is invalid","details":[{"field":"statuz","message":"unknown query parameter"}]}}`
		if text, isErr := e.Call(e.Owner, "kadu_executions_list", map[string]any{"statuz": "running"}); !isErr || text != want {
			t.Errorf("tool: %v %s", isErr, text)
		}
		if code, body := e.Do(e.Owner, "GET", APIBase+"/executions?statuz=running", nil); code != 422 || body != want {
			t.Errorf("REST: %d %s", code, body)
		}
	})
}
