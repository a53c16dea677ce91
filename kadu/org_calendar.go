package kadu

import (
	"context"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/store"
)

// orgCalendar is the organization's bank calendar: the national one, its
// place's holidays and its own closed days (records.Calendar).
func (s *service) orgCalendar(ctx context.Context, q store.Querier, orgID string) (*bankcalendar.Calendar, error) {
	c, err := records.GetCalendar(ctx, q, orgID)
	if err != nil {
		return nil, err
	}
	return toBankCalendar(c), nil
}

func toBankCalendar(c *records.Calendar) *bankcalendar.Calendar {
	days := make([]bankcalendar.ClosedDay, 0, len(c.ClosedDays))
	for _, d := range c.ClosedDays {
		if on, err := bankcalendar.ParseDate(d.Date); err == nil {
			days = append(days, bankcalendar.ClosedDay{Date: on, Name: d.Name, Kind: bankcalendar.KindOrganization})
		}
	}
	return bankcalendar.NewIn(bankcalendar.Place{UF: c.State, City: c.City}, days...)
}
