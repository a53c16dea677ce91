package portal

import (
	"net/http"

	"github.com/kobana/kobana-mcp/dunning/escalation"
	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/platform/ratelimit"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/rest"
)

// Register declares the debtor page: its links signed with a key derived
// from the deployment secret at the public URL base (ledger.Service.Portal,
// which {{debtor.portal_url}} reads), the link's operations, and its
// routes on the product's listener.
func Register(b *productkit.Builder, api *rest.API, esc *escalation.Service, base string) *Service {
	if base == "" {
		base = b.Deps.PublicURL
	}
	esc.Portal = ledger.NewPortalLinks(base, b.Deps.Secret)
	s := &Service{Service: esc, limits: ratelimit.NewMemoryStore(), PerAddress: DefaultPerAddress, PerLink: DefaultPerLink}
	registerAPI(api, s)
	if b.Deps.DB != nil {
		b.Routes(func(mux *http.ServeMux) { s.Mount(mux) })
	}
	return s
}
