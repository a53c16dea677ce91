package ledger

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/kobana/kobana-mcp/dunning/latefee"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
)

// A page of dunning_charges_list as the API shows it, written with less
// work per row than ChargeJSON (docs/decisions.md, "Dunning's listing CPU,
// second round"): encoding/json calls a MarshalJSON (and then re-reads
// its output) for every amount, percentage, date and time of ChargeJSON,
// twelve or more per charge. Here they are text made once per row, in one
// string, and the fields are json.Number or string: encoding/json writes
// a json.Number as it is and a string of digits, dashes and colons as it
// is, so the bytes are ChargeJSON's (TestChargeListJSONIsChargeJSON).

// chargeListJSON is ChargeJSON with its money, percentages, dates and
// times as their JSON text; same fields, same order, same names.
type chargeListJSON struct {
	ID              string         `json:"id"`
	ExternalID      *string        `json:"external_id"`
	DebtorID        string         `json:"debtor_id"`
	Amount          json.Number    `json:"amount"`
	OpenAmount      json.Number    `json:"open_amount"`
	PaidAmount      json.Number    `json:"paid_amount"`
	FineAmount      json.Number    `json:"fine_amount"`
	InterestAmount  json.Number    `json:"interest_amount"`
	UpdatedAmount   json.Number    `json:"updated_amount"`
	DaysLate        int            `json:"days_late"`
	AmountsOn       string         `json:"amounts_on"`
	DueDate         string         `json:"due_date"`
	Description     string         `json:"description"`
	FinePercent     json.Number    `json:"fine_percent"`
	InterestPercent json.Number    `json:"interest_percent"`
	Origin          string         `json:"origin"`
	OriginRef       *string        `json:"origin_ref"`
	Barcode         *string        `json:"barcode"`
	PaymentLink     *string        `json:"payment_link"`
	Tags            []string       `json:"tags"`
	CustomData      map[string]any `json:"custom_data"`
	Status          string         `json:"status"`
	Archived        bool           `json:"archived"`
	ArchivedAt      *string        `json:"archived_at"`
	OverdueAt       *string        `json:"overdue_at"`
	PaidAt          *string        `json:"paid_at"`
	CanceledAt      *string        `json:"canceled_at"`
	LastNotifiedAt  *string        `json:"last_notified_at"`
	CreatedAt       string         `json:"created_at"`
	UpdatedAt       string         `json:"updated_at"`

	// times hold the text the set optional times point to.
	times [5]string
}

// set makes o the charge c with its breakdown b on the day whose text is
// on (dateText), through buf (returned for the next row); false when a
// time has no RFC 3339 form (a year outside 0–9999, an offset of 24 h or
// more): then ChargeJSON's encoding must refuse it, as it always did.
func (o *chargeListJSON) set(c *Charge, b latefee.Breakdown, on string, buf []byte) ([]byte, bool) {
	// Every number, date and time of the row into buf, then one string,
	// sliced: one allocation per row.
	buf = buf[:0]
	var ends [16]int
	n := 0
	mark := func() { ends[n] = len(buf); n++ }
	for _, f := range [...]float64{c.Amount.Float64(), c.OpenAmount.Float64(), (c.Amount - c.OpenAmount).Float64(),
		b.Fine.Float64(), b.Interest.Float64(), b.Updated.Float64(), c.Fine.Float64(), c.Interest.Float64()} {
		buf = strconv.AppendFloat(buf, f, 'f', -1, 64)
		mark()
	}
	buf = appendDate(buf, c.DueDate)
	mark()
	var ok bool
	for _, t := range [...]*time.Time{&c.CreatedAt, &c.UpdatedAt, c.ArchivedAt, c.OverdueAt, c.PaidAt, c.CanceledAt, c.LastNotifiedAt} {
		if t != nil {
			if buf, ok = appendRFC3339(buf, *t); !ok {
				return buf, false
			}
		}
		mark()
	}
	s := string(buf)
	part := func(k int) string {
		if k == 0 {
			return s[:ends[0]]
		}
		return s[ends[k-1]:ends[k]]
	}
	*o = chargeListJSON{ID: c.ID, ExternalID: c.ExternalID, DebtorID: c.DebtorID,
		Amount: json.Number(part(0)), OpenAmount: json.Number(part(1)), PaidAmount: json.Number(part(2)),
		FineAmount: json.Number(part(3)), InterestAmount: json.Number(part(4)), UpdatedAmount: json.Number(part(5)),
		DaysLate: b.DaysLate, AmountsOn: on, DueDate: part(8), Description: c.Description,
		FinePercent: json.Number(part(6)), InterestPercent: json.Number(part(7)), Origin: c.Origin, OriginRef: c.OriginRef,
		Barcode: c.Barcode, PaymentLink: c.PaymentLink, Tags: c.Tags, CustomData: c.CustomData, Status: string(c.Status),
		Archived: c.ArchivedAt != nil, CreatedAt: part(9), UpdatedAt: part(10)}
	for j, dst := range [...]**string{&o.ArchivedAt, &o.OverdueAt, &o.PaidAt, &o.CanceledAt, &o.LastNotifiedAt} {
		if p := part(11 + j); p != "" {
			o.times[j] = p
			*dst = &o.times[j]
		}
	}
	return buf, true
}

// dateText is d as bankcalendar.Date's JSON text (its MarshalText).
func dateText(d bankcalendar.Date) string {
	return string(appendDate(nil, d))
}

// appendDate appends d as Date.String writes it, "2026-03-10".
func appendDate(b []byte, d bankcalendar.Date) []byte {
	y := d.Year()
	if y < 0 || y > 9999 {
		return append(b, d.String()...)
	}
	b = appendDigits(b, y, 4)
	b = append(b, '-')
	b = appendDigits(b, int(d.Month()), 2)
	b = append(b, '-')
	return appendDigits(b, d.Day(), 2)
}

// appendDigits appends n in at least width digits, zero-padded.
func appendDigits(b []byte, n, width int) []byte {
	s := len(b)
	b = strconv.AppendInt(b, int64(n), 10)
	for len(b)-s < width {
		b = append(b, 0)
		copy(b[s+1:], b[s:])
		b[s] = '0'
	}
	return b
}

// appendRFC3339 appends t as time.Time.MarshalJSON writes it, without
// the quotes; false where MarshalJSON refuses t (the same checks).
func appendRFC3339(b []byte, t time.Time) ([]byte, bool) {
	n0 := len(b)
	b = t.AppendFormat(b, time.RFC3339Nano)
	switch {
	case len(b)-n0 < 5 || b[n0+4] != '-':
		return b, false
	case b[len(b)-1] != 'Z':
		c := b[len(b)-len("Z07:00")]
		if ('0' <= c && c <= '9') || (b[len(b)-5]-'0')*10+(b[len(b)-4]-'0') >= 24 {
			return b, false
		}
	}
	return b, true
}
