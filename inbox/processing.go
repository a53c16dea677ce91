package inbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/kobana/kobana-mcp/inbox/agent"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/webhooks"
)

// processArgs is the job that runs the processing agent on one approved
// e-mail (after intake, or on reprocess). It carries ids only: the job
// reads the e-mail as it is when it runs.
type processArgs struct {
	OrganizationID string `json:"organization_id"`
	EmailID        string `json:"email_id"`
	Reprocess      bool   `json:"reprocess"`
}

// Kind names the job in the queue.
func (processArgs) Kind() string { return "inbox.process_email" }

// processAttempts bounds how often a provider failure that may pass (a
// 429 or 5xx from the model's API, a timeout) is tried before the e-mail
// is marked failed.
const processAttempts = 3

// InsertOpts gives the job its attempts.
func (processArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: processAttempts}
}

// registerProcessing registers the processing worker on the process's
// queue.
func registerProcessing(s *service, q *jobs.Queue) {
	jobs.AddWorker(q, &processWorker{s: s})
}

// enqueueProcessing schedules the agent for an e-mail, in tx: the job
// exists exactly when the e-mail's new status is committed.
func (s *service) enqueueProcessing(ctx context.Context, tx *store.Tx, orgID, emailID string, reprocess bool) error {
	if s.jobs == nil {
		return nil
	}
	_, err := s.jobs.EnqueueTx(ctx, tx, processArgs{OrganizationID: orgID, EmailID: emailID, Reprocess: reprocess}, nil)
	return err
}

// processWorker runs the agent. River runs a job at least once, so the
// worker is idempotent: an e-mail that is no longer approved or
// processing (a duplicate run after success, a deleted e-mail) is left
// alone.
type processWorker struct {
	river.WorkerDefaults[processArgs]
	s *service
}

// Timeout bounds one run: the provider's own timeout (two minutes for the
// openai provider; the built-in extractor needs milliseconds, so 30 s)
// plus the bookkeeping. It stays below the job queue's rescue time (five
// minutes by default), so a run still working is never taken for one
// whose process died, and the extractor's short bound lets a deployment
// rescue a dead process's e-mails within about a minute.
func (w *processWorker) Timeout(*river.Job[processArgs]) time.Duration {
	if w.s.cfg.Provider == "openai" {
		return 3 * time.Minute
	}
	return 30 * time.Second
}

// NextRetry retries a passing provider failure soon: the person is waiting
// for the e-mail's result.
func (w *processWorker) NextRetry(job *river.Job[processArgs]) time.Time {
	return time.Now().Add(time.Duration(job.Attempt*job.Attempt) * 5 * time.Second)
}

// Work processes the e-mail.
func (w *processWorker) Work(ctx context.Context, job *river.Job[processArgs]) error {
	final := job.Attempt >= job.MaxAttempts
	return w.s.process(ctx, job.Args.OrganizationID, job.Args.EmailID, final)
}

// errTransient marks a failure worth another attempt.
type errTransient struct{ err error }

func (e errTransient) Error() string { return e.err.Error() }
func (e errTransient) Unwrap() error { return e.err }

