package ledger

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/dunning/lifecycle"
	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/brazil"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

// Permissions on charges: viewers read, members create and change them and
// record payments (an ordinary write), admins cancel and archive them
// (docs/dunning.md "Dunning: debtors, charges and payments").
var (
	ChargesRead   = mcp.Requirement{Scopes: []string{"dunning.charges"}, Permission: identity.PermRead}
	chargesWrite  = mcp.Requirement{Scopes: []string{"dunning.charges"}, Permission: identity.PermWrite}
	chargesManage = mcp.Requirement{Scopes: []string{"dunning.charges"}, Permission: identity.PermManage}
)

// Bounds of a charge's free-form parts.
const (
	maxTags          = 20
	maxTagLength     = 50
	maxCustomDataLen = 10_000
)

// onHorizonDays is how far after today GET /charges/{id}?on= may ask
// for the updated amount: ten years, longer than any agreement, so a
// projection is possible but year 9999's fine and interest are not.
const onHorizonDays = 3653

// createChargeIn is a new charge. Amounts are floats in reais rounded
// half-up to the cent; percentages are numbers (2 for 2 %).
type createChargeIn struct {
	DebtorID        string         `json:"debtor_id" minLength:"1" maxLength:"255" jsonschema:"The debtor (id or external_id) who owes it."`
	ExternalID      string         `json:"external_id,omitempty" minLength:"1" maxLength:"255" jsonschema:"Your own id for the charge, unique in the organization: a second create with it is CONFLICT naming the existing charge."`
	Amount          float64        `json:"amount" minimum:"0" jsonschema:"What is owed, in BRL (1234.56); more than two decimals are rounded half-up to the cent."`
	DueDate         string         `json:"due_date" format:"date" jsonschema:"Due date, YYYY-MM-DD."`
	Description     string         `json:"description,omitempty" maxLength:"1000" jsonschema:"What the charge is for, as the debtor will read it."`
	FinePercent     *float64       `json:"fine_percent,omitempty" minimum:"0" maximum:"100" jsonschema:"Late fine (multa), percent of the open amount, charged once after the due date (default 0; at most 2 for a natural person, by law, and the organization's company_fine_cap_percent for a company)."`
	InterestPercent *float64       `json:"interest_percent,omitempty" minimum:"0" maximum:"100" jsonschema:"Default interest (juros de mora), percent per month, pro rata at one thirtieth per calendar day late (default 0; at most the settings' interest_cap_percent)."`
	Origin          string         `json:"origin,omitempty" enum:"bank_billet,pix,invoice,external" jsonschema:"Where the charge comes from (default external)."`
	OriginRef       string         `json:"origin_ref,omitempty" maxLength:"255" jsonschema:"Its id where it comes from (the boleto's or Pix charge's id)."`
	Barcode         string         `json:"barcode,omitempty" maxLength:"80" jsonschema:"The boleto's digitable line or barcode, checked by its check digits and stored as the digitable line."`
	PaymentLink     string         `json:"payment_link,omitempty" maxLength:"2000" jsonschema:"An https link where the debtor pays."`
	Tags            []string       `json:"tags,omitempty" jsonschema:"Labels for your own grouping (at most 20 of 50 characters)."`
	CustomData      map[string]any `json:"custom_data,omitempty" jsonschema:"Your own data, kept and shown as given (at most 10 000 bytes of JSON)."`
}

// updateChargeIn changes what it names; never the status, which only the
// lifecycle operations, payments and the scheduler change.
type updateChargeIn struct {
	ID              string          `json:"id" in:"path" jsonschema:"The charge's id or external_id."`
	Amount          *float64        `json:"amount,omitempty" minimum:"0" jsonschema:"A new amount in BRL; the open amount moves by the same difference, and must stay above what was paid."`
	DueDate         *string         `json:"due_date,omitempty" format:"date" jsonschema:"A new due date, YYYY-MM-DD. A pending charge whose new due date is past its grace turns overdue; an overdue charge cannot be made pending again."`
	Description     *string         `json:"description,omitempty" maxLength:"1000" jsonschema:"A new description."`
	FinePercent     *float64        `json:"fine_percent,omitempty" minimum:"0" maximum:"100" jsonschema:"A new late fine, percent."`
	InterestPercent *float64        `json:"interest_percent,omitempty" minimum:"0" maximum:"100" jsonschema:"A new monthly interest, percent."`
	OriginRef       *string         `json:"origin_ref,omitempty" maxLength:"255" jsonschema:"A new origin reference; \"\" removes it."`
	Barcode         *string         `json:"barcode,omitempty" maxLength:"80" jsonschema:"A new digitable line or barcode; \"\" removes it."`
	PaymentLink     *string         `json:"payment_link,omitempty" maxLength:"2000" jsonschema:"A new payment link; \"\" removes it."`
	Tags            *[]string       `json:"tags,omitempty" jsonschema:"Replaces the tags."`
	CustomData      *map[string]any `json:"custom_data,omitempty" jsonschema:"Replaces the custom data."`
}

