package bankcalendar_test

import (
	"fmt"
	"time"

	"github.com/kobana/kobana-mcp/platform/bankcalendar"
)

func ExampleNextBusinessDay() {
	carnivalSaturday := bankcalendar.NewDate(2026, time.February, 14)
	fmt.Println(bankcalendar.NextBusinessDay(carnivalSaturday))
	// Output: 2026-02-18
}

// An organization adds its city's holidays to the national calendar.
func ExampleNew() {
	org := bankcalendar.New(bankcalendar.ClosedDay{
		Date: bankcalendar.NewDate(2026, time.July, 9),
		Name: "Revolução Constitucionalista",
	})
	day, closed := org.Closure(bankcalendar.NewDate(2026, time.July, 9))
	fmt.Println(closed, day.Kind, day.Name)
	fmt.Println(org.NextBusinessDay(bankcalendar.NewDate(2026, time.July, 9)))
	// Output:
	// true organization Revolução Constitucionalista
	// 2026-07-10
}

func ExampleParseDate() {
	due, err := bankcalendar.ParseDate("2026-03-10")
	fmt.Println(due.BR(), due.Weekday(), err)
	_, err = bankcalendar.ParseDate("2026-02-30")
	fmt.Println(err)
	// Output:
	// 10/03/2026 Tuesday <nil>
	// date must be YYYY-MM-DD, a day that exists (got "2026-02-30")
}