// process runs the agent on one e-mail and records the outcome: an agent
// run (status, duration, tokens, cost, error), the e-mail's status and
// result, the workspace's usage, and the events email.processed or
// email.failed (+ agent_run.failed) — all of the outcome in one
// transaction. final says no attempt follows this one.
func (s *service) process(ctx context.Context, orgID, emailID string, final bool) error {
	in, err := readProcessInput(ctx, s.db, orgID, emailID)
	if errors.Is(err, store.ErrNotFound) {
		return nil // deleted meanwhile: nothing to do
	}
	if err != nil {
		return err
	}
	e, raw := in.email, in.raw
	if e.Status != "approved" && e.Status != "processing" {
		return nil // a duplicate run after the outcome was recorded
	}
	// The inbox (none when it is gone), the workspace's settings and the
	// tenant of the events came with the e-mail (intake_context.go); the
	// settings the long way when that read could not tell them.
	ib, settings := in.mc.inbox, in.mc.settings
	var tenant *tenantSnapshot
	if in.inboxFound {
		tenant = &in.mc.tenant
	}
	if !in.mc.settingsOK {
		if settings, err = readWorkspaceSettings(ctx, s.db, orgID, e.WorkspaceID); err != nil {
			return err
		}
	}
	// The monthly cost limit is checked before spending anything.
	if costLimitReached(settings) {
		return s.recordFailure(ctx, s.db, e, ib, nil, "monthly_cost_limit: the workspace reached its monthly cost limit; raise it or wait for next month, then reprocess")
	}
	provider, req := s.providerFor(ctx, e, ib)
	msg, perr := parseMessage(raw)
	if perr != nil {
		return s.recordFailure(ctx, s.db, e, ib, nil, "unparseable: "+perr.Error())
	}
	req.Input = extractInput(msg, e.FromAddress, e.ReceivedAt)
	record := newAgentRunRecord(e, ib, provider.Name(), req.Model)
	if provider.Name() == agent.ExtractorName {
		return s.processLocally(ctx, provider, req, record, e, ib, tenant, final)
	}
	if err := setEmailStatus(ctx, s.db, orgID, e.ID, "processing", nil, nil, nil); err != nil {
		return err
	}
	run, err := startAgentRun(ctx, s.db, record)
	if err != nil {
		return err
	}
	started := time.Now()
	res, runErr := provider.Run(ctx, req)
	duration := time.Since(started)
	if runErr != nil {
		msgText := runErr.Error()
		if err := s.finishRun(ctx, s.db, run, "failed", &msgText, agent.Usage{}, nil, duration); err != nil {
			return err
		}
		if agent.IsRetryable(runErr) && !final {
			// The e-mail stays processing; River tries again.
			return errTransient{runErr}
		}
		return s.recordFailure(ctx, s.db, e, ib, &run, "agent_error: "+msgText)
	}
	return s.recordSuccess(ctx, s.db, e, ib, run, res, duration)
}

// processLocally runs a provider that works in this process (the built-in
// extractor: milliseconds, no network), then records the whole of the
// outcome — the run, started and finished, the e-mail's status and
// result, the usage and the events — in one transaction, instead of the
// three a remote provider needs (processing, the running run, the outcome;
// docs/decisions.md, "Performance of the signed-in path"). A crash before
// the commit leaves the e-mail approved with nothing recorded, and the job
// runs it again; the transaction first claims the e-mail (a conditional
// update of its status), so a duplicate run that lost the race records
// nothing.
func (s *service) processLocally(ctx context.Context, provider agent.Provider, req agent.Request, record agentRunRecord, e emailRecord, ib inboxRecord, tenant *tenantSnapshot, final bool) error {
	record.StartedAt = store.Now()
	started := time.Now()
	res, runErr := provider.Run(ctx, req)
	duration := time.Since(started)
	if runErr == nil {
		return s.recordLocalSuccess(ctx, e, ib, tenant, record, res, duration)
	}
	retry := false
	err := s.db.WithTx(ctx, func(tx *store.Tx) error {
		// The claim: the e-mail becomes processing only if it still waits
		// for it (claimEmail).
		err := claimEmail(ctx, tx, e.OrganizationID, e.ID)
		if errors.Is(err, store.ErrNotFound) {
			return nil // deleted, or another run recorded the outcome
		}
		if err != nil {
			return err
		}
		run, err := startAgentRun(ctx, tx, record)
		if err != nil {
			return err
		}
		msgText := runErr.Error()
		if err := s.finishRun(ctx, tx, run, "failed", &msgText, agent.Usage{}, nil, duration); err != nil {
			return err
		}
		if agent.IsRetryable(runErr) && !final {
			// The e-mail stays processing; River tries again.
			retry = true
			return nil // the claim left it processing
		}
		return s.recordFailure(ctx, tx, e, ib, &run, "agent_error: "+msgText)
	})
	if err == nil && retry {
		return errTransient{runErr}
	}
	return err
}

// recordLocalSuccess records a local run's success in one transaction of
// four statements besides BEGIN and COMMIT (docs/decisions.md, "Inbox
// intake on PostgreSQL"): the e-mail claimed and processed at once (an
// update conditional on its still waiting, returning the row the events
// carry), the run inserted finished (returning it as stored), the cost
// when there is one, and the two events (one insert, one look-up of the
// webhooks). An e-mail deleted meanwhile, or whose outcome another run
// recorded, records nothing.
func (s *service) recordLocalSuccess(ctx context.Context, e emailRecord, ib inboxRecord, tenant *tenantSnapshot, record agentRunRecord, res agent.Response, d time.Duration) error {
	return s.db.WithTx(ctx, func(tx *store.Tx) error {
		_, _, err := s.writeLocalSuccess(ctx, tx, e, ib, tenant, record, res, d)
		return err
	})
}

