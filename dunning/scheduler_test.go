package dunning

import (
	"context"
	"encoding/json"
	"fmt"
	"net/mail"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/dunning/collection"
	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/notify"
	"github.com/kobana/kobana-mcp/dunning/regua"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// sp is a São Paulo wall-clock instant.
func sp(y int, m time.Month, d, h, min int) time.Time {
	return time.Date(y, m, d, h, min, 0, 0, brasilia)
}

type ntStep struct {
	Offset   int
	At       string
	Channel  string
	Approval bool
	// Calendar keeps the step on its day even when banks are closed
	// (business_days false).
	Calendar bool
}

// ntPlan creates an active plan with steps through the API and returns
// its id and the steps' ids in order.
func ntPlan(t *testing.T, ne *dunEnv, steps []ntStep) (string, []string) {
	t.Helper()
	code, body := ne.Do(ne.Owner, "POST", "/v1/collection-plans", map[string]any{"name": "Régua " + store.NewID()[:8]})
	plan := data[struct{ ID string }](t, code, body, 201)
	var ids []string
	for _, s := range steps {
		in := map[string]any{"offset_days": s.Offset, "send_time": s.At, "channel": s.Channel,
			"template": "{{debtor.name}}: {{charge.description}} de {{charge.updated_amount}}, vencimento {{charge.due_date}} (" + fmt.Sprint(s.Offset) + ")"}
		if s.Channel == ledger.ChannelEmail {
			in["subject"] = "Cobrança D" + fmt.Sprint(s.Offset)
		}
		if s.Approval {
			in["requires_approval"] = true
		}
		if s.Calendar {
			in["business_days"] = false
		}
		code, body := ne.Do(ne.Owner, "POST", "/v1/collection-plans/"+plan.ID+"/steps", in)
		ids = append(ids, data[struct{ ID string }](t, code, body, 201).ID)
	}
	code, body = ne.Do(ne.Owner, "PATCH", "/v1/collection-plans/"+plan.ID, map[string]any{"status": "active"})
	data[struct{ ID string }](t, code, body, 200)
	return plan.ID, ids
}

func ntEnroll(t *testing.T, ne *dunEnv, charge, plan string) {
	t.Helper()
	code, body := ne.Do(ne.Owner, "PUT", "/v1/charges/"+charge+"/collection-plans/"+plan, nil)
	if code != 201 && code != 200 {
		t.Fatalf("enroll: %d %s", code, body)
	}
}

// tick moves the clock to at and lets the scheduler work as a deployment
// would at that instant: one step-runner job per worker queue, then every
// send they queued.
func (ne *dunEnv) tick(t *testing.T, at time.Time, runners int) {
	t.Helper()
	ne.clock.Set(at)
	ctx := context.Background()
	var ids []int64
	for i := 0; i < runners; i++ {
		id, err := ne.Jobs.Enqueue(ctx, regua.RunnerArgs{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	eventually(t, "the step runners at "+at.Format(time.RFC3339), func() bool {
		for _, id := range ids {
			var st struct {
				State  string  `db:"state"`
				Errors *string `db:"errors"`
			}
			if err := ne.DB.Get(ctx, &st, `SELECT state, CAST(errors AS TEXT) AS errors FROM river_job WHERE id = ?`, id); err != nil {
				t.Fatal(err)
			}
			if st.State == "retryable" || st.State == "discarded" {
				t.Fatalf("step runner job %d is %s: %s", id, st.State, deref(st.Errors))
			}
			if st.State != "completed" {
				return false
			}
		}
		return true
	})
	ne.settle(t)
}

// dueCount is how many enrollments are due at at.
func (ne *dunEnv) dueCount(t testing.TB, at time.Time) int {
	t.Helper()
	var n int
	if err := ne.DB.Get(context.Background(), &n, `SELECT COUNT(*) FROM dunning_enrollments WHERE status = 'active' AND next_run_at <= ?`, at.UTC()); err != nil {
		t.Fatal(err)
	}
	return n
}

// settle waits until no notification is queued or sending.
func (ne *dunEnv) settle(t testing.TB) {
	t.Helper()
	eventually(t, "the sends to finish", func() bool {
		var n int
		if err := ne.DB.Get(context.Background(), &n, `SELECT COUNT(*) FROM dunning_notifications WHERE status IN ('queued', 'sending')`); err != nil {
			t.Fatal(err)
		}
		return n == 0
	})
}

// A whole régua over two months on the test clock, with two worker
// queues (two processes) running the step runner and the sends at once
// on PostgreSQL — where replicas run (docs/operating.md) — and one on
// SQLite, the single-process engine: two River clients over one SQLite
// file, each polling four queues, starved the sends' own writes of its
// lock for tens of seconds under -race on two cores (SQLITE_BUSY on the
// call record, an outcome left unknown: the safe reading, but not what
// this test is about). On each engine:
// every step reaches each debtor exactly once — counted where the messages
// arrive, at the SMTP relay and the Twilio server — on the channel's
// provider; an opted-out channel is skipped and recorded; a step that
// needs approval waits for a person and sends only if approved; and a
// charge paid in the middle gets nothing after its payment.
func TestRegua60DaysTwoWorkers(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("drives two months of scheduler ticks")
	}
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		relay := &ntRelay{}
		tw := ntNewTwilio(t)
		start := sp(2026, 3, 2, 10, 0)
		ne := startNotify(t, db, ledger.ChannelConfig{SMTP: ntStartRelay(t, relay), Twilio: tw.config()}, start)
		twoWorkers := db.Dialect() == store.Postgres
		if twoWorkers {
			ne.secondQueue(t)
		}
		org := ne.Mine.ID
		ntSettings(t, db, org, map[string]ledger.ChannelSetting{
			ledger.ChannelEmail:    {Enabled: true, Provider: ledger.ProviderSMTP},
			ledger.ChannelSMS:      {Enabled: true, Provider: ledger.ProviderTwilio},
			ledger.ChannelWhatsApp: {Enabled: true, Provider: ledger.ProviderTwilio}}, 0)
		// Due Monday 16 March 2026.
		plan, steps := ntPlan(t, ne, []ntStep{
			{-3, "09:00", ledger.ChannelEmail, false, false},
			{0, "10:00", ledger.ChannelSMS, false, false},
			{3, "09:00", ledger.ChannelWhatsApp, false, false},
			{10, "14:00", ledger.ChannelEmail, false, false},
			{30, "09:00", ledger.ChannelSMS, false, false},
			{45, "09:00", ledger.ChannelEmail, true, false},
			{60, "09:00", ledger.ChannelWhatsApp, false, false},
		})
		const charges = 24
		var chargeIDs, debtorIDs []string
		for i := 0; i < charges; i++ {
			d := seedDebtor(t, db, debtorSeed{OrgID: org, Name: fmt.Sprintf("Devedor %d", i),
				Emails: []string{fmt.Sprintf("devedor%d@example.com", i)}, Phones: []string{fmt.Sprintf("+55119876543%02d", i)}})
			c := seedCharge(t, db, chargeSeed{OrgID: org, DebtorID: d, Amount: int64(10000 + i), Due: "2026-03-16", Description: fmt.Sprintf("Parcela %d", i)})
			debtorIDs, chargeIDs = append(debtorIDs, d), append(chargeIDs, c)
			ntEnroll(t, ne, c, plan)
		}
		// Debtor 1 opted out of SMS.
		if err := notify.RecordOptOut(context.Background(), db, org, debtorIDs[1], ledger.ChannelSMS, "STOP reply", "debtor", start); err != nil {
			t.Fatal(err)
		}
		paidAt := sp(2026, 3, 21, 12, 0) // after D+3, before D+10
		decideAt := sp(2026, 5, 1, 12, 0)
		approved := map[string]bool{}
		// Every day at 17:00 local, to 62 days after the due date: each
		// tick runs the day's due steps (09:00, 10:00, 14:00).
		for day := start; day.Before(sp(2026, 5, 18, 0, 0)); day = day.AddDate(0, 0, 1) {
			if noon := time.Date(day.Year(), day.Month(), day.Day(), 12, 0, 0, 0, brasilia); noon.Equal(paidAt) {
				ne.clock.Set(noon)
				ne.closeCharge(t, chargeIDs[0])
			} else if noon.Equal(decideAt) {
				ne.clock.Set(noon)
				ne.decideApprovals(t, approved, charges-1)
			}
			at := time.Date(day.Year(), day.Month(), day.Day(), 17, 0, 0, 0, brasilia)
			if ne.dueCount(t, at) == 0 {
				continue // nothing for the runners to do: no need to wait for them
			}
			ne.tick(t, at, 4)
		}

		// Where the messages arrived: once each.
		arrived := map[string]int{}
		for _, m := range relay.messages() {
			msg, err := mail.ReadMessage(strings.NewReader(m.Data))
			if err != nil {
				t.Fatal(err)
			}
			arrived[strings.Trim(strings.SplitN(msg.Header.Get("Message-Id"), "@", 2)[0], "<")]++
		}
		for _, f := range tw.requests() {
			cb := f.Get("StatusCallback")
			arrived[cb[strings.LastIndex(cb, "/")+1:]]++
		}
		for id, k := range arrived {
			if k != 1 {
				t.Errorf("notification %s reached the provider %d times", id, k)
			}
		}
		all := ntNotifications(t, db, org)
		perCharge := map[string][]notify.Notification{}
		for _, n := range all {
			perCharge[*n.ChargeID] = append(perCharge[*n.ChargeID], n)
			if n.Status == notify.NotificationSent && arrived[n.ID] != 1 {
				t.Errorf("notification %s is sent but reached its provider %d times", n.ID, arrived[n.ID])
			}
		}
		for i, c := range chargeIDs {
			got := perCharge[c]
			sent, skipped := 0, 0
			seen := map[string]bool{}
			for _, n := range got {
				if seen[*n.StepID] {
					t.Errorf("charge %d: step %s has two notifications", i, *n.StepID)
				}
				seen[*n.StepID] = true
				switch {
				case n.Status == notify.NotificationSent:
					sent++
				case n.Status == notify.NotificationFailed && strings.HasPrefix(deref(n.Error), "skipped: "):
					skipped++
				default:
					t.Errorf("charge %d: notification %s is %s (%s)", i, n.ID, n.Status, deref(n.Error))
				}
				if i == 0 && n.QueuedAt.After(paidAt) {
					t.Errorf("charge 0 was paid at %s and still got %s at %s", paidAt, *n.StepID, n.QueuedAt)
				}
			}
			want, wantSkipped := 6, 0 // the six steps without approval
			switch {
			case i == 0:
				want = 3 // D−3, D0, D+3, then paid
			case i == 1:
				want, wantSkipped = 4, 2 // both SMS skipped: opted out
			}
			if approved[c] {
				want++
			}
			if sent != want || skipped != wantSkipped {
				t.Errorf("charge %d: %d sent, %d skipped; want %d and %d", i, sent, skipped, want, wantSkipped)
			}
		}
		// Both worker processes sent.
		var workers []string
		if err := db.Select(context.Background(), &workers, `SELECT DISTINCT CAST(attempted_by AS TEXT) FROM river_job WHERE kind = ?`, notify.SendArgs{}.Kind()); err != nil {
			t.Fatal(err)
		}
		if twoWorkers && len(workers) < 2 {
			t.Errorf("the sends ran on %d worker processes, want both: %v", len(workers), workers)
		}
		// The enrollments: the paid charge's stopped, the rest completed.
		for i, c := range chargeIDs {
			e, err := collection.GetEnrollment(context.Background(), db, org, c, plan, "")
			if err != nil {
				t.Fatal(err)
			}
			want := "completed"
			if i == 0 {
				want = "stopped"
			}
			if e.Status != want || e.NextRunAt != nil {
				t.Errorf("charge %d: enrollment %s (next %v), want %s", i, e.Status, e.NextRunAt, want)
			}
		}
		// The approval step: sent only for the approved charges.
		for _, c := range chargeIDs[1:] {
			n := 0
			for _, x := range perCharge[c] {
				if *x.StepID == steps[5] {
					n++
				}
			}
			if (n == 1) != approved[c] {
				t.Errorf("charge %s: the approval step sent %d times, approved %v", c, n, approved[c])
			}
		}
	})
}

// decideApprovals approves the first half of the pending approvals and
// rejects the rest, through the API, noting the approved charges.
func (ne *dunEnv) decideApprovals(t *testing.T, approved map[string]bool, want int) {
	t.Helper()
	type approvalView struct {
		ID, Status string
		ChargeID   string `json:"charge_id"`
		Message    struct {
			To      *string
			Body    *string
			Refusal *string
		}
	}
	pending := list[approvalView](t, ne.Env, "/v1/approvals?status=pending&per_page=100")
	if len(pending.Data) != want {
		t.Fatalf("%d pending approvals, want %d (every charge but the paid one)", len(pending.Data), want)
	}
	for i, a := range pending.Data {
		if a.Message.Refusal != nil || a.Message.Body == nil || !strings.Contains(*a.Message.Body, "(45)") {
			t.Fatalf("approval %s would send %+v", a.ID, a.Message)
		}
		verb := "reject"
		if i%2 == 0 {
			verb = "approve"
			approved[a.ChargeID] = true
		}
		code, body := ne.Do(ne.Owner, "POST", "/v1/approvals/"+a.ID+"/"+verb, map[string]any{"note": "test"})
		got := data[approvalView](t, code, body, 200)
		if (verb == "approve") != (got.Status == regua.ApprovalApproved) {
			t.Fatalf("%s: %s", verb, body)
		}
		// Deciding again changes nothing; the other decision conflicts.
		if code, _ := ne.Do(ne.Owner, "POST", "/v1/approvals/"+a.ID+"/"+verb, map[string]any{}); code != 200 {
			t.Errorf("%s again: %d", verb, code)
		}
		other := map[string]string{"approve": "reject", "reject": "approve"}[verb]
		if code, _ := ne.Do(ne.Owner, "POST", "/v1/approvals/"+a.ID+"/"+other, map[string]any{}); code != 409 {
			t.Errorf("%s after %s: %d", other, verb, code)
		}
	}
	ne.settle(t)
}

// A missed window — the process was down at a step's instant — is sent
// once when it comes back if the step is still relevant, and not when a
// later step is due as well (nor a reminder before the due date once it
// has passed); a step found due in the quiet hours waits for the window
// to open.
func TestMissedWindowsAndQuietHours(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ne := startNotify(t, db, ledger.ChannelConfig{}, sp(2026, 3, 2, 10, 0))
		org := ne.Mine.ID
		// Due Monday 16 March 2026.
		plan, steps := ntPlan(t, ne, []ntStep{
			{Offset: -3, At: "09:00", Channel: ledger.ChannelEmail},                   // Fri 13
			{Offset: 1, At: "09:00", Channel: ledger.ChannelSMS},                      // Tue 17
			{Offset: 2, At: "09:00", Channel: ledger.ChannelEmail},                    // Wed 18
			{Offset: 4, At: "19:30", Channel: ledger.ChannelWhatsApp, Calendar: true}, // Fri 20
			{Offset: 7, At: "09:00", Channel: ledger.ChannelSMS},                      // Mon 23
		})
		d := seedDebtor(t, db, debtorSeed{OrgID: org, Name: "Bia", Emails: []string{"bia@example.com"}, Phones: []string{"+5511987654321"}})
		c := seedCharge(t, db, chargeSeed{OrgID: org, DebtorID: d, Amount: 10000, Due: "2026-03-16"})
		ntEnroll(t, ne, c, plan)
		byStep := func() map[string]notify.Notification {
			out := map[string]notify.Notification{}
			for _, n := range ntNotifications(t, db, org) {
				out[*n.StepID] = n
			}
			return out
		}
		// Down from 2 March to Tuesday noon: the D−3 reminder and the D+1
		// SMS are both due; only the later one is sent.
		ne.tick(t, sp(2026, 3, 17, 12, 0), 2)
		got := byStep()
		if len(got) != 2 || got[steps[1]].Status != notify.NotificationSent || got[steps[0]].Status != notify.NotificationFailed ||
			!strings.Contains(deref(got[steps[0]].Error), "skipped: past: missed") {
			t.Fatalf("after coming back on Tuesday: %+v", got)
		}
		// Down again until Thursday noon: Wednesday's e-mail is still
		// relevant (Friday's step is not due yet): sent, once.
		ne.tick(t, sp(2026, 3, 19, 12, 0), 2)
		ne.tick(t, sp(2026, 3, 19, 12, 5), 2)
		if got = byStep(); len(got) != 3 || got[steps[2]].Status != notify.NotificationSent {
			t.Fatalf("after coming back on Thursday: %+v", got)
		}
		// Friday 21:00, in the quiet hours: the 19:30 step waits for 08:00.
		ne.tick(t, sp(2026, 3, 20, 21, 0), 2)
		e, _ := collection.GetEnrollment(context.Background(), db, org, c, plan, "")
		if _, ok := byStep()[steps[3]]; ok || e.NextRunAt == nil || !e.NextRunAt.Equal(sp(2026, 3, 21, 8, 0)) {
			t.Fatalf("in the quiet hours: sent %v, next run %v", ok, e.NextRunAt)
		}
		ne.tick(t, sp(2026, 3, 21, 7, 59), 2)
		if _, ok := byStep()[steps[3]]; ok {
			t.Fatal("sent at 07:59, inside the quiet hours")
		}
		ne.tick(t, sp(2026, 3, 21, 8, 0), 2)
		if n := byStep()[steps[3]]; n.Status != notify.NotificationSent || !n.QueuedAt.Equal(sp(2026, 3, 21, 8, 0)) {
			t.Fatalf("when the window opens: %+v", n)
		}
		ne.tick(t, sp(2026, 3, 23, 12, 0), 2)
		e, _ = collection.GetEnrollment(context.Background(), db, org, c, plan, "")
		if got = byStep(); len(got) != 5 || got[steps[4]].Status != notify.NotificationSent || e.Status != "completed" {
			t.Fatalf("at the end: %d notifications, enrollment %s", len(got), e.Status)
		}
	})
}

