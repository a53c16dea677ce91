package collection

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kobana/kobana-mcp/dunning/contact"
	"github.com/kobana/kobana-mcp/dunning/latefee"
	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/lifecycle"
	"github.com/kobana/kobana-mcp/dunning/msgtemplate"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/brazil"
	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

// The preview (docs/decisions.md "Dunning: collection plans and
// enrollments"): the exact calendar of what a plan would do to one charge
// — each step's instant after business days and quiet hours with the
// reasons it moved, the channel and address it would use or why it would
// be skipped, and the message as the debtor would read it — computed from
// the same calendar enrolling uses, without sending or storing anything.
// It is how a person checks a régua on a real debtor before the debtor
// sees it.

// Preview outcomes of a step.
const (
	outcomeSend              = "send"
	outcomeSendAfterApproval = "send_after_approval"
	outcomeSkip              = "skip"
	SkipPast                 = "past"
	skipAlreadyRun           = "already_run"
	SkipChargeNotCollectible = "charge_not_collectible"
	skipActionNotAvailable   = "action_not_available"
	SkipChannelDisabled      = "channel_disabled"
	SkipOptedOut             = "opted_out"
	skipNoEmail              = "no_email"
	skipNoPhone              = "no_phone"
	skipNoMobilePhone        = "no_mobile_phone"
	SkipMissingValues        = "missing_values"
	skipTooLong              = "too_long"
)

// previewAmountsJSON is what the charge would cost on the day a step runs:
// the figures its message shows.
type previewAmountsJSON struct {
	On             bankcalendar.Date `json:"on"`
	OpenAmount     money.Cents       `json:"open_amount"`
	FineAmount     money.Cents       `json:"fine_amount"`
	InterestAmount money.Cents       `json:"interest_amount"`
	UpdatedAmount  money.Cents       `json:"updated_amount"`
	DaysLate       int               `json:"days_late"`
}

// previewStepJSON is one step of the preview.
type previewStepJSON struct {
	Position         int                 `json:"position"`
	StepID           string              `json:"step_id"`
	Day              string              `json:"day"`
	OffsetDays       int                 `json:"offset_days"`
	SendTime         string              `json:"send_time"`
	Channel          string              `json:"channel"`
	Action           string              `json:"action"`
	RequiresApproval bool                `json:"requires_approval"`
	BusinessDays     bool                `json:"business_days"`
	NominalDate      bankcalendar.Date   `json:"nominal_date"`
	RunDate          bankcalendar.Date   `json:"run_date"`
	RunTime          string              `json:"run_time"`
	RunAt            time.Time           `json:"run_at"`
	RunAtLocal       string              `json:"run_at_local"`
	Moves            []string            `json:"moves"`
	Outcome          string              `json:"outcome"`
	SkipReason       *string             `json:"skip_reason"`
	SkipDetail       *string             `json:"skip_detail"`
	To               *string             `json:"to"`
	Subject          *string             `json:"subject"`
	Message          *string             `json:"message"`
	RenderError      *string             `json:"render_error"`
	Length           *msgtemplate.Length `json:"length"`
	Amounts          previewAmountsJSON  `json:"amounts"`
	// Pix is the Pix code the message carries on its day (its
	// {{pix.copia_e_cola}} and {{pix.qr_url}}; in e-mail the QR also goes
	// inline), null when the message uses neither or there is none.
	Pix *ledger.PixOfDay `json:"pix"`
	// Notices are what the person checking the régua should know about
	// the message that is not a reason to skip it: a Pix variable that
	// renders empty because the creditor has no Pix key.
	Notices []string `json:"notices"`
}

// previewSummaryJSON counts the preview's steps by outcome.
type previewSummaryJSON struct {
	Steps             int        `json:"steps"`
	Send              int        `json:"send"`
	SendAfterApproval int        `json:"send_after_approval"`
	Skip              int        `json:"skip"`
	NextRunAt         *time.Time `json:"next_run_at"`
}