// writeLocalSuccess is recordLocalSuccess's statements in tx: the e-mail
// as it is once processed, false when it no longer waited (deleted, or
// another run recorded the outcome) and nothing was written.
func (s *service) writeLocalSuccess(ctx context.Context, tx *store.Tx, e emailRecord, ib inboxRecord, tenant *tenantSnapshot, record agentRunRecord, res agent.Response, d time.Duration) (emailRecord, bool, error) {
	output := res.Output
	if len(output) == 0 {
		output = json.RawMessage(`{}`)
	}
	record.ID = store.NewID()
	metadata, err := json.Marshal(map[string]any{"agent_run_id": record.ID, "provider": res.Provider, "model": res.Model, "result": output})
	if err != nil {
		return emailRecord{}, false, err
	}
	u := res.Usage
	usage := agentRunUsage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite, CostPerToken: u.CostPerToken, TotalCost: u.TotalCost}
	done, err := claimProcessed(ctx, tx, e.OrganizationID, e.ID, store.Now(), string(metadata))
	if errors.Is(err, store.ErrNotFound) {
		return emailRecord{}, false, nil
	}
	if err != nil {
		return emailRecord{}, false, err
	}
	run, err := insertFinishedRun(ctx, tx, record, usage, output, record.StartedAt.Add(d))
	if err != nil {
		return emailRecord{}, false, err
	}
	if u.TotalCost > 0 {
		if err := addUsage(ctx, tx, e.OrganizationID, e.WorkspaceID, 0, u.TotalCost); err != nil {
			return emailRecord{}, false, err
		}
	}
	if err := s.emitProcessingEvent(ctx, tx, ib, tenant, done, &run, "agent_run.succeeded", "email.processed"); err != nil {
		return emailRecord{}, false, err
	}
	return done, true, nil
}

// txRunner is where an outcome is recorded: the database (a transaction
// of its own) or a transaction in progress (joined).
type txRunner interface {
	WithTx(ctx context.Context, fn func(tx *store.Tx) error) error
}

// providerFor picks the provider and request: the inbox's agent (model,
// system message) on the configured provider. An agent whose model is the
// built-in extractor's runs offline whatever the configuration.
func (s *service) providerFor(ctx context.Context, e emailRecord, ib inboxRecord) (agent.Provider, agent.Request) {
	var req agent.Request
	if id := agentIDOf(e, ib); id != nil {
		if a, err := getAgent(ctx, s.db, e.OrganizationID, e.WorkspaceID, *id); err == nil {
			req.Model, req.SystemMessage = a.LLMModel, a.SystemMessage
		}
	}
	if s.cfg.Provider != "openai" || strings.HasPrefix(req.Model, "kobana-extractor") {
		req.Model = agent.ExtractorModel
		return agent.Extractor(), req
	}
	if req.Model == "" {
		req.Model = s.cfg.OpenAIModel
	}
	return s.openAI(), req
}

// openAI is the configured OpenAI-compatible provider.
func (s *service) openAI() agent.Provider {
	return agent.OpenAI(agent.OpenAIConfig{URL: s.cfg.OpenAIURL, Model: s.cfg.OpenAIModel, APIKey: s.cfg.OpenAIKey})
}

func (s *service) finishRun(ctx context.Context, q store.Querier, run agentRunRecord, status string, errMsg *string, u agent.Usage, output json.RawMessage, d time.Duration) error {
	usage := agentRunUsage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite, CostPerToken: u.CostPerToken, TotalCost: u.TotalCost}
	return finishAgentRun(ctx, q, run.OrganizationID, run.ID, status, errMsg, usage, output, run.StartedAt.Add(d))
}

