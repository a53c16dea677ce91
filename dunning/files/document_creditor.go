package files

import (
	"context"
	"fmt"
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
	// Pix is the receiver of the creditor's Pix codes (its key and the
	// BR Code's merchant name and city, set or derived), null without a
	// key: then reminders carry no Pix code (docs/dunning.md "Pix").
	Pix *ledger.PixReceiver `json:"pix"`
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
	PixKey    string          `json:"pix_key,omitempty" maxLength:"77" jsonschema:"The creditor's Pix key, of any DICT type: CPF or CNPJ (check digits verified), e-mail, phone as +55 and DDD and number (+5511912345678) or random key (UUID). Every reminder about a charge then carries a Pix code for its updated amount of the day. Omitted: no Pix key (a PUT replaces the creditor)."`
	PixName   string          `json:"pix_merchant_name,omitempty" maxLength:"100" jsonschema:"The name the payer's app shows (BR Code field 59): upper-cased without accents, at most 25 characters. Default: the legal name, so made and cut to 25."`
	PixCity   string          `json:"pix_merchant_city,omitempty" maxLength:"100" jsonschema:"The city the payer's app shows (BR Code field 60): upper-cased without accents, at most 15 characters. Default: the address's city, so made and cut to 15; needed with a Pix key when the address has no city."`
}

// creditorParty is the creditor as a document prints it: the row, or the
// organization's name without a CNPJ.
func (s *Service) creditorParty(ctx context.Context, orgID string) (DocParty, error) {
	c, err := ledger.LoadCreditor(ctx, s.DB, orgID)
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
	if a := c.Address(); a != nil {
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

func showCreditor(c ledger.Creditor, found bool) creditorJSON {
	if !found {
		return creditorJSON{}
	}
	t := c.UpdatedAt
	out := creditorJSON{LegalName: c.LegalName, Document: brazil.FormatDocument(c.Document), Address: c.Address(), UpdatedAt: &t, Set: true}
	if r, ok := c.PixReceiver(); ok {
		out.Pix = &r
	}
	return out
}

// registerCreditor declares the creditor's get and replace.
func registerCreditor(api *rest.API, s *Service) {
	rest.Handle(api, rest.Operation{
		ID: "dunning_creditor_get", Method: "GET", Path: "/settings/creditor", Tags: []string{"settings"},
		Title:    "Get the creditor",
		Summary:  "Who the documents (statement, settlement letter, agreement term) say the creditor is: legal name, CNPJ and address; and pix, the Pix key and the BR Code's merchant name and city reminders' Pix codes pay (null without a key). set is false until an admin sets it; documents then print the organization's name and no CNPJ.",
		Requires: ledger.MeRead, Annotations: restkit.ReadOnly(),
	}, s.creditorGet)
	rest.Handle(api, rest.Operation{
		ID: "dunning_creditor_update", Method: "PUT", Path: "/settings/creditor", Tags: []string{"settings"},
		Title:    "Set the creditor",
		Summary:  "Sets who the documents say the creditor is (admins only): legal name, CNPJ (checked by its check digits), optionally the address, and optionally the Pix key (CPF, CNPJ, e-mail, +55 phone or random key, checked by its format) with the BR Code's merchant name and city. Documents made afterwards print it; documents already made keep what they printed. With a Pix key, every reminder about a charge can carry a Pix code for its updated amount of the day ({{pix.copia_e_cola}}, {{pix.qr_url}}).",
		Requires: ledger.SettingsManage, Annotations: restkit.Write(false),
	}, s.creditorUpdate)
}

// creditorGet answers dunning_creditor_get.
func (s *Service) creditorGet(ctx context.Context, _ *creditorIn) (*rest.Response, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	c, err := ledger.LoadCreditor(ctx, s.DB, t.OrgID)
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
	c := ledger.Creditor{OrganizationID: t.OrgID, LegalName: name, Document: doc, AddressJSON: ledger.AddressJSON(addr), UpdatedAt: s.Clock()}
	if err := creditorPix(&c, in); err != nil {
		return nil, err
	}
	if err := ledger.UpsertCreditor(ctx, s.DB, c); err != nil {
		return nil, err
	}
	c, err = ledger.LoadCreditor(ctx, s.DB, t.OrgID)
	if err != nil {
		return nil, err
	}
	return rest.OK(map[string]any{"data": showCreditor(c, true)}), nil
}

// creditorPix checks and sets the creditor's Pix key and BR Code name and
// city from in (docs/decisions.md "Dunning: Pix BR Code"): the key by its
// DICT format, the name and city made BR Code text and refused over 25
// and 15 characters rather than cut where the creditor chose them. A key
// needs a city, given or the address's.
func creditorPix(c *ledger.Creditor, in *putCreditorIn) error {
	if strings.TrimSpace(in.PixKey) == "" {
		if strings.TrimSpace(in.PixName) != "" || strings.TrimSpace(in.PixCity) != "" {
			field := "pix_merchant_name"
			if strings.TrimSpace(in.PixName) == "" {
				field = "pix_merchant_city"
			}
			return ledger.Invalid(field, "is only used with a pix_key")
		}
		return nil
	}
	key, typ, err := brazil.NormalizePixKey(in.PixKey)
	if err != nil {
		return ledger.Invalid("pix_key", err.Error())
	}
	c.PixKey, c.PixKeyType = key, typ
	for _, f := range []struct {
		field, in string
		max       int
		out       *string
	}{{"pix_merchant_name", in.PixName, brazil.PixMaxMerchantName, &c.PixMerchantName}, {"pix_merchant_city", in.PixCity, brazil.PixMaxMerchantCity, &c.PixMerchantCity}} {
		if strings.TrimSpace(f.in) == "" {
			continue
		}
		v := brazil.PixText(f.in, 1000)
		switch {
		case v == "":
			return ledger.Invalid(f.field, "has no letter or digit a BR Code can carry")
		case len(v) > f.max:
			return ledger.Invalid(f.field, fmt.Sprintf("is %q, %d characters without accents; a BR Code allows at most %d", v, len(v), f.max))
		}
		*f.out = v
	}
	if r, ok := c.PixReceiver(); !ok {
		if r.MerchantName == "" {
			return ledger.Invalid("pix_merchant_name", "is needed with a pix_key when the legal name has no letter or digit a BR Code can carry")
		}
		return ledger.Invalid("pix_merchant_city", "is needed with a pix_key when the address has no city (the BR Code names the receiver's city)")
	}
	return nil
}
