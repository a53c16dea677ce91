package records

import (
	"encoding/json"
	"strings"
)

// secretKeys are the argument names whose values are never stored.
var secretKeys = []string{"password", "secret", "token", "api_key", "apikey", "authorization",
	"credential", "private_key", "client_secret", "cookie"}

// redactArguments is a call's arguments as stored: every value under a
// key that names a secret, at any depth, replaced by "[redacted]". Text
// that is not JSON is not stored at all.
func redactArguments(raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return `"[unreadable]"`
	}
	b, _ := json.Marshal(redactValue(v))
	return string(b)
}

func redactValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			lk := strings.ToLower(k)
			secret := false
			for _, s := range secretKeys {
				if strings.Contains(lk, s) {
					secret = true
					break
				}
			}
			if secret {
				x[k] = "[redacted]"
			} else {
				x[k] = redactValue(val)
			}
		}
		return x
	case []any:
		for i := range x {
			x[i] = redactValue(x[i])
		}
		return x
	default:
		return v
	}
}
