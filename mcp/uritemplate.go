package mcp

import (
	"fmt"
	"net/url"
	"strings"
)

// uriTemplate is an RFC 6570 level 1 template: literals and {var}
// expressions. Level 1 expansion percent-encodes everything but unreserved
// characters, so a variable's value never contains "/" or "?" and matching
// is unambiguous.
type uriTemplate struct {
	raw      string
	literals []string // len(vars)+1 literals around the variables
	vars     []string
}

func parseURITemplate(s string) (*uriTemplate, error) {
	t := &uriTemplate{raw: s}
	rest := s
	for {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			if strings.IndexByte(rest, '}') >= 0 {
				return nil, fmt.Errorf("uri template %q: unbalanced }", s)
			}
			t.literals = append(t.literals, rest)
			return t, nil
		}
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			return nil, fmt.Errorf("uri template %q: unclosed {", s)
		}
		name := rest[open+1 : open+end]
		if name == "" || strings.ContainsAny(name, "+#./;?&=,!@|{") {
			return nil, fmt.Errorf("uri template %q: only level 1 {name} expressions are supported", s)
		}
		t.literals = append(t.literals, rest[:open])
		if len(t.vars) > 0 && open == 0 {
			return nil, fmt.Errorf("uri template %q: adjacent expressions are ambiguous", s)
		}
		t.vars = append(t.vars, name)
		rest = rest[open+end+1:]
	}
}

// match returns the decoded variables when uri is an expansion of t.
func (t *uriTemplate) match(uri string) (map[string]string, bool) {
	if !strings.HasPrefix(uri, t.literals[0]) {
		return nil, false
	}
	rest := uri[len(t.literals[0]):]
	vars := make(map[string]string, len(t.vars))
	for i, name := range t.vars {
		next := t.literals[i+1]
		var raw string
		if next == "" {
			if i != len(t.vars)-1 {
				return nil, false
			}
			raw, rest = rest, ""
		} else {
			j := strings.Index(rest, next)
			if j < 0 {
				return nil, false
			}
			raw, rest = rest[:j], rest[j:]
		}
		if raw == "" || !levelOneValue(raw) {
			return nil, false
		}
		v, err := url.PathUnescape(raw)
		if err != nil {
			return nil, false
		}
		vars[name] = v
		rest = rest[len(next):]
	}
	if rest != "" {
		return nil, false
	}
	return vars, true
}

// levelOneValue reports whether s could come out of a level 1 expansion:
// unreserved characters and percent-escapes only.
func levelOneValue(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '-' || c == '.' || c == '_' || c == '~' || c == '%':
		default:
			return false
		}
	}
	return true
}
