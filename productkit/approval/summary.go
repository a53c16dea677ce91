package approval

import (
	"context"
	"time"
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

// Describe summarises a as its page shows it.
func (p *Policy) Describe(ctx context.Context, a *Approval) Summary {
	s := Summary{
		ID: a.ID, Product: p.opts.ProductName, Client: a.ClientID, DeclaredClient: declaredClient(a),
		ToolName: a.Tool, ToolTitle: a.Tool, Arguments: prettyJSON(a.Arguments),
		Email: a.Email, Message: a.Message, Status: a.Status, ExpiresAt: a.ExpiresAt,
	}
	if p.opts.SignIn != nil {
		s.Client = p.opts.SignIn.ClientName(ctx, a.ClientID)
	}
	if o, ok := p.opts.Owners[a.Owner]; ok && a.Owner != "" {
		if o.Requester != nil {
			s.Client = o.Requester(a)
		}
		if o.ToolTitle != nil {
			if title := o.ToolTitle(a.Tool); title != "" {
				s.ToolTitle = title
			}
		}
	} else if t := p.tools[a.Tool]; t != nil {
		switch {
		case t.Title != "":
			s.ToolTitle = t.Title
		case t.Annotations != nil && t.Annotations.Title != "":
			s.ToolTitle = t.Annotations.Title
		}
	}
	if sp, ok := statusPages[a.Status]; ok {
		s.StatusLabel, s.StatusText = sp.label, sp.text
	}
	if a.Status == StatusSucceeded || a.Status == StatusFailed {
		s.Result = prettyJSON(a.ResultText())
	}
	return s
}
