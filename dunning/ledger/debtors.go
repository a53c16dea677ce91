package ledger

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/kobana/kobana-mcp/dunning/contact"
	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/brazil"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

// Permissions on debtors: viewers read, members create and change them,
// admins archive them (docs/dunning.md "Dunning: debtors, charges and payments").
var (
	DebtorsRead   = mcp.Requirement{Scopes: []string{"dunning.debtors"}, Permission: identity.PermRead}
	debtorsWrite  = mcp.Requirement{Scopes: []string{"dunning.debtors"}, Permission: identity.PermWrite}
	debtorsManage = mcp.Requirement{Scopes: []string{"dunning.debtors"}, Permission: identity.PermManage}
)

// Bounds of a debtor's contacts: a debtor is reached at a few addresses,
// and every message goes to each channel's first usable one.
const (
	maxEmails = 10
	maxPhones = 10
)

// debtorBody is what a caller sets on a debtor.
type debtorBody struct {
	Name     string   `json:"name" minLength:"1" maxLength:"200" jsonschema:"The debtor's name (a person's or a company's)."`
	Document string   `json:"document" minLength:"11" maxLength:"20" jsonschema:"CPF (a person, 11 digits) or CNPJ (a company, 14 characters), with or without punctuation; checked by its check digits and shown formatted. person_kind follows from it."`
	Emails   []string `json:"emails,omitempty" jsonschema:"E-mail addresses, the first one preferred (at most 10)."`
	Phones   []string `json:"phones,omitempty" jsonschema:"Brazilian phone numbers, the first mobile one preferred for SMS and WhatsApp (at most 10); a number without +55 is read as Brazilian and stored in E.164 (+5511987654321)."`
	Address  *Address `json:"address,omitempty" jsonschema:"Postal address."`
}

type upsertDebtorIn struct {
	ExternalID string `json:"external_id" in:"path" minLength:"1" maxLength:"255" jsonschema:"Your own id for the debtor: the one to replace, or the one a new debtor gets."`
	debtorBody
}

// updateDebtorIn changes what it names; emails, phones and address are
// replaced whole (an empty address object removes it).
type updateDebtorIn struct {
	ID       string    `json:"id" in:"path" jsonschema:"The debtor's id or external_id."`
	Name     *string   `json:"name,omitempty" minLength:"1" maxLength:"200" jsonschema:"A new name."`
	Document *string   `json:"document,omitempty" minLength:"11" maxLength:"20" jsonschema:"A new CPF or CNPJ (person_kind follows)."`
	Emails   *[]string `json:"emails,omitempty" jsonschema:"Replaces the e-mail addresses."`
	Phones   *[]string `json:"phones,omitempty" jsonschema:"Replaces the phone numbers."`
	Address  *Address  `json:"address,omitempty" jsonschema:"Replaces the postal address; {} removes it."`
}

type debtorRefIn struct {
	ID string `json:"id" in:"path" jsonschema:"The debtor's id or external_id."`
}

type listDebtorsIn struct {
	Q         string `json:"q,omitempty" in:"query" maxLength:"200" jsonschema:"Only debtors whose name, document or e-mail contains this text (case-insensitive)."`
	Document  string `json:"document,omitempty" in:"query" maxLength:"20" jsonschema:"Only the debtor with this CPF or CNPJ (any punctuation)."`
	Status    string `json:"status,omitempty" in:"query" enum:"active,archived" jsonschema:"active (default) or archived debtors."`
	SortBy    string `json:"sort_by,omitempty" in:"query" enum:"name,created_at,updated_at" jsonschema:"Sort by name (default), created_at or updated_at."`
	SortOrder string `json:"sort_order,omitempty" in:"query" enum:"asc,desc" jsonschema:"asc (default) or desc."`
	restkit.NumberedParams
}