// The daily sweep turns pending charges overdue the day after their grace
// ends, in each organization's own time zone and grace days, once, with
// dunning.charge.overdue; paid, archived and still-in-grace charges stay.
func TestDailySweep(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ne := startNotify(t, db, ledger.ChannelConfig{}, sp(2026, 3, 13, 23, 0))
		mine, theirs := ne.Mine.ID, ne.Theirs.ID
		ntSettings(t, db, theirs, nil, 2)
		if _, err := db.Exec(context.Background(), `UPDATE dunning_settings SET timezone = 'Asia/Tokyo' WHERE organization_id = ?`, theirs); err != nil {
			t.Fatal(err)
		}
		dm := seedDebtor(t, db, debtorSeed{OrgID: mine, Name: "M"})
		dt := seedDebtor(t, db, debtorSeed{OrgID: theirs, Name: "T"})
		friday := seedCharge(t, db, chargeSeed{OrgID: mine, DebtorID: dm, Amount: 100, Due: "2026-03-13"})
		saturday := seedCharge(t, db, chargeSeed{OrgID: mine, DebtorID: dm, Amount: 100, Due: "2026-03-14"}) // on time until Monday
		paid := seedCharge(t, db, chargeSeed{OrgID: mine, DebtorID: dm, Amount: 100, Due: "2026-03-01", Status: "paid"})
		archived := seedCharge(t, db, chargeSeed{OrgID: mine, DebtorID: dm, Amount: 100, Due: "2026-03-01"})
		if _, err := db.Exec(context.Background(), `UPDATE dunning_charges SET archived_at = ? WHERE id = ?`, store.Now(), archived); err != nil {
			t.Fatal(err)
		}
		tokyo := seedCharge(t, db, chargeSeed{OrgID: theirs, DebtorID: dt, Amount: 100, Due: "2026-03-10"}) // grace to the 12th, Tokyo
		status := func(id string) string {
			var s string
			if err := db.Get(context.Background(), &s, `SELECT status FROM dunning_charges WHERE id = ?`, id); err != nil {
				t.Fatal(err)
			}
			return s
		}
		sweep := func(at time.Time) int {
			ne.clock.Set(at)
			n, err := ne.n.Sweep(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		// Friday 23:00 in São Paulo is Saturday 11:00 in Tokyo: Tokyo's
		// charge is past its two days of grace; São Paulo's Friday is not
		// over.
		if n := sweep(sp(2026, 3, 13, 23, 0)); n != 1 || status(tokyo) != "overdue" || status(friday) != "pending" {
			t.Fatalf("Friday night: %d turned, tokyo %s, friday %s", n, status(tokyo), status(friday))
		}
		if n := sweep(sp(2026, 3, 14, 0, 30)); n != 1 || status(friday) != "overdue" || status(saturday) != "pending" {
			t.Fatalf("Saturday: %d turned, friday %s, saturday %s", n, status(friday), status(saturday))
		}
		if n := sweep(sp(2026, 3, 16, 12, 0)); n != 0 || status(saturday) != "pending" {
			t.Fatalf("Monday (the next business day is still on time): %d turned, saturday %s", n, status(saturday))
		}
		if n := sweep(sp(2026, 3, 17, 0, 1)); n != 1 || status(saturday) != "overdue" || status(paid) != "paid" || status(archived) != "pending" {
			t.Fatalf("Tuesday: %d turned, saturday %s, paid %s, archived %s", n, status(saturday), status(paid), status(archived))
		}
		if n := sweep(sp(2026, 3, 18, 0, 1)); n != 0 {
			t.Fatalf("a second sweep turned %d", n)
		}
		var overdueAt time.Time
		if err := db.Get(context.Background(), &overdueAt, `SELECT overdue_at FROM dunning_charges WHERE id = ?`, saturday); err != nil || !overdueAt.Equal(sp(2026, 3, 17, 0, 1)) {
			t.Errorf("overdue_at %v %v", overdueAt, err)
		}
		count := func(org string) int {
			n := 0
			for _, s := range ntEvents(t, db, org) {
				if s == ledger.EventChargeOverdue {
					n++
				}
			}
			return n
		}
		if count(mine) != 2 || count(theirs) != 1 {
			t.Errorf("overdue events: mine %d, theirs %d", count(mine), count(theirs))
		}
	})
}

