package inbox

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestAgentRunsStore checks the contract processing relies on: a run
// starts running with what it was given, finishes once, only within its
// organization, only as success or failed, with an object as output; and
// a run needs its e-mail.
func TestAgentRunsStore(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		acc := accounts.New(db, accounts.Options{})
		org, _ := acc.CreateOrganization(ctx, "Org")
		other, _ := acc.CreateOrganization(ctx, "Other")
		ws, _ := acc.ListWorkspaces(ctx, org.ID)
		inbox := whInbox(t, db, org.ID, ws[0].ID, "box")
		mail := whEmail(t, db, org.ID, ws[0].ID, inbox)
		base := agentRunRecord{OrganizationID: org.ID, WorkspaceID: ws[0].ID, InboxID: inbox, EmailID: mail, Provider: "openai", LLMModel: "gpt-x", CostPerToken: 0.5}

		at := time.Date(2026, 7, 28, 12, 0, 0, 123456789, time.FixedZone("BRT", -3*3600))
		in := base
		in.StartedAt, in.Status, in.OutputJSON = at, "success", `{"x":1}`
		r, err := startAgentRun(ctx, db, in)
		if err != nil {
			t.Fatal(err)
		}
		stored, err := getAgentRun(ctx, db, org.ID, ws[0].ID, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		if r.ID == "" || stored.Status != agentRunRunning || stored.OutputJSON != "{}" || stored.CostPerToken != 0.5 ||
			!stored.StartedAt.Equal(at.Truncate(time.Microsecond)) || stored.StartedAt.Location() != time.UTC || stored.FinishedAt != nil {
			t.Fatalf("started: %+v", stored)
		}

		for name, c := range map[string]struct {
			org, status string
			output      string
		}{
			"another organization": {other.ID, agentRunSuccess, ""},
			"a status of its own":  {org.ID, agentRunRunning, ""},
			"an array as output":   {org.ID, agentRunSuccess, `[1,2]`},
			"output that is text":  {org.ID, agentRunSuccess, `not json`},
		} {
			err := finishAgentRun(ctx, db, c.org, r.ID, c.status, nil, agentRunUsage{}, json.RawMessage(c.output), at.Add(time.Second))
			if err == nil {
				t.Errorf("%s: finished", name)
			}
			if c.org == other.ID && !errors.Is(err, store.ErrNotFound) {
				t.Errorf("%s: %v, want ErrNotFound", name, err)
			}
		}
		if err := finishAgentRun(ctx, db, org.ID, r.ID, agentRunSuccess, nil, agentRunUsage{TotalCost: 2}, nil, at.Add(-time.Second)); err != nil {
			t.Fatal(err)
		}
		stored, _ = getAgentRun(ctx, db, org.ID, ws[0].ID, r.ID)
		if stored.Status != agentRunSuccess || stored.DurationMS == nil || *stored.DurationMS != 0 || stored.TotalCost != 2 || stored.OutputJSON != "{}" {
			t.Fatalf("finished (a clock that went back counts zero): %+v", stored)
		}
		if err := finishAgentRun(ctx, db, org.ID, r.ID, agentRunFailed, nil, agentRunUsage{}, nil, at); !errors.Is(err, errAgentRunFinished) {
			t.Fatalf("finishing twice: %v", err)
		}

		missing := base
		missing.EmailID = store.NewID()
		if _, err := startAgentRun(ctx, db, missing); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("a run of an e-mail that does not exist: %v", err)
		}
		incomplete := base
		incomplete.LLMModel = ""
		if _, err := startAgentRun(ctx, db, incomplete); err == nil {
			t.Fatal("a run without a model started")
		}
		if _, err := getAgentRun(ctx, db, other.ID, ws[0].ID, r.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another organization reads the run: %v", err)
		}
	})
}