type ChargeRefIn struct {
	ID string `json:"id" in:"path" jsonschema:"The charge's id or external_id."`
}

type getChargeIn struct {
	ID string `json:"id" in:"path" jsonschema:"The charge's id or external_id."`
	On string `json:"on,omitempty" in:"query" format:"date" jsonschema:"Compute updated_amount, fine and interest for this date (YYYY-MM-DD) instead of today in the organization's timezone."`
}

type listChargesIn struct {
	Status    []string `json:"status,omitempty" in:"query" jsonschema:"Only charges in these statuses, a comma list: pending, overdue, paid, canceled, written_off, in_agreement."`
	DebtorID  string   `json:"debtor_id,omitempty" in:"query" maxLength:"255" jsonschema:"Only this debtor's charges (id or external_id)."`
	DueFrom   string   `json:"due_from,omitempty" in:"query" format:"date" jsonschema:"Only charges due on or after this date (YYYY-MM-DD)."`
	DueTo     string   `json:"due_to,omitempty" in:"query" format:"date" jsonschema:"Only charges due on or before this date (YYYY-MM-DD)."`
	PlanID    string   `json:"plan_id,omitempty" in:"query" maxLength:"255" jsonschema:"Only charges enrolled in this collection plan (id or external_id), whatever the enrollment's state."`
	Q         string   `json:"q,omitempty" in:"query" maxLength:"200" jsonschema:"Only charges whose description, external_id or debtor's name contains this text (case-insensitive)."`
	Archived  bool     `json:"archived,omitempty" in:"query" jsonschema:"true lists archived charges instead of the others (default false)."`
	SortBy    string   `json:"sort_by,omitempty" in:"query" enum:"due_date,amount,created_at,updated_at" jsonschema:"Sort by due_date (default), amount, created_at or updated_at."`
	SortOrder string   `json:"sort_order,omitempty" in:"query" enum:"asc,desc" jsonschema:"asc (default) or desc."`
	restkit.NumberedParams
}

type cancelChargeIn struct {
	ID       string `json:"id" in:"path" jsonschema:"The charge's id or external_id."`
	WriteOff bool   `json:"write_off,omitempty" jsonschema:"true writes the debt off as a loss (written_off, only for an overdue charge) instead of canceling it (default false)."`
}

// checkTags trims, de-duplicates and bounds tags.
func checkTags(tags []string) ([]string, error) {
	out := CleanStrings(tags)
	if len(out) > maxTags {
		return nil, Invalid("tags", fmt.Sprintf("must have at most %d tags", maxTags))
	}
	for i, t := range out {
		if len([]rune(t)) > maxTagLength {
			return nil, Invalid(fmt.Sprintf("tags.%d", i), fmt.Sprintf("must be at most %d characters", maxTagLength))
		}
	}
	return out, nil
}

func checkCustomData(m map[string]any) (string, error) {
	if m == nil {
		m = map[string]any{}
	}
	s := MustJSON(m)
	if len(s) > maxCustomDataLen {
		return "", Invalid("custom_data", fmt.Sprintf("must be at most %d bytes of JSON", maxCustomDataLen))
	}
	return s, nil
}

// checkBarcode verifies a boleto's line or barcode by its check digits and
// answers its digitable line ("" stays "": none).
func checkBarcode(text string, ref time.Time) (*string, error) {
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	b, err := brazil.DecodeBoleto(text, ref)
	if err != nil {
		return nil, Invalid("barcode", err.Error())
	}
	return &b.DigitableLine, nil
}

func checkPaymentLink(text string) (*string, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, nil
	}
	u, err := url.Parse(text)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, Invalid("payment_link", "must be an http or https URL")
	}
	return &text, nil
}