// The sweep reads dunning_charges_sweep to find the organizations to
// sweep and dunning_charges_list for each one's batches (in index order:
// no sort); the step runner reads dunning_enrollments_due after its
// cursor, in order. These are
// SQLite's plans; PostgreSQL's planner chooses by table size (the
// benchmarks log its plans).
func TestSchedulerIndexes(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t, store.SQLite, Migrations)
	for _, c := range []struct{ query, index string }{
		{sweepOrganizationsQuery, "dunning_charges_sweep"},
		{sweepBatchQuery, "dunning_charges_list"},
		{`SELECT id, next_run_at, plan_id FROM dunning_enrollments
			WHERE status = 'active' AND next_run_at <= '2026-03-01'
			AND (next_run_at, id) > ('2026-02-01', 'a') AND substr(id, 36, 1) IN ('0', '8')
			ORDER BY next_run_at, id LIMIT 200`, "dunning_enrollments_due"},
	} {
		plan := storetest.Explain(t, db, c.query)
		if !strings.Contains(plan, c.index) || strings.Contains(plan, "ORDER BY") {
			t.Errorf("the plan of\n%s\ndoes not read %s in order:\n%s", c.query, c.index, plan)
		}
	}
}

// The sweep's two queries with literal values, for their plans.
const (
	sweepOrganizationsQuery = `SELECT DISTINCT organization_id FROM dunning_charges WHERE status = 'pending' AND due_date < '2026-03-03'`
	sweepBatchQuery         = `SELECT id, organization_id, due_date FROM dunning_charges
		WHERE organization_id = 'o' AND status = 'pending' AND due_date <= '2026-03-01' AND (due_date, id) > ('2026-01-01', 'a') AND archived_at IS NULL
		ORDER BY due_date, id LIMIT 500`
)