// PreviewJSON is the preview's answer.
type PreviewJSON struct {
	GeneratedAt time.Time          `json:"generated_at"`
	Timezone    string             `json:"timezone"`
	QuietHours  map[string]string  `json:"quiet_hours"`
	Charge      ledger.ChargeJSON  `json:"charge"`
	Debtor      ledger.DebtorJSON  `json:"debtor"`
	Plan        PlanJSON           `json:"plan"`
	Enrollment  *EnrollmentJSON    `json:"enrollment"`
	Summary     previewSummaryJSON `json:"summary"`
	Steps       []previewStepJSON  `json:"steps"`
}

func registerPreview(api *rest.API, s *Service) {
	rest.Handle(api, rest.Operation{
		ID: "dunning_charges_preview", Method: "POST", Path: "/charges/{id}/collection-plans/{cp_id}/preview", Tags: []string{"enrollments"},
		Title: "Preview a collection plan on a charge",
		Summary: "Shows the exact calendar of what a collection plan would do to this charge if enrolled now, without sending or storing anything: " +
			"for each step the instant it would run (after business days — weekends, bank holidays such as Carnival and Good Friday, the " +
			"organization's closed days — and quiet hours, with the reasons it moved), the channel and the address it would use, or why it would " +
			"be skipped (already past, the debtor opted out of the channel, no e-mail or phone), and the message rendered as the debtor would read " +
			"it, with the charge's updated amount on that day.",
		Description: "Read-only. Any plan can be previewed, drafts included: this is how a régua is checked before it is activated.",
		Requires:    PlansRead, Annotations: restkit.ReadOnly(),
	}, s.chargesPreview)
}

// chargesPreview answers dunning_charges_preview.
func (s *Service) chargesPreview(ctx context.Context, in *enrollmentRefIn) (*rest.Response, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	out, err := s.preview(ctx, s.DB, t.OrgID, in)
	if err != nil {
		return nil, err
	}
	return rest.OK(map[string]any{"data": out}), nil
}

// preview computes the preview of a plan on a charge, reading q only.
func (s *Service) preview(ctx context.Context, q store.Querier, orgID string, in *enrollmentRefIn) (PreviewJSON, error) {
	c, p, err := s.enrollable(ctx, q, orgID, in, false)
	if err != nil {
		return PreviewJSON{}, err
	}
	d, err := ledger.GetDebtor(ctx, q, orgID, c.DebtorID)
	if err != nil {
		return PreviewJSON{}, err
	}
	st, err := ledger.LoadSettings(ctx, q, orgID)
	if err != nil {
		return PreviewJSON{}, err
	}
	cal, err := ChargePlanCalendar(ctx, q, c, p, st)
	if err != nil {
		return PreviewJSON{}, err
	}
	var pix *ledger.PixReceiver
	if r, ok, err := ledger.LoadPixReceiver(ctx, q, orgID); err != nil {
		return PreviewJSON{}, err
	} else if ok {
		pix = &r
	}
	orgName := ""
	if org, err := s.Accounts.GetOrganization(ctx, orgID); err == nil {
		orgName = org.Name
	}
	portal, err := s.PortalURL(ctx, q, st, d)
	if err != nil {
		return PreviewJSON{}, err
	}
	now := s.Clock()
	today := st.Today(now)
	b, err := ledger.ChargeBreakdown(c, st, today)
	if err != nil {
		return PreviewJSON{}, err
	}
	out := PreviewJSON{GeneratedAt: now, Timezone: st.Timezone, QuietHours: map[string]string{"start": st.QuietStart, "end": st.QuietEnd},
		Charge: ledger.ShowCharge(c, b, today), Debtor: ledger.ShowDebtor(d), Plan: showPlan(p), Steps: []previewStepJSON{}}
	done := map[string]bool{}
	if e, err := GetEnrollment(ctx, q, orgID, c.ID, p.ID, ""); err == nil {
		ej := showEnrollment(e)
		out.Enrollment = &ej
		if e.Status == string(lifecycle.EnrollmentActive) {
			if done, err = DoneSteps(ctx, q, e.ID); err != nil {
				return PreviewJSON{}, err
			}
		}
	} else if !errors.Is(err, store.ErrNotFound) {
		return PreviewJSON{}, err
	}
	for i, e := range cal {
		ps, err := s.previewStep(i+1, e, c, d, st, msgParties{orgName, portal}, now, done, pix)
		if err != nil {
			return PreviewJSON{}, err
		}
		out.Steps = append(out.Steps, ps)
		out.Summary.Steps++
		switch ps.Outcome {
		case outcomeSend:
			out.Summary.Send++
		case outcomeSendAfterApproval:
			out.Summary.SendAfterApproval++
		default:
			out.Summary.Skip++
		}
		if ps.Outcome != outcomeSkip && out.Summary.NextRunAt == nil {
			at := ps.RunAt
			out.Summary.NextRunAt = &at
		}
	}
	return out, nil
}