// ChargeView is a charge as the API shows it with its amounts for date
// on, or for the organization's today when on is zero.
func (s *Service) ChargeView(c Charge, st Settings, on bankcalendar.Date) (ChargeJSON, error) {
	if on.IsZero() {
		on = st.Today(s.Clock())
	}
	b, err := ChargeBreakdown(c, st, on)
	if err != nil {
		return ChargeJSON{}, err
	}
	return ShowCharge(c, b, on), nil
}

// chargeViews are a page of charges as the API shows them, their amounts
// for the organization's today, the settings' rules made once for the
// page (feeRules).
func (s *Service) chargeViews(rows []Charge, st Settings) ([]ChargeJSON, error) {
	on := st.Today(s.Clock())
	rules := newFeeRules(st)
	views := make([]ChargeJSON, 0, len(rows))
	for i := range rows {
		if err := rows[i].Decode(); err != nil {
			return nil, err
		}
		b, err := rules.breakdown(rows[i], on)
		if err != nil {
			return nil, err
		}
		views = append(views, ShowCharge(rows[i], b, on))
	}
	return views, nil
}

// chargeDetailJSON is a charge with its debtor, payments, enrollments
// and last notifications: everything dunning_charges_get answers.
type chargeDetailJSON struct {
	ChargeJSON
	Debtor        DebtorJSON              `json:"debtor"`
	Payments      []paymentJSON           `json:"payments"`
	Enrollments   []chargeEnrollmentRow   `json:"enrollments"`
	Notifications []chargeNotificationRow `json:"notifications"`
}

func (s *Service) chargeDetail(ctx context.Context, q store.Querier, c Charge, st Settings, on bankcalendar.Date) (chargeDetailJSON, error) {
	var out chargeDetailJSON
	var err error
	if out.ChargeJSON, err = s.ChargeView(c, st, on); err != nil {
		return out, err
	}
	d, err := GetDebtor(ctx, q, c.OrganizationID, c.DebtorID)
	if err != nil {
		return out, err
	}
	out.Debtor = ShowDebtor(d)
	pays, err := ChargePayments(ctx, q, c.OrganizationID, c.ID)
	if err != nil {
		return out, err
	}
	out.Payments = make([]paymentJSON, 0, len(pays))
	for _, p := range pays {
		out.Payments = append(out.Payments, showPayment(p))
	}
	if out.Enrollments, err = chargeEnrollments(ctx, q, c.OrganizationID, c.ID); err != nil {
		return out, err
	}
	out.Notifications, err = lastChargeNotifications(ctx, q, c.OrganizationID, c.ID)
	return out, err
}

// chargesList answers dunning_charges_list.
func (s *Service) chargesList(ctx context.Context, in *listChargesIn) (*rest.Response, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	f := chargeListFilter{Archived: in.Archived, DebtorRef: in.DebtorID, DueFrom: in.DueFrom, DueTo: in.DueTo, PlanRef: in.PlanID,
		Q: strings.TrimSpace(in.Q), Dir: sortDirection(in.SortOrder), Order: chargeSortColumns[in.SortBy]}
	for _, st := range in.Status {
		if _, err := lifecycle.Charges.Parse(strings.TrimSpace(st)); err != nil {
			return nil, Invalid("status", err.Error())
		}
		f.Statuses = append(f.Statuses, strings.TrimSpace(st))
	}
	if in.DueFrom != "" {
		if _, err := DateIn("due_from", in.DueFrom); err != nil {
			return nil, err
		}
	}
	if in.DueTo != "" {
		if _, err := DateIn("due_to", in.DueTo); err != nil {
			return nil, err
		}
	}
	page, perPage, offset := in.Window()
	f.Limit, f.Offset = perPage, offset
	rows, total, err := listCharges(ctx, s.DB, t.OrgID, f)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		// No amounts to work out: the settings are not read.
		return restkit.NumberedPage([]*chargeListJSON{}, page, perPage, total, func(v *chargeListJSON) *chargeListJSON { return v }), nil
	}
	st, err := loadFeeSettings(store.ShortRead(ctx), s.DB, t.OrgID)
	if err != nil {
		return nil, err
	}
	return s.chargesPage(rows, st, page, perPage, total)
}

