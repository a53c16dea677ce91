package regua

import (
	"github.com/kobana/kobana-mcp/dunning/escalation"
	"github.com/kobana/kobana-mcp/dunning/notify"
)

// Notifier is the notifier of dunning/notify (channels, notifications,
// sends) with what the régua adds: the step runner, the sweep and the
// step approvals. The escalating steps of a plan (a credit report, a
// protest, an agreement offer) reach the escalation layer through esc,
// the one layer above the notifications that the régua calls
// (docs/decisions.md "Product code layout (issue 24)").
type Notifier struct {
	*notify.Notifier
	esc *escalation.Service
}