// msgParties are the organization's name and the debtor's page link
// (made now, as a message sent now would carry it) a preview's messages
// are filled in with.
type msgParties struct{ orgName, portal string }

// previewStep is one calendar entry as the preview shows it: when it
// runs, what the charge costs that day, and what it would do — skipped
// for the first reason that applies (already run or past, the charge out
// of collection; for a message also the channel off, an opt-out, no
// address, a message that cannot be filled in or is too long), else sent,
// after approval when the step needs one. An escalating step sends no
// message and always waits for approval.
func (s *Service) previewStep(pos int, e CalendarEntry, c ledger.Charge, d ledger.Debtor, st ledger.Settings, parties msgParties, now time.Time, done map[string]bool, pix *ledger.PixReceiver) (previewStepJSON, error) {
	zone := st.Location
	if zone == nil {
		zone = time.UTC
	}
	ps := newPreviewStep(pos, e, zone)
	b, err := ledger.ChargeBreakdown(c, st, e.Run.Date)
	if err != nil {
		return ps, err
	}
	ps.Amounts = previewAmountsJSON{On: e.Run.Date, OpenAmount: b.Open, FineAmount: b.Fine, InterestAmount: b.Interest,
		UpdatedAmount: b.Updated, DaysLate: b.DaysLate}
	switch {
	case done[e.Step.ID]:
		ps.skip(skipAlreadyRun, "this enrollment already ran this step (it is in the notification log or waiting for approval)")
	case !e.Run.At.After(now):
		ps.skip(SkipPast, fmt.Sprintf("its instant, %s, is already past: enrolling now never sends it late", ps.RunAtLocal))
	}
	if err := ChargeCollectible(c); err != nil {
		ps.skip(SkipChargeNotCollectible, err.Error())
	}
	if e.Step.Action != ActionNotify {
		// An escalating step sends no message: it always waits for a
		// person's approval, then runs through its route's rules.
		ps.RequiresApproval = true
		ps.Outcome = ps.outcome()
		return ps, nil
	}
	ps.reach(e.Step.Channel, d, st, zone)
	code, err := s.ChargePix(pix, c, b, e.Run.Date)
	if err != nil {
		return ps, err
	}
	vals := StepMessageValues(parties.orgName, d, c, b, code, e.Run.Date)
	vals.DebtorPortalURL = parties.portal
	ps.render(e.Step, vals)
	if uses := stepUsesPix(e.Step); uses && code != nil {
		ps.Pix = code
	} else if uses && pix == nil {
		ps.Notices = append(ps.Notices, NoticeNoPixKey)
	}
	ps.Outcome = ps.outcome()
	return ps, nil
}

// NoticeNoPixKey is the preview's notice of a message whose Pix variables
// render empty because the creditor has no Pix key.
const NoticeNoPixKey = "the creditor has no Pix key: {{pix.copia_e_cola}} and {{pix.qr_url}} render empty (PUT /v1/settings/creditor sets one)"

