package signin

import "strings"

// Challenge is what a Bearer challenge (the WWW-Authenticate header of a
// 401, RFC 6750 §3 and RFC 9728 §5.1) says.
type Challenge struct {
	// ResourceMetadata is the URL of the protected resource metadata.
	ResourceMetadata string
	// Scope is the space-separated scopes the resource asks for.
	Scope string
	// Error and Description say why a token was refused ("" when none was
	// sent).
	Error, Description string
}

// ParseChallenge reads the Bearer challenge of a WWW-Authenticate header;
// ok is false when the header holds none.
func ParseChallenge(header string) (c Challenge, ok bool) {
	rest := strings.TrimSpace(header)
	scheme, params, _ := strings.Cut(rest, " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return Challenge{}, false
	}
	for name, value := range authParams(params) {
		switch strings.ToLower(name) {
		case "resource_metadata":
			c.ResourceMetadata = value
		case "scope":
			c.Scope = value
		case "error":
			c.Error = value
		case "error_description":
			c.Description = value
		}
	}
	return c, true
}

// authParams reads a list of auth-params (RFC 9110 §11.2): name=token or
// name="quoted string" (with backslash escapes), separated by commas.
func authParams(s string) map[string]string {
	out := map[string]string{}
	for {
		s = strings.TrimLeft(s, " \t,")
		if s == "" {
			return out
		}
		eq := strings.IndexByte(s, '=')
		if eq <= 0 {
			return out
		}
		name := strings.TrimSpace(s[:eq])
		s = strings.TrimLeft(s[eq+1:], " \t")
		var value strings.Builder
		if strings.HasPrefix(s, `"`) {
			i := 1
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				value.WriteByte(s[i])
			}
			s = s[min(i+1, len(s)):]
		} else {
			end := strings.IndexAny(s, ", \t")
			if end < 0 {
				end = len(s)
			}
			value.WriteString(s[:end])
			s = s[end:]
		}
		out[name] = value.String()
	}
}
