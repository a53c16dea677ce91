package approval

import (
	"context"
	"errors"
	"net/url"
	"strings"

	"github.com/kobana/kobana-mcp/oauth/server"
	"github.com/kobana/kobana-mcp/platform/pagetext"
	"github.com/kobana/kobana-mcp/platform/store"
)

var _ server.SignInReason = (*Policy)(nil)

// SignInReason implements server.SignInReason for the approval pages: the
// sign-in page on the way to /approvals/{id} says what the person signs in
// to approve — "Entre para aprovar «tool» pedido por «client»" while it is
// pending, "Entre para ver o que aconteceu com «tool»" after — read from
// the approval by its id, never from the request. An id that does not
// exist, or another product's approval, says nothing particular (the
// sign-in page's general sentence). The link is the person's, and only
// the tool's title and who asked are said: the arguments, the target and
// the person wait for the page itself, after sign-in and only for them
// (docs/security.md "Destructive tools").
func (p *Policy) SignInReason(ctx context.Context, l *pagetext.Printer, next *url.URL) string {
	id, ok := strings.CutPrefix(next.Path, PathPrefix)
	if !ok || id == "" || strings.Contains(id, "/") {
		return ""
	}
	a, err := p.store.Get(ctx, id)
	if err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			p.log.ErrorContext(ctx, "approval: reading an approval for the sign-in page", "error", err)
		}
		return ""
	}
	if !p.owns(a) {
		return ""
	}
	title, _ := p.toolTitle(l, a)
	if a.Status == StatusPending && p.store.clock().Before(a.ExpiresAt) {
		return l.Say(pagetext.KeySignInLeadApprove, title, p.requester(ctx, l, a))
	}
	return l.Say(pagetext.KeySignInLeadApproval, title)
}