// ChargePix is charge c's Pix code on day (b its breakdown then) for the
// receiver r, with its signed QR link; nil without a receiver or with
// nothing to pay.
func (s *Service) ChargePix(r *ledger.PixReceiver, c ledger.Charge, b latefee.Breakdown, day bankcalendar.Date) (*ledger.PixOfDay, error) {
	if r == nil {
		return nil, nil
	}
	p, ok, err := ledger.ChargePixOfDay(*r, c, b, day, s.PixQR)
	if err != nil || !ok {
		return nil, err
	}
	return &p, nil
}

// stepUsesPix is whether the step's message names a Pix variable.
func stepUsesPix(step StepRecord) bool {
	text := step.Template
	if step.Subject != nil {
		text += *step.Subject
	}
	return UsesPix(text)
}

// UsesPix is whether a template text names a Pix variable; one that does
// not parse names none.
func UsesPix(text string) bool {
	t, err := msgtemplate.Parse(text)
	if err != nil {
		return false
	}
	for _, v := range t.Variables() {
		if v == msgtemplate.PixCopiaECola || v == msgtemplate.PixQRURL {
			return true
		}
	}
	return false
}

// newPreviewStep is e's step and instants as the preview shows them, the
// local instant in zone.
func newPreviewStep(pos int, e CalendarEntry, zone *time.Location) previewStepJSON {
	moves := e.Run.Moves
	if moves == nil {
		moves = []string{}
	}
	return previewStepJSON{Notices: []string{}, Position: pos, StepID: e.Step.ID, Day: StepDay(e.Step.OffsetDays), OffsetDays: e.Step.OffsetDays,
		SendTime: e.Step.SendTime, Channel: e.Step.Channel, Action: e.Step.Action, RequiresApproval: e.Step.RequiresApproval != 0,
		BusinessDays: e.Step.BusinessDays != 0, NominalDate: e.Nominal, RunDate: e.Run.Date, RunTime: e.Run.Time.String(),
		RunAt: e.Run.At, RunAtLocal: e.Run.At.In(zone).Format(time.RFC3339), Moves: moves}
}

// skip records why the step would not run, unless an earlier reason
// already did: the first reason found is the one shown.
func (ps *previewStepJSON) skip(reason, detail string) {
	if ps.SkipReason == nil {
		ps.SkipReason, ps.SkipDetail = &reason, &detail
	}
}

// reach is whether the debtor can be reached on channel: the organization
// sends on it, the debtor did not opt out of it (when and why, in zone's
// dates) and has an address for it, which becomes the step's To.
func (ps *previewStepJSON) reach(channel string, d ledger.Debtor, st ledger.Settings, zone *time.Location) {
	if !st.ChannelEnabled(channel) {
		ps.skip(SkipChannelDisabled, fmt.Sprintf("the organization does not send on %s (its settings)", channel))
	}
	if d.OptedOut(channel) {
		detail := fmt.Sprintf("the debtor opted out of %s", channel)
		for _, o := range d.OptOuts {
			if o.Channel == channel {
				detail += fmt.Sprintf(" on %s (%s)", o.CreatedAt.In(zone).Format("2006-01-02"), o.Reason)
			}
		}
		ps.skip(SkipOptedOut, detail)
	}
	to, reason, detail := StepAddress(d, channel)
	if to != "" {
		ps.To = &to
	} else {
		ps.skip(reason, detail)
	}
}

