package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestIntakeKilledMidExtraction: the built-in extractor processes small
// e-mails in their intake's transaction (docs/decisions.md, "The built-in
// extractor runs at intake"). A serve killed with SIGKILL in the middle of
// a burst of such intakes leaves each e-mail whole or absent: after a
// restart every stored e-mail is processed, with exactly one successful
// agent run, one email.received and one email.processed event, and no
// processing job — none half-written, none left waiting for a job that
// was never enqueued — and every e-mail answered 2xx is stored.
func TestIntakeKilledMidExtraction(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and kills the binary")
	}
	dbURL := storetest.URL(t, store.Postgres)
	bin := buildBinary(t)
	dataDir := t.TempDir()
	common := []string{"--data-dir", dataDir, "--database-url", dbURL,
		"--rate-limits", "reads=100000-M,writes=100000-M,org-reads=100000-M,org-writes=100000-M"}
	r := startReplica(t, bin, freePort(t), common...)
	token := demoToken(t, dataDir, dbURL, r.addr, "api")
	client := &http.Client{Timeout: 20 * time.Second}
	post := func(addr, path, ctype string, body []byte) (int, []byte, error) {
		req, _ := http.NewRequest("POST", "http://"+addr+"/api/v1"+path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", ctype)
		resp, err := client.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		_, err = b.ReadFrom(resp.Body)
		return resp.StatusCode, b.Bytes(), err
	}
	code, body, err := post(r.addr, "/inboxes", "application/json", []byte(`{"label":"Kill intake"}`))
	if err != nil || code != 201 {
		t.Fatalf("the inbox: %d %v %s", code, err, body)
	}
	var ib struct {
		Data struct{ Email string } `json:"data"`
	}
	_ = json.Unmarshal(body, &ib)
	mail, err := os.ReadFile("../../examples/inbox/boleto.eml")
	if err != nil {
		t.Fatal(err)
	}

	var accepted, seq atomic.Int64
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				n := seq.Add(1)
				msg := bytes.Replace(mail, []byte("Message-ID: <"), []byte(fmt.Sprintf("Message-ID: <kill-%d.", n)), 1)
				code, _, err := post(r.addr, "/intake/messages?to="+ib.Data.Email, "message/rfc822", msg)
				if err != nil {
					return // the process is gone
				}
				if code/100 == 2 {
					accepted.Add(1)
				}
			}
		}()
	}
	for deadline := time.Now().Add(60 * time.Second); accepted.Load() < 40; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("only %d e-mails accepted in 60 s", accepted.Load())
		}
	}
	if err := r.cmd.Process.Kill(); err != nil { // SIGKILL, intakes in flight
		t.Fatal(err)
	}
	<-r.exited
	wg.Wait()
	startReplica(t, bin, freePort(t), common...)

	db, err := store.Open(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	var total int
	if err := db.Get(ctx, &total, `SELECT COUNT(*) FROM emails`); err != nil {
		t.Fatal(err)
	}
	if int64(total) < accepted.Load() {
		t.Fatalf("%d e-mails answered 2xx, %d stored", accepted.Load(), total)
	}
	var wrong []struct {
		ID       string `db:"id"`
		Status   string `db:"status"`
		Runs     int    `db:"runs"`
		Received int    `db:"received"`
		Done     int    `db:"done"`
	}
	if err := db.Select(ctx, &wrong, `SELECT e.id, e.status,
		(SELECT COUNT(*) FROM agent_runs r WHERE r.email_id = e.id AND r.status = 'success') AS runs,
		(SELECT COUNT(*) FROM system_events v WHERE v.subject_id = e.id AND v.slug = 'email.received') AS received,
		(SELECT COUNT(*) FROM system_events v WHERE v.subject_id = e.id AND v.slug = 'email.processed') AS done
		FROM emails e`); err != nil {
		t.Fatal(err)
	}
	bad := 0
	for _, w := range wrong {
		if w.Status != "processed" || w.Runs != 1 || w.Received != 1 || w.Done != 1 {
			bad++
			t.Errorf("e-mail %s after the kill: %s, %d runs, %d email.received, %d email.processed", w.ID, w.Status, w.Runs, w.Received, w.Done)
		}
	}
	var jobs int
	if err := db.Get(ctx, &jobs, `SELECT COUNT(*) FROM river_job WHERE kind = 'inbox.process_email'`); err != nil {
		t.Fatal(err)
	}
	if jobs != 0 {
		t.Errorf("%d processing jobs for e-mails processed at intake", jobs)
	}
	t.Logf("e-mails answered 2xx before the kill %d, stored %d, all processed once at intake: %v", accepted.Load(), total, bad == 0 && jobs == 0)
}
