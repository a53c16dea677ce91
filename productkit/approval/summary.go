package approval

import (
	"context"
	"time"

	"github.com/kobana/kobana-mcp/platform/pagetext"
)

// Summary is what the approval page shows of an approval, for any other
// place that shows the person the same thing before they decide (`kobana-mcp
// approvals show`): who asks, the exact call, and where it stands.
type Summary struct {
	ID, Product string
	// Client is who asks: the OAuth client's registered name (its id when
	// the policy has no sign-in to look it up), or the owner's words for
	// an approval a product asked for itself.
	Client string
	// DeclaredClient is the name and version the client declared itself
	// ("" when none): self-declared, so shown beside Client only.
	DeclaredClient string
	// ToolName and ToolTitle are the tool; Arguments its exact arguments,
	// indented JSON.
	ToolName, ToolTitle, Arguments string
	// Email is the person the approval was asked of; Message what the call
	// will do, naming its target.
	Email, Message string
	Status         Status
	// StatusLabel and StatusText are the page's words for a decided
	// approval ("" while pending).
	StatusLabel, StatusText string
	ExpiresAt               time.Time
	// Result is the tool's answer once it ran (text blocks, indented when
	// JSON).
	Result string
}

// Describe summarises a as its page shows it, in l's language (the
// catalogue's, platform/pagetext).
func (p *Policy) Describe(ctx context.Context, l *pagetext.Printer, a *Approval) Summary {
	title, _ := p.toolTitle(l, a)
	s := Summary{
		ID: a.ID, Product: p.opts.ProductName, Client: a.ClientID, DeclaredClient: declaredClient(a),
		ToolName: a.Tool, ToolTitle: title, Arguments: prettyJSON(a.Arguments),
		Email: a.Email, Message: a.Message, Status: a.Status, ExpiresAt: a.ExpiresAt,
	}
	if o, ok := p.opts.Owners[a.Owner]; p.opts.SignIn != nil || (ok && a.Owner != "" && o.Requester != nil) {
		s.Client = p.requester(ctx, l, a)
	}
	if sp, ok := statusPages[a.Status]; ok {
		s.StatusLabel, s.StatusText = l.Say(sp.label), l.Say(sp.text)
	}
	if a.Status == StatusSucceeded || a.Status == StatusFailed {
		s.Result = prettyJSON(a.ResultText())
	}
	return s
}