// A step that requires approval parks for a person and the plan goes on;
// the approvals list shows what would be sent; an opt-out meanwhile makes
// approving refused; a payment expires what is still pending; another
// organization sees none of it.
func TestStepApprovals(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ne := startNotify(t, db, ledger.ChannelConfig{}, sp(2026, 3, 2, 10, 0))
		org := ne.Mine.ID
		plan, steps := ntPlan(t, ne, []ntStep{
			{Offset: 1, At: "09:00", Channel: ledger.ChannelEmail, Approval: true},
			{Offset: 2, At: "09:00", Channel: ledger.ChannelSMS},
		})
		var charges []string
		for i := 0; i < 3; i++ {
			d := seedDebtor(t, db, debtorSeed{OrgID: org, Name: fmt.Sprintf("D%d", i), Emails: []string{fmt.Sprintf("d%d@example.com", i)}, Phones: []string{"+5511987654321"}})
			c := seedCharge(t, db, chargeSeed{OrgID: org, DebtorID: d, Amount: 100, Due: "2026-03-16"})
			ntEnroll(t, ne, c, plan)
			charges = append(charges, c)
		}
		ne.tick(t, sp(2026, 3, 17, 12, 0), 1)
		type approvalView struct {
			ID, Status     string
			StepID         string  `json:"step_id"`
			ChargeID       string  `json:"charge_id"`
			NotificationID *string `json:"notification_id"`
			Message        struct {
				To, Body, Refusal *string
			}
		}
		pending := list[approvalView](t, ne.Env, "/v1/approvals?status=pending")
		if pending.Meta.Total != 3 || pending.Data[0].StepID != steps[0] || pending.Data[0].Message.Body == nil {
			t.Fatalf("pending %+v", pending)
		}
		if n := len(ntNotifications(t, db, org)); n != 0 {
			t.Fatalf("%d notifications before any approval", n)
		}
		if other := list[approvalView](t, ne.Env, "/v1/approvals"); other.Meta.Total != 3 {
			t.Fatal("own list")
		}
		if code, body := ne.Do(ne.Other, "POST", "/v1/approvals/"+pending.Data[0].ID+"/approve", map[string]any{}); code != 404 {
			t.Errorf("another organization approves: %d %s", code, body)
		}
		if code, body := ne.Do(ne.Other, "GET", "/v1/approvals", nil); code != 200 || !strings.Contains(body, `"total":0`) {
			t.Errorf("another organization lists: %d %s", code, body)
		}
		byCharge := map[string]approvalView{}
		for _, a := range pending.Data {
			byCharge[a.ChargeID] = a
		}
		// Charge 0: approved, sent. Charge 1: its debtor opts out first.
		// Charge 2: paid before anyone decides.
		code, body := ne.Do(ne.Owner, "POST", "/v1/approvals/"+byCharge[charges[0]].ID+"/approve", map[string]any{})
		a0 := data[approvalView](t, code, body, 200)
		if a0.Status != regua.ApprovalApproved || a0.NotificationID == nil {
			t.Fatalf("approved %+v", a0)
		}
		waitNotification(t, db, *a0.NotificationID, notify.NotificationSent)
		c1, _ := ledger.GetCharge(context.Background(), db, org, charges[1])
		if err := notify.RecordOptOut(context.Background(), db, org, c1.DebtorID, ledger.ChannelEmail, "asked by phone", ne.Owner.ID, ne.clock.Now()); err != nil {
			t.Fatal(err)
		}
		if code, body := ne.Do(ne.Owner, "POST", "/v1/approvals/"+byCharge[charges[1]].ID+"/approve", map[string]any{}); code != 422 || !strings.Contains(body, "opted out") {
			t.Errorf("approve after an opt-out: %d %s", code, body)
		}
		ne.closeCharge(t, charges[2])
		if code, body := ne.Do(ne.Owner, "POST", "/v1/approvals/"+byCharge[charges[2]].ID+"/approve", map[string]any{}); code != 409 || !strings.Contains(body, "expired") {
			t.Errorf("approve after the payment: %d %s", code, body)
		}
		// The plan went on without waiting: the D+2 SMS.
		ne.tick(t, sp(2026, 3, 18, 12, 0), 1)
		sms := 0
		for _, n := range ntNotifications(t, db, org) {
			if *n.StepID == steps[1] && n.Status == notify.NotificationSent {
				sms++
			}
		}
		if sms != 2 {
			t.Errorf("%d D+2 messages, want 2 (the paid charge's stopped)", sms)
		}
	})
}