// chargesPage is the numbered page of rows, their amounts for the
// organization's today, as chargeListJSON (ShowCharge's bytes), or as
// ChargeJSON when a row's time has no JSON form (chargeListJSON.set).
func (s *Service) chargesPage(rows []listedCharge, st Settings, page, perPage, total int) (*rest.Response, error) {
	on := st.Today(s.Clock())
	onText := dateText(on)
	rules := newFeeRules(st)
	list := make([]chargeListJSON, len(rows))
	ptrs := make([]*chargeListJSON, len(rows))
	var buf []byte
	for i := range rows {
		c := &rows[i].Charge
		if err := c.Decode(); err != nil {
			return nil, err
		}
		b, err := rules.breakdown(*c, on)
		if err != nil {
			return nil, err
		}
		var ok bool
		if buf, ok = list[i].set(c, b, onText, buf); !ok {
			return s.chargesPageAsViews(rows, st, page, perPage, total)
		}
		ptrs[i] = &list[i]
	}
	return restkit.NumberedPage(ptrs, page, perPage, total, func(v *chargeListJSON) *chargeListJSON { return v }), nil
}

// chargesPageAsViews is the page as ChargeJSON, whose encoding refuses a
// time without a JSON form, as it always did.
func (s *Service) chargesPageAsViews(rows []listedCharge, st Settings, page, perPage, total int) (*rest.Response, error) {
	charges := make([]Charge, len(rows))
	for i := range rows {
		charges[i] = rows[i].Charge
	}
	views, err := s.chargeViews(charges, st)
	if err != nil {
		return nil, err
	}
	return restkit.NumberedPage(views, page, perPage, total, func(v ChargeJSON) ChargeJSON { return v }), nil
}

// chargesGet answers dunning_charges_get.
func (s *Service) chargesGet(ctx context.Context, in *getChargeIn) (*rest.Response, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	var on bankcalendar.Date
	if in.On != "" {
		if on, err = DateIn("on", in.On); err != nil {
			return nil, err
		}
		if horizon := bankcalendar.DateOf(s.Clock()).AddDays(onHorizonDays); on.After(horizon) {
			return nil, Invalid("on", fmt.Sprintf("must be at most %d days after today (%s)", onHorizonDays, horizon))
		}
	}
	c, err := GetCharge(ctx, s.DB, t.OrgID, in.ID)
	if err != nil {
		return nil, NotFoundAs(err, "charge")
	}
	st, err := s.Settings(ctx, t.OrgID)
	if err != nil {
		return nil, err
	}
	detail, err := s.chargeDetail(ctx, s.DB, c, st, on)
	if err != nil {
		return nil, err
	}
	return rest.OK(map[string]any{"data": detail}), nil
}

// chargesCreate answers dunning_charges_create.
func (s *Service) chargesCreate(ctx context.Context, in *createChargeIn) (*rest.Response, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	c, err := s.createCharge(ctx, t.OrgID, in)
	if err != nil {
		return nil, err
	}
	st, err := s.Settings(ctx, t.OrgID)
	if err != nil {
		return nil, err
	}
	v, err := s.ChargeView(c, st, bankcalendar.Date{})
	if err != nil {
		return nil, err
	}
	return rest.Created(map[string]any{"data": v}), nil
}

// chargesUpdate answers dunning_charges_update.
func (s *Service) chargesUpdate(ctx context.Context, in *updateChargeIn) (*rest.Response, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	c, st, err := s.updateCharge(ctx, t.OrgID, in)
	if err != nil {
		return nil, err
	}
	v, err := s.ChargeView(c, st, bankcalendar.Date{})
	if err != nil {
		return nil, err
	}
	return rest.OK(map[string]any{"data": v}), nil
}

// describeChargesCancel is the confirmation dunning_charges_cancel asks for.
func (s *Service) describeChargesCancel(ctx context.Context, in *cancelChargeIn) (string, error) {
	verb, consequence := "Cancel", "Collection stops and the charge cannot be reopened."
	if in.WriteOff {
		verb, consequence = "Write off", "It becomes a loss, collection stops and the charge cannot be reopened."
	}
	return s.describeCharge(verb, consequence)(ctx, &ChargeRefIn{ID: in.ID})
}

// chargesCancel answers dunning_charges_cancel.
func (s *Service) chargesCancel(ctx context.Context, in *cancelChargeIn) (*rest.Response, error) {
	to := lifecycle.ChargeCanceled
	if in.WriteOff {
		to = lifecycle.ChargeWrittenOff
	}
	return s.closeCharge(ctx, in.ID, to)
}

// chargesArchive answers dunning_charges_archive.
func (s *Service) chargesArchive(ctx context.Context, in *ChargeRefIn) (*rest.Response, error) {
	return s.closeCharge(ctx, in.ID, "")
}

