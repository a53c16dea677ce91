package records

import (
	"context"
	"errors"

	"github.com/kobana/kobana-mcp/platform/store"
)

// The SQL of an organization's Kadu calendar (kadu_calendars, one row
// per organization at most).

// GetCalendar reads the organization's calendar; none saved is the zero
// Calendar (the national bank calendar alone), not an error.
func GetCalendar(ctx context.Context, q store.Querier, orgID string) (*Calendar, error) {
	var c Calendar
	err := q.Get(ctx, &c, `SELECT organization_id, state, city, closed_days, updated_at FROM kadu_calendars
		WHERE organization_id = ?`, orgID)
	if errors.Is(err, store.ErrNotFound) {
		c = Calendar{OrganizationID: orgID}
	} else if err != nil {
		return nil, err
	}
	return &c, c.Decode()
}

// PutCalendar saves the organization's calendar, replacing the one
// before.
func PutCalendar(ctx context.Context, q store.Querier, c *Calendar) error {
	if err := c.Encode(); err != nil {
		return err
	}
	_, err := q.Exec(ctx, `INSERT INTO kadu_calendars (organization_id, state, city, closed_days, updated_at)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (organization_id) DO UPDATE SET state = excluded.state,
		city = excluded.city, closed_days = excluded.closed_days, updated_at = excluded.updated_at`,
		c.OrganizationID, c.State, c.City, c.ClosedDaysJSON, c.UpdatedAt)
	return err
}