type optOutIn struct {
	ID       string `json:"id" in:"path" jsonschema:"The debtor's id or external_id."`
	Channel  string `json:"channel" enum:"email,sms,whatsapp" jsonschema:"The channel."`
	OptedOut *bool  `json:"opted_out,omitempty" jsonschema:"true (default) records that the debtor must not be contacted on the channel; false removes the opt-out, so collection may contact the debtor on it again."`
	Reason   string `json:"reason,omitempty" maxLength:"500" jsonschema:"Why, required when opting out: \"asked by phone\", \"STOP reply\"…"`
}

func checkDocument(field, text string) (doc, kind string, err error) {
	k, ok := brazil.DocumentKind(text)
	if !ok {
		return "", "", Invalid(field, "must be a valid CPF (11 digits) or CNPJ (14 characters): its check digits do not verify")
	}
	kind = PersonNatural
	if k == brazil.KindCNPJ {
		kind = PersonJuridical
	}
	return brazil.NormalizeDocument(text), kind, nil
}

func checkEmails(list []string) ([]string, error) {
	list = CleanStrings(list)
	if len(list) > maxEmails {
		return nil, Invalid("emails", fmt.Sprintf("must have at most %d addresses", maxEmails))
	}
	out := make([]string, 0, len(list))
	for i, e := range list {
		a, err := contact.ParseEmail(e)
		if err != nil {
			return nil, Invalid(fmt.Sprintf("emails.%d", i), err.Error())
		}
		out = append(out, a)
	}
	return CleanStrings(out), nil
}

func checkPhones(list []string) ([]string, error) {
	list = CleanStrings(list)
	if len(list) > maxPhones {
		return nil, Invalid("phones", fmt.Sprintf("must have at most %d numbers", maxPhones))
	}
	out := make([]string, 0, len(list))
	for i, p := range list {
		ph, err := contact.ParsePhone(p)
		if err != nil {
			return nil, Invalid(fmt.Sprintf("phones.%d", i), err.Error())
		}
		out = append(out, ph.E164)
	}
	return CleanStrings(out), nil
}