// describeCharge is the confirmation message of a destructive charge
// operation, naming the charge.
func (s *Service) describeCharge(verb, consequence string) rest.Describe[ChargeRefIn] {
	return func(ctx context.Context, in *ChargeRefIn) (string, error) {
		t, err := s.Tenant(ctx)
		if err != nil {
			return "", err
		}
		c, err := GetCharge(ctx, s.DB, t.OrgID, in.ID)
		if err != nil {
			return "", NotFoundAs(err, "charge")
		}
		d, err := GetDebtor(ctx, s.DB, t.OrgID, c.DebtorID)
		if err != nil {
			return "", err
		}
		ref := c.ID
		if c.ExternalID != nil {
			ref = "external id " + *c.ExternalID
		}
		return fmt.Sprintf("%s the %s charge of %s owed by '%s', due %s (%s)? %s", verb, c.Status, c.OpenAmount, d.Name, c.DueDate.BR(), ref, consequence), nil
	}
}

// createCharge stores a new charge and emits its events, all in one
// transaction.
func (s *Service) createCharge(ctx context.Context, orgID string, in *createChargeIn) (Charge, error) {
	r, err := s.checkNewCharge(in)
	if err != nil {
		return Charge{}, err
	}
	var c Charge
	err = s.DB.WithTx(ctx, func(tx *store.Tx) error {
		var err error
		c, err = s.storeNewCharge(ctx, tx, orgID, in.DebtorID, r)
		return err
	})
	if errors.Is(err, store.ErrConflict) && r.ExternalID != nil {
		// A concurrent create with the same external_id won at the unique
		// index.
		if old, e := chargeByExternal(ctx, s.DB, orgID, *r.ExternalID); e == nil {
			return Charge{}, externalIDTaken(old)
		}
	}
	return c, err
}

// checkNewCharge reads a new charge's fields, in the order they are
// answered when wrong: the amount, the due date, fine and interest, tags,
// custom data, the boleto's line (read against the clock's instant, which
// becomes the charge's creation) and the payment link. The row's ids and
// status are storeNewCharge's.
func (s *Service) checkNewCharge(in *createChargeIn) (newChargeRow, error) {
	var r newChargeRow
	var err error
	if r.Amount, err = positiveAmountIn("amount", in.Amount); err != nil {
		return r, err
	}
	if r.DueDate, err = DateIn("due_date", in.DueDate); err != nil {
		return r, err
	}
	if in.FinePercent != nil {
		if r.Fine, err = PercentIn("fine_percent", *in.FinePercent); err != nil {
			return r, err
		}
	}
	if in.InterestPercent != nil {
		if r.Interest, err = PercentIn("interest_percent", *in.InterestPercent); err != nil {
			return r, err
		}
	}
	tags, err := checkTags(in.Tags)
	if err != nil {
		return r, err
	}
	r.TagsJSON = MustJSON(tags)
	if r.CustomDataJSON, err = checkCustomData(in.CustomData); err != nil {
		return r, err
	}
	r.At = s.Clock()
	if r.Barcode, err = checkBarcode(in.Barcode, r.At); err != nil {
		return r, err
	}
	if r.Link, err = checkPaymentLink(in.PaymentLink); err != nil {
		return r, err
	}
	r.Origin = in.Origin
	if r.Origin == "" {
		r.Origin = OriginExternal
	}
	r.ExternalID = optionalText(in.ExternalID)
	r.Description = strings.TrimSpace(in.Description)
	r.OriginRef = optionalText(in.OriginRef)
	return r, nil
}

