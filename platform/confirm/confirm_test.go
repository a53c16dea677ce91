package confirm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/confirm"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

func newNonces(t *testing.T, db *store.DB, opts confirm.Options) *confirm.Nonces {
	n := confirm.New(db, opts)
	t.Cleanup(n.Wait)
	return n
}

func TestConsumeOnce(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		n := newNonces(t, db, confirm.Options{})
		exp := time.Now().Add(5 * time.Minute)
		if err := n.Consume(ctx, "a", exp); err != nil {
			t.Fatal(err)
		}
		if err := n.Consume(ctx, "a", exp); !errors.Is(err, mcp.ErrNonceUsed) {
			t.Fatalf("second consume: %v, want ErrNonceUsed", err)
		}
		if err := n.Consume(ctx, "b", exp); err != nil {
			t.Fatalf("another nonce: %v", err)
		}
		if err := n.Consume(ctx, "", exp); err == nil {
			t.Fatal("an empty nonce was accepted")
		}
	})
}

// Of many concurrent consumptions of one nonce, exactly one succeeds.
func TestConsumeConcurrently(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		n := newNonces(t, db, confirm.Options{})
		var ok, used atomic.Int32
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				switch err := n.Consume(context.Background(), "same", time.Now().Add(time.Minute)); {
				case err == nil:
					ok.Add(1)
				case errors.Is(err, mcp.ErrNonceUsed):
					used.Add(1)
				default:
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if ok.Load() != 1 || used.Load() != 7 {
			t.Fatalf("%d succeeded, %d found it used; want 1 and 7", ok.Load(), used.Load())
		}
	})
}

// ConsumeIn belongs to the caller's transaction: rolled back, the
// confirmation is still unused; committed, it is used.
func TestConsumeInFollowsTheTransaction(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		n := newNonces(t, db, confirm.Options{})
		conf := &mcp.Confirmation{Nonce: "tx", Expires: time.Now().Add(time.Minute)}
		ctx := mcp.WithConfirmation(context.Background(), conf)
		boom := errors.New("the operation failed")
		if err := n.WithTx(ctx, func(*store.Tx) error { return boom }); !errors.Is(err, boom) {
			t.Fatalf("WithTx: %v", err)
		}
		if err := n.WithTx(ctx, func(*store.Tx) error { return nil }); err != nil {
			t.Fatalf("after a rollback the confirmation is unused, got %v", err)
		}
		if err := n.WithTx(ctx, func(*store.Tx) error { t.Error("ran a replay"); return nil }); !errors.Is(err, confirm.ErrReplayed) || !errors.Is(err, mcp.ErrNonceUsed) {
			t.Fatalf("replay: %v, want ErrReplayed", err)
		}
		// No confirmation in the context (a REST request): nothing to consume.
		ran := false
		if err := n.WithTx(context.Background(), func(*store.Tx) error { ran = true; return nil }); err != nil || !ran {
			t.Fatalf("without a confirmation: %v, ran %v", err, ran)
		}
	})
}

func TestPurgeDropsExpiredOnly(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		now := time.Now()
		clock := func() time.Time { return now }
		n := newNonces(t, db, confirm.Options{Now: clock, PurgeEvery: time.Hour})
		if err := n.Consume(ctx, "old", now.Add(-time.Second)); err != nil {
			t.Fatal(err)
		}
		n.Wait() // the purge the first consumption started
		if err := n.Consume(ctx, "live", now.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if err := n.Purge(ctx); err != nil {
			t.Fatal(err)
		}
		var left []string
		if err := db.Select(ctx, &left, "SELECT nonce FROM confirmation_nonces ORDER BY nonce"); err != nil {
			t.Fatal(err)
		}
		if strings.Join(left, ",") != "live" {
			t.Fatalf("rows after purge: %v, want live", left)
		}
	})
}

// The background purge runs after consumptions, at most once per period.
func TestBackgroundPurge(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		var mu sync.Mutex
		now := time.Now()
		clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		n := newNonces(t, db, confirm.Options{Now: clock, PurgeEvery: time.Minute})
		for i := range 3 {
			if err := n.Consume(ctx, fmt.Sprint("old", i), now.Add(time.Second)); err != nil {
				t.Fatal(err)
			}
		}
		n.Wait()
		mu.Lock()
		now = now.Add(2 * time.Minute)
		mu.Unlock()
		if err := n.Consume(ctx, "new", now.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		n.Wait()
		var count int
		if err := db.Get(ctx, &count, "SELECT COUNT(*) FROM confirmation_nonces"); err != nil {
			t.Fatal(err)
		}
		if count != 1 {
			t.Fatalf("%d rows after the background purge, want 1", count)
		}
	})
}

