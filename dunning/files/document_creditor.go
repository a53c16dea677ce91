package files

import (
	"context"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/platform/brazil"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

// The creditor is who the documents say is owed: its legal name, CNPJ
// and address (dunning_creditors). An organization that never set them
// prints its organization name and "CNPJ não informado" — a document is
// still made, and creditor in dunning_me's settings is null until an
// admin sets it (docs/decisions.md "Dunning: documents and exports").

// creditorJSON is the creditor as the API shows it.
type creditorJSON struct {
	LegalName string          `json:"legal_name"`
	Document  string          `json:"document"`
	Address   *ledger.Address `json:"address"`
	UpdatedAt *time.Time      `json:"updated_at"`
	// Set is false while the organization has never set its creditor:
	// documents print the organization's name and no CNPJ.
	Set bool `json:"set"`
}

type creditorIn struct{}

// putCreditorIn replaces the creditor the documents print.
type putCreditorIn struct {
	LegalName string          `json:"legal_name" minLength:"1" maxLength:"200" jsonschema:"The creditor's legal name (razão social), as the documents print it."`
	Document  string          `json:"document" minLength:"14" maxLength:"18" jsonschema:"The creditor's CNPJ, with or without punctuation (the 2026 alphanumeric CNPJ too)."`
	Address   *ledger.Address `json:"address,omitempty" jsonschema:"The creditor's address, printed under its name; its city is where the settlement letter is signed from."`
}

// creditorParty is the creditor as a document prints it: the row, or the
// organization's name without a CNPJ.
func (s *Service) creditorParty(ctx context.Context, orgID string) (DocParty, error) {
	c, err := loadCreditor(ctx, s.DB, orgID)
	if errNotFound(err) {
		org, err := s.Accounts.GetOrganization(ctx, orgID)
		if err != nil {
			return DocParty{}, err
		}
		return DocParty{Name: org.Name}, nil
	}
	if err != nil {
		return DocParty{}, err
	}
	p := DocParty{Name: c.LegalName, Document: brazil.FormatDocument(c.Document)}
	if a := c.address(); a != nil {
		p.Address, p.City = addressLine(a), a.City
	}
	return p, nil
}

// addressLine is an address on one line: "Rua X, 10, ap. 3 - Centro -
// São Paulo/SP - 01310-100", leaving out what is empty.
func addressLine(a *ledger.Address) string {
	if a == nil {
		return ""
	}
	street := strings.TrimSpace(strings.Join(nonEmpty(a.Street, a.Number, a.Complement), ", "))
	city := a.City
	if a.State != "" {
		city = strings.TrimSpace(city + "/" + a.State)
	}
	return strings.Join(nonEmpty(street, a.District, city, a.Zip), " - ")
}

func nonEmpty(parts ...string) []string {
	out := parts[:0:0]
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" && p != "/" {
			out = append(out, p)
		}
	}
	return out
}

func showCreditor(c creditorRow, found bool) creditorJSON {
	if !found {
		return creditorJSON{}
	}
	t := c.UpdatedAt
	return creditorJSON{LegalName: c.LegalName, Document: brazil.FormatDocument(c.Document), Address: c.address(), UpdatedAt: &t, Set: true}
}

// registerCreditor declares the creditor's get and replace.
func registerCreditor(api *rest.API, s *Service) {
	rest.Handle(api, rest.Operation{
		ID: "dunning_creditor_get", Method: "GET", Path: "/settings/creditor", Tags: []string{"settings"},
		Title:    "Get the creditor",
		Summary:  "Who the documents (statement, settlement letter, agreement term) say the creditor is: legal name, CNPJ and address. set is false until an admin sets it; documents then print the organization's name and no CNPJ.",
		Requires: ledger.MeRead, Annotations: restkit.ReadOnly(),
	}, s.creditorGet)
	rest.Handle(api, rest.Operation{
		ID: "dunning_creditor_update", Method: "PUT", Path: "/settings/creditor", Tags: []string{"settings"},
		Title:    "Set the creditor",
		Summary:  "Sets who the documents say the creditor is (admins only): legal name, CNPJ (checked by its check digits) and optionally the address. Documents made afterwards print it; documents already made keep what they printed.",
		Requires: ledger.SettingsManage, Annotations: restkit.Write(false),
	}, s.creditorUpdate)
}

// creditorGet answers dunning_creditor_get.
func (s *Service) creditorGet(ctx context.Context, _ *creditorIn) (*rest.Response, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	c, err := loadCreditor(ctx, s.DB, t.OrgID)
	if err != nil && !errNotFound(err) {
		return nil, err
	}
	return rest.OK(map[string]any{"data": showCreditor(c, err == nil)}), nil
}

// creditorUpdate answers dunning_creditor_update.
func (s *Service) creditorUpdate(ctx context.Context, in *putCreditorIn) (*rest.Response, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	name := strings.TrimSpace(in.LegalName)
	if name == "" {
		return nil, ledger.Invalid("legal_name", "must not be blank")
	}
	doc := brazil.NormalizeDocument(in.Document)
	if !brazil.ValidCNPJ(doc) {
		return nil, ledger.Invalid("document", "must be a valid CNPJ")
	}
	addr, err := ledger.CheckAddress(in.Address)
	if err != nil {
		return nil, err
	}
	now := s.Clock()
	if err := upsertCreditor(ctx, s.DB, t.OrgID, name, doc, ledger.AddressJSON(addr), now); err != nil {
		return nil, err
	}
	c, err := loadCreditor(ctx, s.DB, t.OrgID)
	if err != nil {
		return nil, err
	}
	return rest.OK(map[string]any{"data": showCreditor(c, true)}), nil
}
