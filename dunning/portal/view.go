package portal

import (
	"context"
	"net/url"
	"strconv"
	"time"

	"github.com/kobana/kobana-mcp/dunning/escalation"
	"github.com/kobana/kobana-mcp/dunning/files"
	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/brazil"
	"github.com/kobana/kobana-mcp/platform/pagetext"
)

// maxPayments the page lists, newest first.
const maxPayments = 50

// view is what the page shows. Every word is the catalogue's
// (platform/pagetext) in the request's language; the data is the
// debtor's, the creditor's and the amounts of today.
type view struct {
	Kind  string // page or message
	L     *pagetext.Printer
	Title string
	// Message pages: their title and text keys.
	TitleKey, TextKey pagetext.Key
	Status            int
	Assets            string
	Link              string // the page's own path

	Creditor   creditorView
	DebtorName string
	Today      string
	Charges    []chargeView
	Offers     []offerView
	OfferToken string
	Accepted   bool
	Changed    bool
	Payments   []paymentView
	Channels   []channelView
	OptToken   string
}

type creditorView struct{ Name, Document, Address string }

// chargeView is one open charge with its amounts of today: the ledger's
// breakdown (ledger.ChargeBreakdown), the same figures its reminders,
// its Pix code and the statement carry.
type chargeView struct {
	ID, Title, DueDate            string
	DaysLate                      int
	Open, Fine, Interest, Updated string
	Pix, QRPath, Line             string
	Index                         int
}

type offerView struct {
	Installments    int
	Value           string // installments:total, what the form sends
	Total, Discount string
	HasDiscount     bool
	Parts           []partView
}

type partView struct {
	Number       int
	Amount, Date string
}

type paymentView struct{ Date, What, Amount string }

type channelView struct {
	Channel, Word string
	Stopped       bool
}

// relative is a link of the product as a path: the page names its QR
// codes on its own origin (img-src 'self'), whatever the public URL.
func relative(link string) string {
	u, err := url.Parse(link)
	if err != nil {
		return ""
	}
	return u.EscapedPath()
}

// build fills v for debtor d of link t, on now.
func (s *Service) build(ctx context.Context, v *view, d ledger.Debtor, now time.Time) error {
	orgID := d.OrganizationID
	st, err := ledger.LoadSettings(ctx, s.DB, orgID)
	if err != nil {
		return err
	}
	today := st.Today(now)
	v.Today, v.DebtorName = today.BR(), d.Name
	if v.Creditor, err = s.creditor(ctx, orgID); err != nil {
		return err
	}
	charges, err := ledger.OpenChargesOfDebtor(ctx, s.DB, orgID, d.ID)
	if err != nil {
		return err
	}
	rcv, hasPix, err := ledger.LoadPixReceiver(ctx, s.DB, orgID)
	if err != nil {
		return err
	}
	for i, c := range charges {
		cv, err := s.chargeView(c, st, today, rcv, hasPix)
		if err != nil {
			return err
		}
		cv.Index = i + 1
		v.Charges = append(v.Charges, cv)
	}
	offers, err := s.PortalOffers(ctx, s.DB, st, d.ID, today)
	if err != nil {
		return err
	}
	for _, o := range offers {
		v.Offers = append(v.Offers, offerViewOf(v.L, o))
	}
	pays, err := ledger.DebtorPayments(ctx, s.DB, orgID, d.ID, maxPayments)
	if err != nil {
		return err
	}
	for _, p := range pays {
		what := p.Description
		if what == "" {
			what = v.L.Say("portal.charge.untitled")
		}
		v.Payments = append(v.Payments, paymentView{Date: bankcalendar.DateOf(p.PaidAt.In(st.Location)).BR(), What: what, Amount: p.Amount.String()})
	}
	for _, ch := range ledger.Channels {
		v.Channels = append(v.Channels, channelView{Channel: ch, Word: v.L.Say(pagetext.Key("portal.channel." + ch)), Stopped: d.OptedOut(ch)})
	}
	return nil
}

// chargeView is c on today.
func (s *Service) chargeView(c ledger.Charge, st ledger.Settings, today bankcalendar.Date, rcv ledger.PixReceiver, hasPix bool) (chargeView, error) {
	b, err := ledger.ChargeBreakdown(c, st, today)
	if err != nil {
		return chargeView{}, err
	}
	cv := chargeView{ID: c.ID, Title: c.Description, DueDate: c.DueDate.BR(), DaysLate: b.DaysLate, Open: b.Open.String(),
		Fine: b.Fine.String(), Interest: b.Interest.String(), Updated: b.Updated.String()}
	if hasPix {
		code, ok, err := ledger.ChargePixOfDay(rcv, c, b, today, s.PixQR)
		if err != nil {
			return cv, err
		}
		if ok {
			cv.Pix, cv.QRPath = code.Payload, relative(code.QRURL)
		}
	}
	if c.Barcode != nil && *c.Barcode != "" {
		// The linha digitável of the charge's barcode (FEBRABAN), as its
		// reminders' {{charge.linha_digitavel}}.
		if bo, err := brazil.DecodeBoleto(*c.Barcode, time.Date(today.Year(), today.Month(), today.Day(), 12, 0, 0, 0, time.UTC)); err == nil {
			cv.Line = bo.FormattedLine
		}
	}
	return cv, nil
}

func offerViewOf(l *pagetext.Printer, o escalation.AgreementOffer) offerView {
	ov := offerView{Installments: o.Installments, Value: strconv.Itoa(o.Installments) + ":" + strconv.FormatInt(int64(o.Total), 10),
		Total: o.Total.String(), Discount: o.Discount.String(), HasDiscount: o.Discount > 0}
	for i, p := range o.Parts {
		ov.Parts = append(ov.Parts, partView{Number: i + 1, Amount: p.String(), Date: o.Dates[i].BR()})
	}
	return ov
}

// creditor is who the page says collects: the creditor the documents
// print (dunning_creditors), else the organization's name — CDC
// (Lei 8.078/1990) art. 42-A asks every document of a debt collection
// to name the creditor's name, address and CPF or CNPJ.
func (s *Service) creditor(ctx context.Context, orgID string) (creditorView, error) {
	c, err := ledger.LoadCreditor(ctx, s.DB, orgID)
	if err == nil {
		cv := creditorView{Name: c.LegalName, Document: brazil.FormatDocument(c.Document)}
		if a := c.Address(); a != nil {
			cv.Address = files.AddressLine(a)
		}
		return cv, nil
	}
	org, err2 := s.Accounts.GetOrganization(ctx, orgID)
	if err2 != nil {
		return creditorView{}, err2
	}
	return creditorView{Name: org.Name}, nil
}
