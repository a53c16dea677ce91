package brazil

import "time"

// The boleto due-date factor (fator de vencimento) is the number of days
// since 1997-10-07. It has four digits, so it reached 9999 on 2025-02-21;
// FEBRABAN restarted it at 1000 on 2025-02-22 (a new cycle of 9000 days,
// i.e. new base 2022-05-29), and will do so every 9000 days. A factor is
// therefore ambiguous on its own; FEBRABAN's rule is to read it inside a
// window around the current date, from factorWindowPast days before to
// factorWindowFuture days after, which covers 8501 of the 9000 days of a
// cycle and so selects at most one cycle.
const (
	factorWindowPast   = 3000
	factorWindowFuture = 5500
	factorCycle        = 9000
	// factorMin is the smallest factor in use: 0000 means "no due date"
	// and 0001–0999 belong to 1997–2000, before any cycle restart.
	factorMin = 1000
)

// factorBase is day 0 of the first cycle.
var factorBase = time.Date(1997, 10, 7, 0, 0, 0, 0, time.UTC)

// DueDateFromFactor converts a due-date factor into a date, reading it in
// the FEBRABAN window around ref (the day the boleto was seen): the date
// is factorBase + factor + 9000·k days for the k that puts it between
// ref−3000 and ref+5500 days. In the 499 days a window cannot reach, the
// nearest candidate wins. ok is false for factors below 1000 (0000 is a
// boleto without due date).
func DueDateFromFactor(factor int, ref time.Time) (due time.Time, ok bool) {
	if factor < factorMin || factor > 9999 {
		return time.Time{}, false
	}
	ref = time.Date(ref.Year(), ref.Month(), ref.Day(), 0, 0, 0, 0, time.UTC)
	lo := ref.AddDate(0, 0, -factorWindowPast)
	hi := ref.AddDate(0, 0, factorWindowFuture)
	var best time.Time
	bestDist := -1
	for k := 0; k < 1000; k++ {
		d := factorBase.AddDate(0, 0, factor+factorCycle*k)
		if !d.Before(lo) && !d.After(hi) {
			return d, true
		}
		dist := int(lo.Sub(d).Hours() / 24)
		if d.After(hi) {
			dist = int(d.Sub(hi).Hours() / 24)
		}
		if bestDist < 0 || dist < bestDist {
			best, bestDist = d, dist
		}
		if d.After(hi) {
			break
		}
	}
	return best, true
}

// FactorForDate is the inverse of DueDateFromFactor: the factor printed
// on a boleto due on day d (in the cycle d belongs to). ok is false for
// dates before 2000-07-03 (factor 1000 of the first cycle).
func FactorForDate(d time.Time) (factor int, ok bool) {
	d = time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, time.UTC)
	days := int(d.Sub(factorBase).Hours() / 24)
	if days < factorMin {
		return 0, false
	}
	return (days-factorMin)%factorCycle + factorMin, true
}
