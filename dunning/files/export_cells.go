package files

import (
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/money"
)

// How the rows of every export source become CSV cells.

// exportCells formats the values of a record for the export's separator:
// ',' is RFC 4180 with 1234.56 and 2026-03-10; ';' is what a spreadsheet
// in Brazilian Portuguese reads as numbers and dates, 1234,56 and
// 10/03/2026. Instants are in the organization's zone.
type exportCells struct {
	brazilian bool
	zone      *time.Location
}

func (c exportCells) money(v money.Cents) string {
	d := v.Decimal()
	if c.brazilian {
		return strings.Replace(d, ".", ",", 1)
	}
	return d
}

func (c exportCells) date(d bankcalendar.Date) string {
	if c.brazilian {
		return d.BR()
	}
	return d.String()
}

func (c exportCells) instant(t *time.Time) string {
	if t == nil {
		return ""
	}
	lt := t.In(c.zone)
	if c.brazilian {
		return lt.Format("02/01/2006 15:04:05")
	}
	return lt.Format(time.RFC3339)
}

func strOrEmpty(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// onlyFilters refuses, by name, a filter the resource has not.
func onlyFilters(f exportFilters, allowed []string) error {
	given := map[string]bool{"status": f.Status != "", "debtor_id": f.DebtorID != "", "charge_id": f.ChargeID != "", "due_from": f.DueFrom != "",
		"due_to": f.DueTo != "", "plan_id": f.PlanID != "", "q": f.Q != "", "document": f.Document != "", "channel": f.Channel != "",
		"archived": f.Archived, "sort_by": f.SortBy != "", "sort_order": f.SortOrder != ""}
	for _, name := range []string{"status", "debtor_id", "charge_id", "due_from", "due_to", "plan_id", "q", "document", "channel", "archived", "sort_by", "sort_order"} {
		if given[name] && !contains(allowed, name) {
			return ledger.Invalid("filters."+name, "is not a filter of this resource (its filters: "+strings.Join(allowed, ", ")+")")
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
