package latefee_test

import (
	"fmt"
	"time"

	"github.com/kobana/kobana-mcp/dunning/latefee"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
)

func ExampleCompute() {
	terms := latefee.Terms{
		Open:            100000, // R$ 1.000,00
		DueDate:         bankcalendar.NewDate(2026, time.March, 10),
		Fine:            2 * latefee.OnePercent,
		InterestMonthly: 1 * latefee.OnePercent,
	}
	b, _ := latefee.Compute(terms, bankcalendar.NewDate(2026, time.April, 24))
	fmt.Println(b.DaysLate, b.Fine, b.Interest, b.Updated)
	// Output: 45 R$ 20,00 R$ 15,00 R$ 1.035,00
}

// A charge due on a closed day costs nothing when paid on the next
// business day.
func ExampleTerms_graceUntil() {
	due := bankcalendar.NewDate(2026, time.February, 14) // Saturday of Carnival
	terms := latefee.Terms{
		Open:            100000,
		DueDate:         due,
		GraceUntil:      bankcalendar.NextBusinessDay(due),
		Fine:            2 * latefee.OnePercent,
		InterestMonthly: latefee.OnePercent,
	}
	onTime, _ := latefee.Compute(terms, bankcalendar.NewDate(2026, time.February, 18))
	late, _ := latefee.Compute(terms, bankcalendar.NewDate(2026, time.February, 19))
	fmt.Println(onTime.Updated, late.DaysLate, late.Updated)
	// Output: R$ 1.000,00 5 R$ 1.021,67
}

func ExampleCaps_Validate() {
	caps := latefee.DefaultCaps()
	fmt.Println(caps.Validate(latefee.NaturalPerson, 3*latefee.OnePercent, latefee.OnePercent))
	fmt.Println(caps.Validate(latefee.Company, 3*latefee.OnePercent, latefee.OnePercent))
	// Output:
	// fine_percent 3% exceeds the 2% cap for natural persons (CDC art. 52 §1)
	// <nil>
}
