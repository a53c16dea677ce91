package ledger

import (
	"strings"
	"sync"

	"github.com/kobana/kobana-mcp/platform/bankcalendar"
)

// Grace ends remembered across pages (docs/decisions.md, "Dunning's
// listing CPU, second round"). A due date's grace end (the next business
// day from the due date plus the grace days) is a pure function of the
// calendar's place, the organization's closed days and the grace: every
// page of charges asked the calendar again for each due date, and the
// national holidays are computed on each question (a fifth of the
// listing's own work after its read). The answer cannot go stale: a
// change of the settings changes the key.

// graceEndsMax bounds the memo; past it the memo starts again empty.
const graceEndsMax = 1 << 14

// graceEndKey is one question: the calendar (graceCalendarKey), the grace
// days and the due date.
type graceEndKey struct {
	calendar string
	grace    int
	due      bankcalendar.Date
}

var graceEnds = struct {
	sync.Mutex
	m map[graceEndKey]bankcalendar.Date
}{m: make(map[graceEndKey]bankcalendar.Date)}

// graceCalendarKey names st's calendar: its state, city and closed days.
func graceCalendarKey(st Settings) string {
	var b strings.Builder
	b.WriteString(st.State)
	b.WriteByte(0)
	b.WriteString(st.City)
	for _, d := range st.ClosedDays {
		b.WriteByte(0)
		b.Write(appendDate(nil, d))
	}
	return b.String()
}

// rememberedGraceEnd is k's grace end, computed on cal the first time.
func rememberedGraceEnd(k graceEndKey, cal *bankcalendar.Calendar) bankcalendar.Date {
	graceEnds.Lock()
	end, ok := graceEnds.m[k]
	graceEnds.Unlock()
	if ok {
		return end
	}
	end = cal.NextBusinessDay(k.due.AddDays(k.grace))
	graceEnds.Lock()
	if len(graceEnds.m) >= graceEndsMax {
		clear(graceEnds.m)
	}
	graceEnds.m[k] = end
	graceEnds.Unlock()
	return end
}
