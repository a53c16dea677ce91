package inbox

import (
	"context"
	"time"

	"github.com/kobana/kobana-mcp/inbox/agent"
	"github.com/kobana/kobana-mcp/inbox/extract"
	"github.com/kobana/kobana-mcp/inbox/mailparse"
	"github.com/kobana/kobana-mcp/platform/store"
)

// intakeExtractMax bounds the messages the built-in extractor reads at
// their intake: a larger one (an attachment of megabytes) is processed by
// the queue's job, where a burst of them takes at most the organization's
// share of the workers (platform/jobs). At this size the extraction of its
// text costs at most about twenty milliseconds (docs/performance.md: 1 MB
// of text took 65–87 ms, a typical billing e-mail about 0.1–0.15 ms); its
// PDFs are bounded by their pages (intakePDFPagesMax).
const intakeExtractMax = 256 << 10

// intakePDFPagesMax bounds the PDF pages the extractor reads at intake: a
// page of text takes it about 3 ms, and PDFs compress, so a message's size
// does not bound their cost (a 30-page PDF of a few tens of kilobytes took
// about 100 ms). A billing e-mail's boleto or invoice is one or two pages;
// a message with more goes to the queue's job.
const intakePDFPagesMax = 3

// intakeRun is the built-in extractor's run on a message, done at its
// intake before the intake's transaction (docs/decisions.md, "The built-in
// extractor runs at intake").
type intakeRun struct {
	model     string
	res       agent.Response
	startedAt time.Time
	took      time.Duration
}

// extractAtIntake runs the built-in extractor on a message (msg as
// parsed, of size bytes, from its sender, received at receivedAt) when
// its job would run nothing else: the deployment's provider is the
// extractor (providerFor picks it for every inbox then), the message was
// read, is at most intakeExtractMax and holds at most intakePDFPagesMax
// PDF pages. Every process that receives mail does it, an API replica
// (serve --jobs=off) as well as a serve that works its queue, so an
// e-mail's intake answers the same whatever the deployment's shape. Nil
// leaves the e-mail to the queue's job, as does a failed run: the job
// records failures and retries as it always did. Without a queue (some
// tests) nothing is processed, at intake or after.
func (s *service) extractAtIntake(ctx context.Context, msg *mailparse.Message, size int, from string, receivedAt time.Time) *intakeRun {
	if s.jobs == nil || s.cfg.Provider == "openai" || msg == nil || size > intakeExtractMax {
		return nil
	}
	req := agent.Request{Model: agent.ExtractorModel, Input: extractInput(msg, from, receivedAt)}
	if extract.PDFPages(req.Input) > intakePDFPagesMax {
		return nil
	}
	run := &intakeRun{model: req.Model, startedAt: store.Now()}
	started := time.Now()
	res, err := agent.Extractor().Run(ctx, req)
	if err != nil {
		return nil
	}
	run.res, run.took = res, time.Since(started)
	return run
}
