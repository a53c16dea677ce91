package webhooks

import (
	"strconv"
	"strings"
	"time"
)

// A rotation with a grace period (Config.RotationGrace) keeps the
// previous secret in the same sealed signing_secret column as the new
// one, so no schema changes and the old secret is never stored in the
// clear: the sealed text is "<new> <previous> <grace end, Unix seconds>"
// while the grace lasts, and just "<secret>" otherwise (whsec_ secrets
// hold no spaces). docs/decisions.md "Kadu: files, results and webhook
// rotation".

// parseSecrets reads the sealed column's text: the current secret, and
// the previous one when its grace has not ended at now.
func parseSecrets(plain string, now time.Time) (current, previous string) {
	f := strings.Fields(plain)
	if len(f) != 3 {
		return strings.TrimSpace(plain), ""
	}
	until, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil || !now.Before(time.Unix(until, 0)) {
		return f[0], ""
	}
	return f[0], f[1]
}

// joinSecrets is the column's text for a rotation to current that keeps
// previous signing until the grace ends.
func joinSecrets(current, previous string, until time.Time) string {
	return current + " " + previous + " " + strconv.FormatInt(until.Unix(), 10)
}