// TestConcurrentConfirmedRetries: an MCP endpoint on the real database;
// two accepted retries of the same confirmation race, and exactly one runs
// — for a tool whose nonce the endpoint consumes, and for one that consumes
// it in the same transaction as its write (a workspace deletion).
func TestConcurrentConfirmedRetries(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		n := newNonces(t, db, confirm.Options{})
		acc := accounts.New(db, accounts.Options{})
		org, err := acc.CreateOrganization(ctx, "Acme")
		if err != nil {
			t.Fatal(err)
		}
		var plainRuns, txRuns atomic.Int32
		tools := []mcp.Tool{
			{
				Name: "plain_delete", Description: "d", Annotations: destructive(), InputSchema: idSchema,
				Handler: func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					time.Sleep(10 * time.Millisecond)
					plainRuns.Add(1)
					return mcp.TextResult("done"), nil
				},
			},
			{
				Name: "tx_delete", Description: "d", Annotations: destructive(), InputSchema: idSchema, ConsumesConfirmation: true,
				Handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					var args struct{ ID string }
					_ = json.Unmarshal(req.Arguments, &args)
					err := n.WithTx(ctx, func(tx *store.Tx) error {
						time.Sleep(10 * time.Millisecond)
						return acc.InTx(tx).DeleteWorkspace(ctx, org.ID, args.ID)
					})
					switch {
					case errors.Is(err, confirm.ErrReplayed):
						return mcp.ErrorResult("replayed"), nil
					case errors.Is(err, store.ErrNotFound):
						return mcp.ErrorResult("not found"), nil
					case err != nil:
						return nil, err
					}
					txRuns.Add(1)
					return mcp.TextResult("deleted"), nil
				},
			},
		}
		h := mcp.MustNewHandler(mcp.Options{Name: "t", Version: "1", Confirm: mcp.ConfirmOptions{Nonces: n}}, mcp.Catalog{Tools: tools})

		for _, tool := range []string{"plain_delete", "tx_delete"} {
			for round := range 3 {
				ws, err := acc.CreateWorkspace(ctx, org.ID, accounts.NewWorkspace{Label: fmt.Sprint(tool, round)})
				if err != nil {
					t.Fatal(err)
				}
				args := fmt.Sprintf(`{"id":%q}`, ws.ID)
				first := call(t, h, tool, args, nil, "")
				state, _ := first.Result["requestState"].(string)
				if state == "" {
					t.Fatalf("%s: no requestState: %+v", tool, first)
				}
				var answers [2]reply
				var wg sync.WaitGroup
				for i := range answers {
					wg.Go(func() {
						answers[i] = call(t, h, tool, args, state, `{"confirm":{"action":"accept","content":{"confirm":true}}}`)
					})
				}
				wg.Wait()
				ran, refused := 0, 0
				for _, a := range answers {
					switch {
					case a.Error == nil && a.Result["isError"] != true:
						ran++
					case a.Error != nil && a.Error.Code == mcp.CodeInvalidParams:
						refused++
					default:
						t.Errorf("%s: unexpected answer %+v", tool, a)
					}
				}
				if ran != 1 || refused != 1 {
					t.Errorf("%s round %d: %d ran, %d refused; want exactly one each", tool, round, ran, refused)
				}
			}
		}
		if plainRuns.Load() != 3 || txRuns.Load() != 3 {
			t.Errorf("runs: plain %d, tx %d; want 3 each", plainRuns.Load(), txRuns.Load())
		}
	})
}

var idSchema = &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"id": {Type: "string"}}, Required: []string{"id"}}

func destructive() *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(false), DestructiveHint: mcp.Bool(true), IdempotentHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)}
}

type reply struct {
	Result map[string]any `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func call(t *testing.T, h http.Handler, tool, args string, state any, responses string) reply {
	params := map[string]any{
		"name": tool, "arguments": json.RawMessage(args),
		"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{}}},
	}
	if state != nil {
		params["requestState"] = state
	}
	if responses != "" {
		params["inputResponses"] = json.RawMessage(responses)
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
	r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(string(body)))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("MCP-Protocol-Version", "2026-07-28")
	r.Header.Set("Mcp-Method", "tools/call")
	r.Header.Set("Mcp-Name", tool)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	var out reply
	if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
		t.Errorf("not JSON: %s", w.Body)
	}
	return out
}
