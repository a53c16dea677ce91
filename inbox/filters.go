package inbox

import (
	"regexp"
	"strings"
)

// inboxFilter is one screening rule of an inbox: an e-mail whose field
// matches is rejected (action "reject") or let through whatever follows
// (action "allow"); rules apply in order and the first match decides. They
// let a company drop newsletters or auto-replies before they cost an agent
// run.
type inboxFilter struct {
	// Field is what the rule looks at: from, subject, body or
	// attachment_name.
	Field string `json:"field" enum:"from,subject,body,attachment_name" jsonschema:"What the rule looks at."`
	// Operator is contains, equals, starts_with, ends_with or matches (a Go
	// regular expression, RE2: linear time, so a hostile pattern cannot
	// stall screening). Comparisons ignore case.
	Operator string `json:"operator" enum:"contains,equals,starts_with,ends_with,matches" jsonschema:"How the value is compared (case-insensitive; matches is an RE2 regular expression)."`
	Value    string `json:"value" minLength:"1" maxLength:"500" jsonschema:"The text or pattern to compare with."`
	// Action is reject or allow.
	Action string `json:"action" enum:"reject,allow" jsonschema:"What a match does: reject the e-mail, or allow it past the remaining filters."`
}

// filterSubject is what screening knows of a message.
type filterSubject struct {
	From, Subject, Body string
	AttachmentNames     []string
}

// valid reports a problem with the rule ("" when it is usable): an
// operator the rule does not know, or a pattern that does not compile.
func (f inboxFilter) valid() string {
	switch f.Operator {
	case "contains", "equals", "starts_with", "ends_with":
	case "matches":
		if _, err := regexp.Compile("(?i)" + f.Value); err != nil {
			return "is not a valid regular expression: " + err.Error()
		}
	default:
		return "operator must be contains, equals, starts_with, ends_with or matches"
	}
	return ""
}

// matches reports whether the rule matches the message.
func (f inboxFilter) matches(m filterSubject) bool {
	var values []string
	switch f.Field {
	case "from":
		values = []string{m.From}
	case "subject":
		values = []string{m.Subject}
	case "body":
		values = []string{m.Body}
	case "attachment_name":
		values = m.AttachmentNames
	}
	for _, v := range values {
		if f.matchText(v) {
			return true
		}
	}
	return false
}

func (f inboxFilter) matchText(v string) bool {
	lv, lf := strings.ToLower(v), strings.ToLower(f.Value)
	switch f.Operator {
	case "contains":
		return strings.Contains(lv, lf)
	case "equals":
		return lv == lf
	case "starts_with":
		return strings.HasPrefix(lv, lf)
	case "ends_with":
		return strings.HasSuffix(lv, lf)
	case "matches":
		re, err := regexp.Compile("(?i)" + f.Value)
		return err == nil && re.MatchString(v)
	}
	return false
}

// applyFilters runs the rules in order: the first match decides. It
// returns whether the message is rejected and, if so, which rule (1-based)
// rejected it.
func applyFilters(filters []inboxFilter, m filterSubject) (rejected bool, rule int) {
	for i, f := range filters {
		if f.matches(m) {
			return f.Action == "reject", i + 1
		}
	}
	return false, 0
}