// CheckAddress trims an address, checks its state and postal code, and
// answers nil for an empty one.
func CheckAddress(a *Address) (*Address, error) {
	if a == nil {
		return nil, nil
	}
	c := Address{Street: strings.TrimSpace(a.Street), Number: strings.TrimSpace(a.Number), Complement: strings.TrimSpace(a.Complement),
		District: strings.TrimSpace(a.District), City: strings.TrimSpace(a.City), State: strings.ToUpper(strings.TrimSpace(a.State)),
		Zip: strings.ReplaceAll(strings.TrimSpace(a.Zip), "-", "")}
	if c == (Address{}) {
		return nil, nil
	}
	for field, v := range map[string]string{"street": c.Street, "number": c.Number, "complement": c.Complement, "district": c.District, "city": c.City} {
		if len(v) > 200 {
			return nil, Invalid("address."+field, "must be at most 200 characters")
		}
	}
	if c.State != "" && (len(c.State) != 2 || strings.Trim(c.State, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "") {
		return nil, Invalid("address.state", "must be a state's two-letter code, such as SP")
	}
	if c.Zip != "" && (len(c.Zip) != 8 || strings.Trim(c.Zip, "0123456789") != "") {
		return nil, Invalid("address.zip", "must be a CEP of 8 digits, such as 01310-100")
	}
	if c.Zip != "" {
		c.Zip = c.Zip[:5] + "-" + c.Zip[5:]
	}
	return &c, nil
}

func checkDebtorBody(b *debtorBody) (debtorInput, error) {
	var in debtorInput
	var err error
	in.name = strings.TrimSpace(b.Name)
	if in.name == "" {
		return in, Invalid("name", "must not be blank")
	}
	if in.document, in.personKind, err = checkDocument("document", b.Document); err != nil {
		return in, err
	}
	if in.emails, err = checkEmails(b.Emails); err != nil {
		return in, err
	}
	if in.phones, err = checkPhones(b.Phones); err != nil {
		return in, err
	}
	in.address, err = CheckAddress(b.Address)
	return in, err
}

// RegisterDebtors declares the debtor operations; each handler is a
// method of the service below, its SQL in debtors_store.go.
func RegisterDebtors(api *rest.API, s *Service) {
	rest.Handle(api, rest.Operation{
		ID: "dunning_debtors_list", Method: "GET", Path: "/debtors", Tags: []string{"debtors"},
		Title:    "List debtors",
		Summary:  "Lists the organization's debtors by name, a page at a time, each with what it owes; filters by text in the name, document or e-mail, by document and by status.",
		Requires: DebtorsRead, Annotations: restkit.ReadOnly(),
	}, s.debtorsList)
	rest.Handle(api, rest.Operation{
		ID: "dunning_debtors_get", Method: "GET", Path: "/debtors/{id}", Tags: []string{"debtors"},
		Title:    "Get a debtor",
		Summary:  "Gets one debtor by id or external_id, with its contacts, opt-outs and what it owes: total_open_amount and overdue_amount, computed by the server.",
		Requires: DebtorsRead, Annotations: restkit.ReadOnly(),
	}, s.debtorsGet)
	rest.Handle(api, rest.Operation{
		ID: "dunning_debtors_upsert", Method: "PUT", Path: "/debtors/{external_id}", Tags: []string{"debtors"},
		Title:    "Create or replace a debtor",
		Summary:  "Creates the debtor with this external_id (201), or replaces every field of the one that has it (200), making an archived one active again. The document (CPF or CNPJ) is checked by its check digits; a change between CPF and CNPJ lists the open charges whose caps it changed (charges_recapped).",
		Requires: debtorsWrite, Annotations: restkit.Write(false),
	}, s.debtorsUpsert)
	rest.Handle(api, rest.Operation{
		ID: "dunning_debtors_update", Method: "PATCH", Path: "/debtors/{id}", Tags: []string{"debtors"},
		Title:    "Change a debtor",
		Summary:  "Changes a debtor's name, document, e-mails, phones or address; what the request leaves out stays. A document that turns a company (CNPJ) into a person (CPF) or back changes the caps its open charges are computed with: charges_recapped lists them.",
		Requires: debtorsWrite, Annotations: restkit.Write(false),
	}, s.debtorsUpdate)
	rest.HandleConfirmed(api, rest.Operation{
		ID: "dunning_debtors_archive", Method: "POST", Path: "/debtors/{id}/archive", Tags: []string{"debtors"},
		Title:       "Archive a debtor",
		Summary:     "Archives a debtor: it leaves the default listing and takes no new charges. A debtor with open charges cannot be archived; archiving an archived debtor changes nothing.",
		Description: "Destructive: an upsert with its external_id makes it active again.",
		Requires:    debtorsManage, Annotations: restkit.Destructive(true), ConsumesConfirmation: true,
	}, s.describeDebtorsArchive, s.debtorsArchive)
	rest.Handle(api, rest.Operation{
		ID: "dunning_debtors_opt_outs_set", Method: "PUT", Path: "/debtors/{id}/opt-outs", Tags: []string{"debtors"},
		Title:    "Set a debtor's opt-out of a channel",
		Summary:  "Records that a debtor must not be contacted on a channel (e-mail, SMS or WhatsApp), with why, or removes that opt-out (opted_out false). A debtor opted out of a channel is never contacted on it.",
		Requires: debtorsWrite, Annotations: restkit.Write(false),
	}, s.debtorsOptOutsSet)
}

// debtorsList answers dunning_debtors_list.
func (s *Service) debtorsList(ctx context.Context, in *listDebtorsIn) (*rest.Response, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	f := debtorListFilter{Status: in.Status, Q: strings.TrimSpace(in.Q), Dir: sortDirection(in.SortOrder), Order: debtorSortColumns[in.SortBy]}
	if f.Status == "" {
		f.Status = DebtorActive
	}
	if in.Document != "" {
		f.Document = brazil.NormalizeDocument(in.Document)
	}
	page, perPage, offset := in.Window()
	f.Limit, f.Offset = perPage, offset
	rows, total, err := listDebtors(ctx, s.DB, t.OrgID, f)
	if err != nil {
		return nil, err
	}
	details, err := debtorDetails(ctx, s.DB, t.OrgID, rows)
	if err != nil {
		return nil, err
	}
	return restkit.NumberedPage(details, page, perPage, total, func(d debtorDetailJSON) debtorDetailJSON { return d }), nil
}

// debtorsGet answers dunning_debtors_get.
func (s *Service) debtorsGet(ctx context.Context, in *debtorRefIn) (*rest.Response, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	d, err := GetDebtor(ctx, s.DB, t.OrgID, in.ID)
	if err != nil {
		return nil, NotFoundAs(err, "debtor")
	}
	return s.debtorAnswer(ctx, d, http.StatusOK)
}

// debtorsUpsert answers dunning_debtors_upsert: 201 with a new debtor, 200
// with a replaced one and the charges its new document recapped.
func (s *Service) debtorsUpsert(ctx context.Context, in *upsertDebtorIn) (*rest.Response, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	v, err := checkDebtorBody(&in.debtorBody)
	if err != nil {
		return nil, err
	}
	var d Debtor
	var recapped []chargeRecapJSON
	created := false
	// Two concurrent upserts of a new external_id: the loser's insert
	// conflicts, and its second attempt replaces the winner's debtor.
	for attempt := 0; ; attempt++ {
		err = s.DB.WithTx(ctx, func(tx *store.Tx) error {
			now := s.Clock()
			old, err := getDebtorByExternal(ctx, tx, t.OrgID, in.ExternalID, true)
			if errors.Is(err, store.ErrNotFound) {
				created = true
				id := store.NewID()
				if err := insertDebtor(ctx, tx, t.OrgID, id, in.ExternalID, v, now); err != nil {
					return err
				}
				d, err = GetDebtor(ctx, tx, t.OrgID, id)
				return err
			}
			if err != nil {
				return err
			}
			created = false
			if err := replaceDebtor(ctx, tx, t.OrgID, old.ID, v, now); err != nil {
				return err
			}
			if recapped, err = recappedCharges(ctx, tx, t.OrgID, old.ID, old.PersonKind, v.personKind); err != nil {
				return err
			}
			d, err = GetDebtor(ctx, tx, t.OrgID, old.ID)
			return err
		})
		if errors.Is(err, store.ErrConflict) && attempt == 0 {
			continue
		}
		break
	}
	if err != nil {
		return nil, err
	}
	if created {
		return s.debtorChangedAnswer(ctx, d, http.StatusCreated, nil)
	}
	return s.debtorChangedAnswer(ctx, d, http.StatusOK, recapped)
}

// patchDebtorInput is old with what in names checked and put over it.
func patchDebtorInput(old Debtor, in *updateDebtorIn) (debtorInput, error) {
	v := debtorInput{name: old.Name, document: old.Document, personKind: old.PersonKind, emails: old.Emails, phones: old.Phones, address: old.Address}
	var err error
	if in.Name != nil {
		if v.name = strings.TrimSpace(*in.Name); v.name == "" {
			return v, Invalid("name", "must not be blank")
		}
	}
	if in.Document != nil {
		if v.document, v.personKind, err = checkDocument("document", *in.Document); err != nil {
			return v, err
		}
	}
	if in.Emails != nil {
		if v.emails, err = checkEmails(*in.Emails); err != nil {
			return v, err
		}
	}
	if in.Phones != nil {
		if v.phones, err = checkPhones(*in.Phones); err != nil {
			return v, err
		}
	}
	if in.Address != nil {
		v.address, err = CheckAddress(in.Address)
	}
	return v, err
}

// debtorsUpdate answers dunning_debtors_update.
func (s *Service) debtorsUpdate(ctx context.Context, in *updateDebtorIn) (*rest.Response, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	var d Debtor
	var recapped []chargeRecapJSON
	err = s.DB.WithTx(ctx, func(tx *store.Tx) error {
		old, err := lockDebtor(ctx, tx, t.OrgID, in.ID)
		if err != nil {
			return NotFoundAs(err, "debtor")
		}
		v, err := patchDebtorInput(old, in)
		if err != nil {
			return err
		}
		if err := updateDebtor(ctx, tx, t.OrgID, old.ID, v, s.Clock()); err != nil {
			return err
		}
		if recapped, err = recappedCharges(ctx, tx, t.OrgID, old.ID, old.PersonKind, v.personKind); err != nil {
			return err
		}
		d, err = GetDebtor(ctx, tx, t.OrgID, old.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return s.debtorChangedAnswer(ctx, d, http.StatusOK, recapped)
}

// describeDebtorsArchive is dunning_debtors_archive's confirmation.
func (s *Service) describeDebtorsArchive(ctx context.Context, in *debtorRefIn) (string, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return "", err
	}
	d, err := GetDebtor(ctx, s.DB, t.OrgID, in.ID)
	if err != nil {
		return "", NotFoundAs(err, "debtor")
	}
	return fmt.Sprintf("Archive debtor '%s' (%s, external id %s)? It takes no new charges until an upsert makes it active again.",
		d.Name, brazil.FormatDocument(d.Document), d.ExternalID), nil
}

// debtorsArchive answers dunning_debtors_archive, in the transaction that
// consumes the confirmation (s.nonces).
func (s *Service) debtorsArchive(ctx context.Context, in *debtorRefIn) (*rest.Response, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	var d Debtor
	err = s.Nonces.WithTx(ctx, func(tx *store.Tx) error {
		old, err := lockDebtor(ctx, tx, t.OrgID, in.ID)
		if err != nil {
			return NotFoundAs(err, "debtor")
		}
		if old.Status != DebtorArchived {
			open, err := countUnsettledCharges(ctx, tx, t.OrgID, old.ID)
			if err != nil {
				return err
			}
			if open > 0 {
				return rest.Unprocessable(fmt.Sprintf("the debtor has %d open charge(s): cancel or archive them before archiving the debtor", open))
			}
			if err := archiveDebtor(ctx, tx, t.OrgID, old.ID, s.Clock()); err != nil {
				return err
			}
			// Archiving revokes the debtor page's links (portal_link.go):
			// a debtor made active again gets one only by a rotation.
			if err := RevokePortalLink(ctx, tx, t.OrgID, old.ID, PortalRevokedByArchive, s.Clock()); err != nil {
				return err
			}
		}
		d, err = GetDebtor(ctx, tx, t.OrgID, old.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return s.debtorAnswer(ctx, d, http.StatusOK)
}

// debtorsOptOutsSet answers dunning_debtors_opt_outs_set.
func (s *Service) debtorsOptOutsSet(ctx context.Context, in *optOutIn) (*rest.Response, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	out := in.OptedOut == nil || *in.OptedOut
	reason := strings.TrimSpace(in.Reason)
	if out && reason == "" {
		return nil, Invalid("reason", "is required when opting out: say why")
	}
	source := recordedBy(t.Identity)
	var d Debtor
	err = s.DB.WithTx(ctx, func(tx *store.Tx) error {
		old, err := lockDebtor(ctx, tx, t.OrgID, in.ID)
		if err != nil {
			return NotFoundAs(err, "debtor")
		}
		if out {
			err = setOptOut(ctx, tx, t.OrgID, old.ID, in.Channel, reason, source, s.Clock())
		} else {
			err = deleteOptOut(ctx, tx, t.OrgID, old.ID, in.Channel)
		}
		if err != nil {
			return err
		}
		d, err = GetDebtor(ctx, tx, t.OrgID, old.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	detail, err := debtorDetail(ctx, s.DB, d)
	if err != nil {
		return nil, err
	}
	return rest.OK(map[string]any{"data": detail}), nil
}

// debtorAnswer is a debtor as every write answers it: its detail, with
// the server's open and overdue totals, under data.
func (s *Service) debtorAnswer(ctx context.Context, d Debtor, status int) (*rest.Response, error) {
	out, err := debtorDetail(ctx, s.DB, d)
	if err != nil {
		return nil, err
	}
	return &rest.Response{Status: status, Body: map[string]any{"data": out}}, nil
}