// recordSuccess stores the outcome of a successful run in one
// transaction: the run, the e-mail (processed, with the result), the
// workspace's cost, and email.processed.
func (s *service) recordSuccess(ctx context.Context, db txRunner, e emailRecord, ib inboxRecord, run agentRunRecord, res agent.Response, d time.Duration) error {
	output := res.Output
	if len(output) == 0 {
		output = json.RawMessage(`{}`)
	}
	metadata, err := json.Marshal(map[string]any{"agent_run_id": run.ID, "provider": res.Provider, "model": res.Model, "result": output})
	if err != nil {
		return err
	}
	now := store.Now()
	return db.WithTx(ctx, func(tx *store.Tx) error {
		u := res.Usage
		usage := agentRunUsage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite, CostPerToken: u.CostPerToken, TotalCost: u.TotalCost}
		if err := finishAgentRun(ctx, tx, run.OrganizationID, run.ID, "success", nil, usage, output, run.StartedAt.Add(d)); err != nil {
			return err
		}
		if err := setEmailStatus(ctx, tx, e.OrganizationID, e.ID, "processed", &now, metadata, nil); err != nil {
			return err
		}
		if u.TotalCost > 0 {
			if err := addUsage(ctx, tx, e.OrganizationID, e.WorkspaceID, 0, u.TotalCost); err != nil {
				return err
			}
		}
		e, err := getEmail(ctx, tx, e.OrganizationID, e.ID)
		if err != nil {
			return err
		}
		run, err := getAgentRun(ctx, tx, run.OrganizationID, run.WorkspaceID, run.ID)
		if err != nil {
			return err
		}
		return s.emitProcessingEvent(ctx, tx, ib, nil, e, &run, "agent_run.succeeded", "email.processed")
	})
}

// recordFailure marks the e-mail failed with a reason and emits
// email.failed (and agent_run.failed when a run failed).
func (s *service) recordFailure(ctx context.Context, db txRunner, e emailRecord, ib inboxRecord, run *agentRunRecord, reason string) error {
	now := store.Now()
	return db.WithTx(ctx, func(tx *store.Tx) error {
		if err := setEmailStatus(ctx, tx, e.OrganizationID, e.ID, "failed", &now, nil, &reason); err != nil {
			return err
		}
		e, err := getEmail(ctx, tx, e.OrganizationID, e.ID)
		if err != nil {
			return err
		}
		if run != nil {
			r, err := getAgentRun(ctx, tx, run.OrganizationID, run.WorkspaceID, run.ID)
			if err != nil {
				return err
			}
			return s.emitProcessingEvent(ctx, tx, ib, nil, e, &r, "agent_run.failed", "email.failed")
		}
		return s.emitProcessingEvent(ctx, tx, ib, nil, e, nil, "email.failed")
	})
}

// emitProcessingEvent emits a processing outcome's events (agent_run.*
// then email.*), each carrying the inbox, the e-mail and the run as the
// API shows them: the same data, read and encoded once for all of them.
//
// tenant is the tenant snapshot read with the inbox before the
// transaction (intake_context.go); nil reads it here.
func (s *service) emitProcessingEvent(ctx context.Context, tx *store.Tx, ib inboxRecord, tenant *tenantSnapshot, e emailRecord, run *agentRunRecord, slugs ...string) error {
	if s.hooks == nil {
		return nil
	}
	data := map[string]any{"email": emailJSON(e)}
	if ib.ID != "" {
		data["inbox"] = toInboxJSON(ib)
	}
	if run != nil {
		data["agent_run"] = toAgentRunJSON(*run)
	}
	if tenant == nil {
		t := readTenant(ctx, s.accounts.InTx(tx), e.OrganizationID, e.WorkspaceID)
		tenant = &t
	}
	data = tenant.add(e.OrganizationID, e.WorkspaceID, data)
	encoded, err := webhooks.MarshalData(data)
	if err != nil {
		return fmt.Errorf("inbox: emit %s: %w", slugs[0], err)
	}
	evs := make([]webhooks.Event, len(slugs))
	for i, slug := range slugs {
		evs[i] = webhooksEvent(e, slug, encoded)
	}
	if _, err := s.hooks.EmitAll(ctx, tx, evs...); err != nil {
		return fmt.Errorf("inbox: emit %s: %w", slugs[0], err)
	}
	return nil
}

// webhooksEvent is an e-mail's event, scoped to its inbox.
func webhooksEvent(e emailRecord, slug string, data any) webhooks.Event {
	return webhooks.Event{OrganizationID: e.OrganizationID, WorkspaceID: e.WorkspaceID, Slug: slug, ScopeID: e.InboxID, SubjectID: e.ID, Data: data}
}