// storeNewCharge stores r, checked by checkNewCharge, as a charge of the
// debtor debtorRef (id or external_id) inside tx: the debtor must be the
// organization's and active, the rates within the caps of its kind, the
// external_id free. It starts pending, or overdue when its due date and
// grace are already past, and emits dunning.charge.created (then
// .overdue).
func (s *Service) storeNewCharge(ctx context.Context, tx *store.Tx, orgID, debtorRef string, r newChargeRow) (Charge, error) {
	d, err := GetDebtor(ctx, tx, orgID, debtorRef)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return Charge{}, Invalid("debtor_id", "no debtor of the organization has this id or external_id")
		}
		return Charge{}, err
	}
	if d.Status == DebtorArchived {
		return Charge{}, rest.Unprocessable("the debtor is archived: an upsert with its external_id makes it active again")
	}
	st, err := LoadSettings(ctx, tx, orgID)
	if err != nil {
		return Charge{}, err
	}
	if err := capError(st.Caps().Validate(d.FeeKind(), r.Fine, r.Interest)); err != nil {
		return Charge{}, err
	}
	if r.ExternalID != nil {
		if old, err := chargeByExternal(ctx, tx, orgID, *r.ExternalID); err == nil {
			return Charge{}, externalIDTaken(old)
		} else if !errors.Is(err, store.ErrNotFound) {
			return Charge{}, err
		}
	}
	r.Status = lifecycle.ChargePending
	if st.LateOn(r.DueDate, st.Today(r.At)) {
		now := r.At
		r.Status, r.OverdueAt = lifecycle.ChargeOverdue, &now
	}
	r.ID, r.OrganizationID, r.DebtorID = store.NewID(), orgID, d.ID
	if err := insertCharge(ctx, tx, r); err != nil {
		return Charge{}, err
	}
	c, err := GetCharge(ctx, tx, orgID, r.ID)
	if err != nil {
		return Charge{}, err
	}
	if err := s.EmitChargeEvent(ctx, tx, EventChargeCreated, c); err != nil {
		return c, err
	}
	if r.Status == lifecycle.ChargeOverdue {
		return c, s.EmitChargeEvent(ctx, tx, EventChargeOverdue, c)
	}
	return c, nil
}

// externalIDTaken is the CONFLICT of a second charge with an external_id,
// naming the charge that has it.
func externalIDTaken(old Charge) *rest.Error {
	return &rest.Error{Status: http.StatusConflict, Code: rest.CodeConflict,
		Message: fmt.Sprintf("a charge with external_id %q already exists: %s", *old.ExternalID, old.ID),
		Details: []rest.FieldError{{Field: "external_id", Message: "is taken by charge " + old.ID}}}
}

// updateCharge applies a change to a pending or overdue charge.
func (s *Service) updateCharge(ctx context.Context, orgID string, in *updateChargeIn) (Charge, Settings, error) {
	var c Charge
	var st Settings
	err := s.DB.WithTx(ctx, func(tx *store.Tx) error {
		old, err := LockCharge(ctx, tx, orgID, in.ID)
		if err != nil {
			return NotFoundAs(err, "charge")
		}
		if !old.Status.Collectible() {
			return rest.Unprocessable(fmt.Sprintf("a charge that is %s cannot be changed: only pending and overdue charges can", old.Status))
		}
		if st, err = LoadSettings(ctx, tx, orgID); err != nil {
			return err
		}
		next, err := patchCharge(ctx, tx, orgID, old, st, in, s.Clock())
		if err != nil {
			return err
		}
		if c, err = s.ApplyCharge(ctx, tx, old, ChargeChange{Next: next}); err != nil {
			return err
		}
		// A new due date moves every step of the charge's plans with it,
		// in the same transaction (the plans' due-moved hook).
		if in.DueDate != nil && c.DueDateText != old.DueDateText {
			return s.onDueMoved(ctx, tx, orgID, old.ID)
		}
		return nil
	})
	return c, st, err
}

// patchCharge is old with what in names checked and put over it, in the
// order fields are answered when wrong: its terms (amount, due date,
// description, fine, interest) within the caps of its debtor's kind, its
// references (origin_ref, barcode, payment link, tags, custom data) and,
// when the due date changed, the status that date gives it.
func patchCharge(ctx context.Context, q store.Querier, orgID string, old Charge, st Settings, in *updateChargeIn, now time.Time) (Charge, error) {
	c, err := patchChargeTerms(old, in)
	if err != nil {
		return c, err
	}
	if in.FinePercent != nil || in.InterestPercent != nil {
		d, err := GetDebtor(ctx, q, orgID, old.DebtorID)
		if err != nil {
			return c, err
		}
		if err := capError(st.Caps().Validate(d.FeeKind(), c.Fine, c.Interest)); err != nil {
			return c, err
		}
	}
	if err := patchChargeRefs(&c, in, now); err != nil {
		return c, err
	}
	if in.DueDate != nil {
		if c.Status, err = statusOnNewDue(c, st, now); err != nil {
			return c, err
		}
	}
	return c, nil
}

