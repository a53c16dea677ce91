package inbox

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/inbox/extract/extracttest"
	"github.com/kobana/kobana-mcp/inbox/mailparse"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/platform/webhooks"
)

// TestIntakeProcessesSmallMessages: a message the built-in extractor reads
// in milliseconds is processed by its intake — answered processed, one
// successful agent run, no job — with the very result the queue's job
// records for the same e-mail (its reprocess), in a process that works
// the queue and in one that only inserts jobs alike; a message over
// intakeExtractMax waits approved for its job, which processes it.
func TestIntakeProcessesSmallMessages(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e, s := contasIntake(t, db)
		ctx := context.Background()
		receive := func(s *service, raw []byte) receivedEmail {
			t.Helper()
			got, err := s.receive(ctx, raw, "bounce@fornecedor.example", []string{"contas@inbox.localhost"}, intakeHTTP)
			if err != nil || len(got) != 1 {
				t.Fatalf("receive: %v %+v", err, got)
			}
			return got[0]
		}

		for _, fixture := range []string{"mixed_pdf.eml", "html_only.eml", "latin1.eml", "forwarded_rfc822.eml"} {
			got := receive(s.service, mailFixture(t, fixture))
			if got.Status != emailProcessed {
				t.Fatalf("%s: the intake answered %s", fixture, got.Status)
			}
			mailProcessedAtIntake(t, db, got.ID)
			atIntake := mailResult(t, db, got.ID)
			// The job's answer for the same e-mail: its reprocess.
			if code, body := e.Do(e.Owner, "POST", "/api/v1/emails/"+got.ID+"/reprocess", nil); code != 202 {
				t.Fatalf("%s: reprocess %d %s", fixture, code, body)
			}
			waitRuns(t, db, got.ID, 2)
			if byJob := mailResult(t, db, got.ID); byJob != atIntake {
				t.Fatalf("%s: processed at intake\n%s\nby the job\n%s", fixture, atIntake, byJob)
			}
		}

		// Over the bound: the job processes it.
		var pad strings.Builder
		for pad.Len() <= intakeExtractMax {
			fmt.Fprintf(&pad, "X-Padding: %s\r\n", strings.Repeat("b", 900))
		}
		big := []byte(strings.Replace(string(mailFixture(t, "html_only.eml")), "\r\n\r\n", "\r\n"+pad.String()+"\r\n", 1))
		queued := receive(s.service, big)
		if queued.Status != emailApproved {
			t.Fatalf("a message of %d bytes was answered %s", len(big), queued.Status)
		}
		if n := mailJobs(t, db, queued.ID, false); n != 1 {
			t.Fatalf("a message over the bound has %d processing jobs", n)
		}
		waitRuns(t, db, queued.ID, 1)

		// A process that only inserts jobs (an API replica beside worker
		// processes) processes at intake too: the answer does not depend
		// on the deployment's shape.
		api, err := jobs.New(ctx, db, jobs.Config{Work: false, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		replica := &service{db: e.DB, accounts: e.Acc, jobs: api, cfg: Config{SMTPAddr: "off"}.withDefaults()}
		replica.hooks = webhooks.New(e.DB, api, webhooks.Config{Product: "inbox"})
		registerProcessing(replica, api) // its kinds, as serve --jobs=off registers them
		other := []byte(strings.Replace(string(mailFixture(t, "latin1.eml")), "Message-ID: <", "Message-ID: <replica-", 1))
		if got := receive(replica, other); got.Status != emailProcessed {
			t.Fatalf("an API replica's intake answered %s", got.Status)
		} else {
			mailProcessedAtIntake(t, db, got.ID)
		}
	})
}

// mailResult is the result the e-mail's last run recorded.
func mailResult(t *testing.T, db *store.DB, id string) string {
	t.Helper()
	var meta struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal([]byte(mailRow(t, db, id).AgentMetadataJSON), &meta); err != nil || len(meta.Result) == 0 {
		t.Fatalf("agent_metadata of %s: %v", id, err)
	}
	return string(meta.Result)
}

// waitRuns waits until the e-mail is processed with n successful runs.
func waitRuns(t *testing.T, db *store.DB, id string, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var runs int
		if err := db.Get(context.Background(), &runs, `SELECT COUNT(*) FROM agent_runs WHERE email_id = ? AND status = 'success'`, id); err != nil {
			t.Fatal(err)
		}
		if runs == n && mailRow(t, db, id).Status == emailProcessed {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("e-mail %s: %d successful runs, %s", id, runs, mailRow(t, db, id).Status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestIntakeExtractsFewPDFPages: a message whose PDFs hold more than
// intakePDFPagesMax pages is left to the job, whatever its size (PDFs
// compress; their pages are what costs); one of a page is extracted.
func TestIntakeExtractsFewPDFPages(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		_, s := contasIntake(t, db)
		ctx := context.Background()
		at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		for _, c := range []struct {
			pages    int
			atIntake bool
		}{{1, true}, {intakePDFPagesMax, true}, {intakePDFPagesMax + 1, false}} {
			pdf, err := extracttest.TextPDF(c.pages)
			if err != nil {
				t.Fatal(err)
			}
			msg := &mailparse.Message{Subject: "Fatura", Text: "Segue a fatura.",
				Attachments: []mailparse.Attachment{{Filename: "fatura.pdf", ContentType: "application/pdf", Size: int64(len(pdf)), Data: pdf}}}
			run := s.extractAtIntake(ctx, msg, len(pdf)+1024, "cobranca@fornecedor.example", at)
			if (run != nil) != c.atIntake {
				t.Errorf("a %d-page PDF (%d bytes): extracted at intake %v, want %v", c.pages, len(pdf), run != nil, c.atIntake)
			}
		}
	})
}
