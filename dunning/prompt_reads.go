package dunning

import (
	"context"
	"encoding/json"
	"net/url"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/restbridge"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/productkit/restkit"
)

// What the prompts read through the routes, in-process and as the caller
// (so a prompt shows only what its caller may see): below every prompt
// (prompts.go, prompt_portfolio.go, prompt_agreement.go).

// fetchData GETs a route in-process and answers its data member, and its
// meta when it is a listing, as JSON indented two spaces.
func fetchData(ctx context.Context, b *restbridge.Bridge, req *mcp.Request, path string, q url.Values) (string, error) {
	var doc struct {
		Data json.RawMessage `json:"data"`
		Meta json.RawMessage `json:"meta,omitempty"`
	}
	if err := restkit.GetJSON(ctx, b, req, ledger.APIBase+path, q, &doc); err != nil {
		return "", err
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	return string(out), err
}

// me is what the prompts read of dunning_me: today in the organization's
// timezone, its settings and its counts.
type me struct {
	Organization struct {
		Name string `json:"name"`
	} `json:"organization"`
	Today    bankcalendar.Date `json:"today"`
	Settings struct {
		AgreementMaxDiscount float64 `json:"agreement_max_discount_percent"`
		Timezone             string  `json:"timezone"`
		QuietHoursStart      string  `json:"quiet_hours_start"`
		QuietHoursEnd        string  `json:"quiet_hours_end"`
		Channels             map[string]struct {
			Enabled  bool   `json:"enabled"`
			Provider string `json:"provider"`
		} `json:"channels"`
	} `json:"settings"`
	Counts json.RawMessage `json:"counts"`
}

// readMe reads dunning_me (GET /me) as the caller.
func readMe(ctx context.Context, b *restbridge.Bridge, req *mcp.Request) (me, error) {
	var doc struct {
		Data me `json:"data"`
	}
	err := restkit.GetJSON(ctx, b, req, ledger.APIBase+"/me", nil, &doc)
	return doc.Data, err
}

// listedCharge is what the prompts read of a charge in a listing (the
// portfolio review, the agreement proposal).
type listedCharge struct {
	ID            string            `json:"id"`
	ExternalID    *string           `json:"external_id"`
	DebtorID      string            `json:"debtor_id"`
	Description   string            `json:"description"`
	Amount        money.Cents       `json:"amount"`
	OpenAmount    money.Cents       `json:"open_amount"`
	UpdatedAmount money.Cents       `json:"updated_amount"`
	DaysLate      int               `json:"days_late"`
	DueDate       bankcalendar.Date `json:"due_date"`
}

// listMeta is what the prompts read of a numbered listing's meta.
type listMeta struct {
	Total      int `json:"total"`
	TotalPages int `json:"total_pages"`
}

// readDebtor is the debtor a prompt names by id or external_id, as the
// prompt shows it, and its own id, for the listings' filters.
func readDebtor(ctx context.Context, b *restbridge.Bridge, req *mcp.Request, id string) (text, debtorID string, err error) {
	text, err = fetchData(ctx, b, req, "/debtors/"+url.PathEscape(id), nil)
	if err != nil {
		return "", "", err
	}
	var d struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	_ = json.Unmarshal([]byte(text), &d)
	return text, d.Data.ID, nil
}
