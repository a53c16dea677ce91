package records

import (
	"encoding/json"
	"fmt"
	"time"
)

// Calendar is an organization's Kadu calendar: the place whose state and
// city holidays close its business days, and its own closed days. It is
// Kadu's own (Dunning keeps its closed days in its settings, and products
// never read each other's tables); the bank calendar itself is
// platform/bankcalendar. The zero Calendar is the national one.
type Calendar struct {
	OrganizationID string    `db:"organization_id"`
	State          string    `db:"state"`
	City           string    `db:"city"`
	ClosedDaysJSON string    `db:"closed_days"`
	UpdatedAt      time.Time `db:"updated_at"`

	ClosedDays []ClosedDay `db:"-"`
}

// ClosedDay is a day the organization is closed ("2026-07-09"), named.
type ClosedDay struct {
	Date string `json:"date"`
	Name string `json:"name"`
}

// Decode reads the JSON column.
func (c *Calendar) Decode() error {
	c.ClosedDays = nil
	if c.ClosedDaysJSON != "" {
		if err := json.Unmarshal([]byte(c.ClosedDaysJSON), &c.ClosedDays); err != nil {
			return fmt.Errorf("kadu calendar %s: closed_days: %w", c.OrganizationID, err)
		}
	}
	if c.ClosedDays == nil {
		c.ClosedDays = []ClosedDay{}
	}
	return nil
}

// Encode writes the JSON column.
func (c *Calendar) Encode() error {
	if c.ClosedDays == nil {
		c.ClosedDays = []ClosedDay{}
	}
	b, err := json.Marshal(c.ClosedDays)
	if err != nil {
		return err
	}
	c.ClosedDaysJSON = string(b)
	return nil
}