// The served product schedules the step runner and the sweep; the sweep's
// hourly schedule depends on the clock only.
func TestSchedules(t *testing.T) {
	t.Parallel()
	if n := notify.NewNotifier(&notify.Service{}, &ledger.ChannelSenders{}, "", nil); !n.Periodic {
		t.Error("the scheduler's periodic jobs are off by default")
	}
	h := ledger.Hourly{Min: 1}
	for at, want := range map[time.Time]time.Time{
		time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC):  time.Date(2026, 3, 2, 10, 1, 0, 0, time.UTC),
		time.Date(2026, 3, 2, 10, 1, 0, 0, time.UTC):  time.Date(2026, 3, 2, 11, 1, 0, 0, time.UTC),
		time.Date(2026, 3, 2, 23, 30, 0, 0, time.UTC): time.Date(2026, 3, 3, 0, 1, 0, 0, time.UTC),
	} {
		if got := h.Next(at); !got.Equal(want) {
			t.Errorf("Next(%s) = %s, want %s", at, got, want)
		}
	}
}

// Payments racing the step runners: every payment succeeds (the runner
// takes the charge's lock in the order a payment does, so neither waits
// for the other in a circle), and no message about a paid charge starts
// sending after its payment committed — a message queued just before is
// skipped by the payment's own transaction or by the send's check.
func TestPaymentsRacingTheRunner(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ne := startNotify(t, db, ledger.ChannelConfig{}, sp(2026, 3, 2, 10, 0))
		ne.secondQueue(t)
		org := ne.Mine.ID
		plan, _ := ntPlan(t, ne, []ntStep{{Offset: 0, At: "09:00", Channel: ledger.ChannelEmail}, {Offset: 0, At: "09:00", Channel: ledger.ChannelSMS}})
		const n = 30
		var charges []string
		for i := 0; i < n; i++ {
			d := seedDebtor(t, db, debtorSeed{OrgID: org, Name: fmt.Sprintf("D%d", i), Emails: []string{fmt.Sprintf("d%d@example.com", i)}, Phones: []string{"+5511987654321"}})
			c := seedCharge(t, db, chargeSeed{OrgID: org, DebtorID: d, Amount: 1000, Due: "2026-03-16"})
			ntEnroll(t, ne, c, plan)
			charges = append(charges, c)
		}
		ne.clock.Set(sp(2026, 3, 16, 12, 0))
		ctx := context.Background()
		for i := 0; i < 4; i++ {
			if _, err := ne.Jobs.Enqueue(ctx, regua.RunnerArgs{}, nil); err != nil {
				t.Fatal(err)
			}
		}
		// When each payment had committed, on the real clock the queue
		// runs on.
		paid := map[string]time.Time{}
		for i, c := range charges {
			if i%2 == 0 {
				ne.closeCharge(t, c)
				paid[c] = time.Now()
			}
		}
		eventually(t, "every step decided", func() bool { return ne.dueCount(t, ne.clock.Now()) == 0 })
		ne.settle(t)
		// When each send job last started, on the same clock.
		var runs []struct {
			Args        string    `db:"args"`
			AttemptedAt time.Time `db:"attempted_at"`
		}
		args := "CAST(args AS TEXT)"
		if db.Dialect() == store.SQLite {
			args = "json(args)" // River keeps SQLite's args as JSONB
		}
		if err := db.Select(ctx, &runs, `SELECT `+args+` AS args, attempted_at FROM river_job WHERE kind = ?`, notify.SendArgs{}.Kind()); err != nil {
			t.Fatal(err)
		}
		started := map[string]time.Time{}
		for _, r := range runs {
			var a notify.SendArgs
			if err := json.Unmarshal([]byte(r.Args), &a); err != nil {
				t.Fatal(err)
			}
			started[a.NotificationID] = r.AttemptedAt
		}
		sentPaid, skippedPaid := 0, 0
		for _, x := range ntNotifications(t, db, org) {
			at, ok := paid[*x.ChargeID]
			switch {
			case !ok:
			case x.Status == notify.NotificationSent:
				sentPaid++
				if started[x.ID].After(at) {
					t.Errorf("charge %s was paid at %s and its %s message's send started at %s", *x.ChargeID, at, x.Channel, started[x.ID])
				}
			case strings.HasPrefix(deref(x.Error), "skipped: "):
				skippedPaid++
			}
		}
		t.Logf("messages about the paid charges: %d sent before their payment, %d skipped", sentPaid, skippedPaid)
	})
}
