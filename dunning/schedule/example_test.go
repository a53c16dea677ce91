package schedule_test

import (
	"fmt"
	"time"

	"github.com/kobana/kobana-mcp/dunning/schedule"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
)

// A reminder three days after a charge due on the Friday before Carnival
// lands on Carnival Monday, so with business days it runs on Ash
// Wednesday, at 09:00 São Paulo time (12:00 UTC).
func ExampleRunAt() {
	due := bankcalendar.NewDate(2026, time.February, 13)
	step := schedule.Step{OffsetDays: 3, SendTime: schedule.At(9, 0), BusinessDays: true}
	at, err := schedule.RunAt(due, step, schedule.Options{})
	fmt.Println(at, err)
	// Output: 2026-02-18 12:00:00 +0000 UTC <nil>
}

// Plan also says why a step moved, for showing a plan's schedule.
func ExamplePlan() {
	zone, _ := schedule.LoadZone("America/Sao_Paulo")
	due := bankcalendar.NewDate(2026, time.March, 13) // a Friday
	step := schedule.Step{OffsetDays: 0, SendTime: schedule.At(21, 30), BusinessDays: true}
	run, _ := schedule.Plan(due, step, schedule.Options{Zone: zone})
	fmt.Println(run.Date, run.Time, run.At)
	for _, m := range run.Moves {
		fmt.Println(m)
	}
	// Output:
	// 2026-03-16 08:00 2026-03-16 11:00:00 +0000 UTC
	// 21:30 is not before the sending window closes at 20:00: moved to the next day's opening
	// 2026-03-14 is closed (sábado): moved to 2026-03-16
}