// render fills in the step's subject and message with vals and measures
// the message on its channel: a message too long for it, or one that
// cannot be filled in (RenderError, the subject's problem first), is
// skipped.
func (ps *previewStepJSON) render(step StepRecord, vals msgtemplate.Values) {
	if step.Subject != nil {
		if subj, err := msgtemplate.Render(*step.Subject, vals); err == nil {
			ps.Subject = &subj
		} else {
			msg := "subject: " + err.Error()
			ps.RenderError = &msg
		}
	}
	text, err := msgtemplate.Render(step.Template, vals)
	if err == nil {
		ps.Message = &text
		l := msgtemplate.Measure(msgtemplate.Channel(step.Channel), text)
		ps.Length = &l
		if !l.Fits {
			ps.skip(skipTooLong, fmt.Sprintf("the message is %s; a %s message may be %s", stepDescribeLength(l), step.Channel, l.Limit))
		}
	} else {
		msg := err.Error()
		if ps.RenderError != nil {
			msg = *ps.RenderError + "; " + msg
		}
		ps.RenderError = &msg
	}
	if ps.RenderError != nil {
		ps.skip(SkipMissingValues, "the message cannot be filled in for this charge: "+*ps.RenderError)
	}
}

// outcome is what the step would do as found so far: skip for a skip
// reason, else send, after approval when the step needs one.
func (ps *previewStepJSON) outcome() string {
	switch {
	case ps.SkipReason != nil:
		return outcomeSkip
	case ps.RequiresApproval:
		return outcomeSendAfterApproval
	default:
		return outcomeSend
	}
}

// StepAddress is where a step on channel reaches the debtor: the first
// e-mail address for e-mail, the first mobile number for SMS (only a
// mobile receives SMS), and for WhatsApp the first mobile number too, as
// the debtors' phones are documented to be preferred, else the first
// phone (an account may sit on a fixed line). With none, it says why (a
// skip reason and its words).
func StepAddress(d ledger.Debtor, channel string) (to, reason, detail string) {
	switch channel {
	case ledger.ChannelEmail:
		if len(d.Emails) > 0 {
			return d.Emails[0], "", ""
		}
		return "", skipNoEmail, "the debtor has no e-mail address"
	case ledger.ChannelSMS:
		for _, ph := range d.Phones {
			if p, err := contact.ParseMobile(ph); err == nil {
				return p.E164, "", ""
			}
		}
		if len(d.Phones) > 0 {
			return "", skipNoMobilePhone, "SMS needs a mobile number and none of the debtor's phones is one"
		}
		return "", skipNoPhone, "the debtor has no phone number"
	case ledger.ChannelWhatsApp:
		for _, ph := range d.Phones {
			if p, err := contact.ParseMobile(ph); err == nil {
				return p.E164, "", ""
			}
		}
		if len(d.Phones) > 0 {
			return d.Phones[0], "", ""
		}
		return "", skipNoPhone, "the debtor has no phone number"
	}
	return "", skipNoEmail, "unknown channel " + channel
}

// StepMessageValues are the values a step's message is filled in with for
// a charge on day (b, its breakdown then): the debtor's name and
// formatted document, the amounts in reais, the due date, the days late,
// the boleto line and payment link when the charge has them, and its Pix
// code of the day (pix; nil: the Pix variables render empty).
func StepMessageValues(orgName string, d ledger.Debtor, c ledger.Charge, b latefee.Breakdown, pix *ledger.PixOfDay, day bankcalendar.Date) msgtemplate.Values {
	v := msgtemplate.Values{DebtorName: d.Name, DebtorDocument: brazil.FormatDocument(d.Document), Amount: c.Amount,
		UpdatedAmount: b.Updated, DueDate: c.DueDate, Description: c.Description, DaysLate: b.DaysLate, OrganizationName: orgName}
	if c.Barcode != nil {
		v.Barcode = *c.Barcode
		if bo, err := brazil.DecodeBoleto(*c.Barcode, time.Date(day.Year(), day.Month(), day.Day(), 12, 0, 0, 0, time.UTC)); err == nil {
			v.LinhaDigitavel = bo.FormattedLine
		}
	}
	if pix != nil {
		v.PixCopiaECola, v.PixQRURL = pix.Payload, pix.QRURL
	}
	if c.PaymentLink != nil {
		v.PaymentLink = *c.PaymentLink
	}
	return v
}
