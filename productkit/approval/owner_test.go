package approval_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/pagetext"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/productkit/approval"
	"github.com/kobana/kobana-mcp/productkit/approval/approvaltest"
)

// decisions records what an owner was told.
type decisions struct {
	mu  sync.Mutex
	got []approval.Status
}

func (d *decisions) owner() approval.Owner {
	return approval.Owner{
		Decided: func(ctx context.Context, a *approval.Approval) error {
			d.mu.Lock()
			defer d.mu.Unlock()
			d.got = append(d.got, a.Status)
			return nil
		},
		Requester: func(a *approval.Approval) pagetext.Phrase {
			return pagetext.Phrase{PT: "Execução " + a.OwnerRef, EN: "Execution " + a.OwnerRef}
		},
		ToolTitle: func(tool string) string { return "Registrar cobrança" },
	}
}

func (d *decisions) list() []approval.Status {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]approval.Status(nil), d.got...)
}

// TestOwnedApproval: an approval the product asks for itself shows the
// exact tool and arguments on the same page, the owner's words as who
// asks (the client's name when the approval records the client whose
// call started the work); Continuar and Cancelar go back to its owner,
// and nothing of the policy's own catalog runs.
func TestOwnedApproval(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		d := &decisions{}
		e := newEnv(t, db, approvaltest.Options{Owners: map[string]approval.Owner{"test.execution": d.owner()}})
		request := func(ref string) (string, *approval.Approval) {
			a := &approval.Approval{OrganizationID: e.srv.Org.ID, UserID: e.srv.Owner.ID, Email: e.srv.Owner.Email,
				PrincipalHash: approval.PrincipalHash("execution:" + ref), Tool: "other_charges_create",
				Arguments: `{"amount":12.5,"debtor":"d1"}`, Message: "Create a charge of R$ 12,50 for d1.",
				Owner: "test.execution", OwnerRef: ref}
			link, err := e.srv.Policy.Request(context.Background(), a)
			if err != nil {
				t.Fatal(err)
			}
			return link, a
		}
		if _, err := e.srv.Policy.Request(context.Background(), &approval.Approval{Owner: "nobody"}); err == nil {
			t.Fatal("an approval of an unregistered owner was stored")
		}
		link, a := request("exec-1")
		b := e.browser()
		p := b.open(link, approvaltest.OwnerEmail, approvaltest.OwnerPassword)
		if p.status != http.StatusOK {
			t.Fatalf("page: %d\n%s", p.status, p.body)
		}
		for _, want := range []string{`id="continuar"`, "Registrar cobrança", "other_charges_create", "Execução exec-1",
			"&#34;amount&#34;: 12.5", "Create a charge of R$ 12,50 for d1."} {
			if !strings.Contains(p.body, want) {
				t.Errorf("page lacks %q", want)
			}
		}
		b.decide(p, link, "continuar")
		if got := d.list(); len(got) != 1 || got[0] != approval.StatusApproved {
			t.Fatalf("the owner was told %v, want approved", got)
		}
		time.Sleep(100 * time.Millisecond)
		if got := e.approval(a.ID); got.Status != approval.StatusApproved || len(e.srv.Projects.AllRuns()) != 0 {
			t.Fatalf("after Continuar: %s, runs %v (the owner makes the call)", got.Status, e.srv.Projects.AllRuns())
		}
		// The owner claims it and records what ran; the page shows it.
		st := e.srv.Policy.Store()
		if ok, err := st.Claim(context.Background(), a.ID); !ok || err != nil {
			t.Fatalf("claim: %v %v", ok, err)
		}
		if ok, err := st.Finish(context.Background(), a.ID, approval.StatusSucceeded, []mcp.Content{mcp.TextContent(`{"id":"c1"}`)}); !ok || err != nil {
			t.Fatalf("finish: %v %v", ok, err)
		}
		if after := b.get(link); !strings.Contains(after.body, `data-status="succeeded"`) || !strings.Contains(after.body, "&#34;id&#34;: &#34;c1&#34;") {
			t.Errorf("status page:\n%s", after.body)
		}

		link2, a2 := request("exec-2")
		p2 := b.open(link2, approvaltest.OwnerEmail, approvaltest.OwnerPassword)
		b.decide(p2, link2, "cancelar")
		if got := d.list(); len(got) != 2 || got[1] != approval.StatusCancelled {
			t.Fatalf("the owner was told %v, want cancelled second", got)
		}
		if got := e.approval(a2.ID); got.Status != approval.StatusCancelled || got.Owner != "test.execution" || got.OwnerRef != "exec-2" {
			t.Errorf("cancelled approval %+v", got)
		}

		// Work a client started (an execution queued through its call):
		// the page names that client as who asks, not the owner's words.
		a3 := &approval.Approval{OrganizationID: e.srv.Org.ID, UserID: e.srv.Owner.ID, Email: e.srv.Owner.Email,
			PrincipalHash: approval.PrincipalHash("execution:exec-3"), Tool: "other_charges_create", ClientID: approvaltest.ClientID,
			Arguments: `{"amount":1}`, Message: "Create a charge of R$ 1,00.", Owner: "test.execution", OwnerRef: "exec-3"}
		link3, err := e.srv.Policy.Request(context.Background(), a3)
		if err != nil {
			t.Fatal(err)
		}
		p3 := b.open(link3, approvaltest.OwnerEmail, approvaltest.OwnerPassword)
		if !strings.Contains(p3.body, `<span id="client">`+approvaltest.ClientID+`</span>`) || strings.Contains(p3.body, "Execução exec-3") {
			t.Errorf("the page of a client's work does not name the client:\n%s", p3.body)
		}
	})
}
