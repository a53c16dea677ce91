package portal

import (
	"context"
	"fmt"
	"time"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/notify"
	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

// The debtor page's link in the API: read it (what {{debtor.portal_url}}
// would carry now) and rotate or revoke it. Rotating and revoking cut off
// the debtor's access through every link sent so far, hence destructive.

var (
	portalRead   = mcp.Requirement{Scopes: []string{"dunning.debtors"}, Permission: identity.PermRead}
	portalManage = mcp.Requirement{Scopes: []string{"dunning.debtors"}, Permission: identity.PermManage}
)

type portalLinkIn struct {
	ID string `json:"id" in:"path" maxLength:"255" jsonschema:"The debtor's id or external_id."`
}

type portalResetIn struct {
	ID     string `json:"id" in:"path" maxLength:"255" jsonschema:"The debtor's id or external_id."`
	Action string `json:"action" enum:"rotate,revoke" jsonschema:"rotate: every link sent so far stops working and a new one is answered (this also lifts a revocation); revoke: no link of the debtor opens the page until a rotation (the debtor asked, or must lose access)."`
}

// portalLinkJSON is a debtor's link state and, unless revoked, a link
// made now.
type portalLinkJSON struct {
	DebtorID   string     `json:"debtor_id"`
	URL        *string    `json:"url"`
	ExpiresAt  *time.Time `json:"expires_at"`
	Generation int        `json:"generation"`
	Revoked    bool       `json:"revoked"`
	RevokedAt  *time.Time `json:"revoked_at"`
	RevokedBy  *string    `json:"revoked_by"`
}

// registerAPI declares the link's operations.
func registerAPI(api *rest.API, s *Service) {
	rest.Handle(api, rest.Operation{
		ID: "dunning_debtors_portal_link", Method: "GET", Path: "/debtors/{id}/portal-link", Tags: []string{"debtors"},
		Title: "Get a debtor's page link",
		Summary: "The debtor's signed link to the debtor page (the one {{debtor.portal_url}} carries), made now and valid for the settings' portal_link_days: there the debtor sees the creditor, each open charge's amount of today with its Pix code and boleto line, the payments made, downloads the statement and, with portal_agreements_enabled, accepts an agreement alone. " +
			"Every call makes a new link with a later expiry; links of the same generation all work until they expire. url is null while the debtor's links are revoked (revoked true; dunning_debtors_portal_link_reset with rotate opens them again).",
		Requires: portalRead, Annotations: restkit.ReadOnly(),
	}, s.portalLink)
	rest.HandleConfirmed(api, rest.Operation{
		ID: "dunning_debtors_portal_link_reset", Method: "POST", Path: "/debtors/{id}/portal-link", Tags: []string{"debtors"},
		Title: "Rotate or revoke a debtor's page link",
		Summary: "Cuts off every link to the debtor page sent so far (admins only). action rotate answers a new link (a leaked link, a new contact); action revoke leaves the debtor without access until a rotation (the debtor asked; the page's own button does the same). " +
			"A revoked debtor's {{debtor.portal_url}} renders empty.",
		Description: "Destructive: the debtor can no longer open the page from any message sent so far.",
		Requires:    portalManage, Annotations: restkit.Destructive(false), ConsumesConfirmation: true,
	}, s.describePortalReset, s.portalReset)
}

// portalLink answers dunning_debtors_portal_link.
func (s *Service) portalLink(ctx context.Context, in *portalLinkIn) (*rest.Response, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	d, err := ledger.GetDebtor(ctx, s.DB, t.OrgID, in.ID)
	if err != nil {
		return nil, ledger.NotFoundAs(err, "debtor")
	}
	j, err := s.linkJSON(ctx, s.DB, d)
	if err != nil {
		return nil, err
	}
	return rest.OK(map[string]any{"data": j}), nil
}

// linkJSON is d's link state read in q, with a link made now.
func (s *Service) linkJSON(ctx context.Context, q store.Querier, d ledger.Debtor) (portalLinkJSON, error) {
	st, err := ledger.LoadSettings(ctx, q, d.OrganizationID)
	if err != nil {
		return portalLinkJSON{}, err
	}
	ls, err := ledger.LoadPortalLinkState(ctx, q, d.OrganizationID, d.ID)
	if err != nil {
		return portalLinkJSON{}, err
	}
	j := portalLinkJSON{DebtorID: d.ID, Generation: ls.Generation, Revoked: ls.Revoked(), RevokedAt: ls.RevokedAt, RevokedBy: ls.RevokedBy}
	url, exp, ok, err := s.Portal.Current(ctx, q, d.OrganizationID, d.ID, s.Clock(), st.LinkDays)
	if err != nil {
		return j, err
	}
	if ok {
		j.URL, j.ExpiresAt = &url, &exp
	}
	return j, nil
}

// describePortalReset is dunning_debtors_portal_link_reset's confirmation.
func (s *Service) describePortalReset(ctx context.Context, in *portalResetIn) (string, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return "", err
	}
	d, err := ledger.GetDebtor(ctx, s.DB, t.OrgID, in.ID)
	if err != nil {
		return "", ledger.NotFoundAs(err, "debtor")
	}
	if in.Action == "revoke" {
		return fmt.Sprintf("Revoke the debtor page of '%s'? No link sent so far opens it until a rotation.", d.Name), nil
	}
	return fmt.Sprintf("Rotate the debtor page link of '%s'? Every link sent so far stops working; a new one is answered.", d.Name), nil
}

// portalReset answers dunning_debtors_portal_link_reset, in the
// transaction that consumes its confirmation.
func (s *Service) portalReset(ctx context.Context, in *portalResetIn) (*rest.Response, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	if in.Action != "rotate" && in.Action != "revoke" {
		return nil, ledger.Invalid("action", "must be rotate or revoke")
	}
	var j portalLinkJSON
	err = s.Nonces.WithTx(ctx, func(tx *store.Tx) error {
		d, err := ledger.GetDebtor(ctx, tx, t.OrgID, in.ID)
		if err != nil {
			return ledger.NotFoundAs(err, "debtor")
		}
		now := s.Clock()
		if in.Action == "rotate" {
			err = ledger.RotatePortalLink(ctx, tx, t.OrgID, d.ID, now)
		} else {
			err = ledger.RevokePortalLink(ctx, tx, t.OrgID, d.ID, notify.UserOf(ctx), now)
		}
		if err != nil {
			return err
		}
		j, err = s.linkJSON(ctx, tx, d)
		return err
	})
	if err != nil {
		return nil, err
	}
	return rest.OK(map[string]any{"data": j}), nil
}
