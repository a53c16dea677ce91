package escalation

import (
	"time"

	"github.com/kobana/kobana-mcp/dunning/latefee"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/money"
)

// SplitCents divides total into n installments of whole cents that add
// up to exactly total: each gets total/n and the rounding remainder goes
// to the first (R$ 100,00 in 3 is 33,34 + 33,33 + 33,33).
func SplitCents(total money.Cents, n int) []money.Cents {
	if n <= 0 {
		return nil
	}
	base := total / money.Cents(n)
	out := make([]money.Cents, n)
	for i := range out {
		out[i] = base
	}
	out[0] += total - base*money.Cents(n)
	return out
}

// PercentOf is p of amount, half-up to the cent.
func PercentOf(amount money.Cents, p latefee.Percent) money.Cents {
	const scale = 100 * int64(latefee.OnePercent)
	return money.Cents((int64(amount)*int64(p) + scale/2) / scale)
}

// MonthlyDueDates are n due dates, one a month on day (the month's last
// day when it is shorter), the first strictly after from, each moved to
// the next business day of cal.
func MonthlyDueDates(from bankcalendar.Date, day, n int, cal *bankcalendar.Calendar) []bankcalendar.Date {
	out := make([]bankcalendar.Date, 0, n)
	y, m := from.Year(), from.Month()
	if onDay(y, m, day).Compare(from) <= 0 {
		y, m = nextMonth(y, m)
	}
	for i := 0; i < n; i++ {
		out = append(out, cal.NextBusinessDay(onDay(y, m, day)))
		y, m = nextMonth(y, m)
	}
	return out
}

func onDay(y int, m time.Month, day int) bankcalendar.Date {
	last := time.Date(y, m+1, 0, 12, 0, 0, 0, time.UTC).Day()
	return bankcalendar.NewDate(y, m, min(day, last))
}

func nextMonth(y int, m time.Month) (int, time.Month) {
	if m == time.December {
		return y + 1, time.January
	}
	return y, m + 1
}
