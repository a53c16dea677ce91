package ledger

import "github.com/kobana/kobana-mcp/platform/identity"

// Who recorded a payment, a waiver or an opt-out, as the rows keep it.

// recordedBy names who recorded something: the person, or the OAuth client
// of a machine token.
func recordedBy(id *identity.Identity) string {
	if id.UserID != "" {
		return id.UserID
	}
	return "client:" + id.ClientID
}