// patchChargeTerms puts in's amount, due date, description, fine and
// interest over old. A new amount keeps what was paid: the open amount
// moves by the same difference, and the amount must stay above it.
func patchChargeTerms(old Charge, in *updateChargeIn) (Charge, error) {
	c := old
	var err error
	if in.Amount != nil {
		amount, err := positiveAmountIn("amount", *in.Amount)
		if err != nil {
			return c, err
		}
		paid := old.Amount - old.OpenAmount
		if amount <= paid {
			return c, Invalid("amount", fmt.Sprintf("must be more than the %s already paid", paid))
		}
		c.Amount, c.OpenAmount = amount, amount-paid
	}
	if in.DueDate != nil {
		if c.DueDate, err = DateIn("due_date", *in.DueDate); err != nil {
			return c, err
		}
		c.DueDateText = c.DueDate.String()
	}
	if in.Description != nil {
		c.Description = strings.TrimSpace(*in.Description)
	}
	if in.FinePercent != nil {
		if c.Fine, err = PercentIn("fine_percent", *in.FinePercent); err != nil {
			return c, err
		}
	}
	if in.InterestPercent != nil {
		if c.Interest, err = PercentIn("interest_percent", *in.InterestPercent); err != nil {
			return c, err
		}
	}
	return c, nil
}

// patchChargeRefs puts in's origin reference, boleto line (read against
// now), payment link, tags and custom data over c.
func patchChargeRefs(c *Charge, in *updateChargeIn, now time.Time) error {
	var err error
	if in.OriginRef != nil {
		c.OriginRef = optionalText(*in.OriginRef)
	}
	if in.Barcode != nil {
		if c.Barcode, err = checkBarcode(*in.Barcode, now); err != nil {
			return err
		}
	}
	if in.PaymentLink != nil {
		if c.PaymentLink, err = checkPaymentLink(*in.PaymentLink); err != nil {
			return err
		}
	}
	if in.Tags != nil {
		if c.Tags, err = checkTags(*in.Tags); err != nil {
			return err
		}
	}
	if in.CustomData != nil {
		if c.CustomDataJSON, err = checkCustomData(*in.CustomData); err != nil {
			return err
		}
	}
	return nil
}

// statusOnNewDue is the status a charge takes when its due date moves: a
// new due date may make a pending charge late (it turns overdue now, as
// the sweep would) or an overdue one on time, which the status machine
// does not allow.
func statusOnNewDue(c Charge, st Settings, now time.Time) (lifecycle.ChargeStatus, error) {
	late := st.LateOn(c.DueDate, st.Today(now))
	switch {
	case late && c.Status == lifecycle.ChargePending:
		return lifecycle.ChargeOverdue, nil
	case !late && c.Status == lifecycle.ChargeOverdue:
		if err := c.Status.CanBecome(lifecycle.ChargePending); err != nil {
			return c.Status, rest.Unprocessable(err.Error() + ": a due date within its grace would make it pending again")
		}
	}
	return c.Status, nil
}

// closeCharge takes a charge out of collection, stopping its enrollments
// in the same transaction (onChargeClosed): to canceled or written_off,
// or, with to empty, archives it. Repeating either changes nothing and
// answers the charge as it is. Only a cancellation emits an event
// (dunning.charge.canceled): the catalog has none for a write-off or an
// archive.
func (s *Service) closeCharge(ctx context.Context, ref string, to lifecycle.ChargeStatus) (*rest.Response, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	var c Charge
	err = s.Nonces.WithTx(ctx, func(tx *store.Tx) error {
		old, err := LockCharge(ctx, tx, t.OrgID, ref)
		if err != nil {
			return NotFoundAs(err, "charge")
		}
		c = old
		next := old
		if to == "" {
			if old.ArchivedAt != nil {
				return nil
			}
			now := s.Clock()
			next.ArchivedAt = &now
		} else {
			if err := old.Status.CanBecome(to); err != nil {
				if errors.Is(err, lifecycle.ErrNoChange) {
					return nil
				}
				return TransitionError(err)
			}
			// canceled_at records when the charge left collection,
			// canceled or written off (applyCharge stamps it).
			next.Status = to
		}
		c, err = s.ApplyCharge(ctx, tx, old, ChargeChange{Next: next})
		return err
	})
	if err != nil {
		return nil, err
	}
	st, err := s.Settings(ctx, t.OrgID)
	if err != nil {
		return nil, err
	}
	v, err := s.ChargeView(c, st, bankcalendar.Date{})
	if err != nil {
		return nil, err
	}
	return rest.OK(map[string]any{"data": v}), nil
}
