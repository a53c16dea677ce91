package msgtemplate

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Problem kinds, in Problem.Kind.
const (
	KindUnknownVariable = "unknown_variable"
	KindInvalidName     = "invalid_name"
	KindEmpty           = "empty_variable"
	KindUnclosed        = "unclosed_braces"
	KindUnopened        = "unopened_braces"
	KindTooLong         = "too_long"
)

// MaxTemplateBytes bounds a template's source, well above any channel's
// limit, so a parse is always cheap.
const MaxTemplateBytes = 64 << 10

// maxProblems bounds how many problems one Error lists.
const maxProblems = 20

// Problem is one mistake in a template, with where it is: Offset in
// bytes, Line and Column from 1, Column counted in characters.
type Problem struct {
	Kind     string `json:"kind"`
	Message  string `json:"message"`
	Variable string `json:"variable,omitempty"`
	Offset   int    `json:"offset"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
}

// String reads "line 1, column 5: unknown variable {{debtor.nome}}".
func (p Problem) String() string {
	return fmt.Sprintf("line %d, column %d: %s", p.Line, p.Column, p.Message)
}

// Error is a template that does not parse: every problem found (the
// first 20), so a person fixes them in one go.
type Error struct {
	Problems []Problem
}

// Error lists every problem, "template: " first, "; " between them.
func (e *Error) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.String()
	}
	return "template: " + strings.Join(parts, "; ")
}

// Template is a parsed template, ready to render any number of times.
type Template struct {
	parts []part
}

type part struct {
	text string
	v    Variable // set for a variable, text empty
}

// Validate checks a template when a step is saved: nil, or an *Error
// naming every unknown variable and malformed brace with its position.
func Validate(text string) error {
	_, err := Parse(text)
	return err
}

// Parse reads a template. The syntax is literal text with variables
// written {{name}} (spaces inside the braces allowed, {{ debtor.name }});
// a single { or } is literal text, a "{{" without its "}}" or a "}}"
// without its "{{" is an error.
func Parse(text string) (*Template, error) {
	p := &parser{src: text}
	if len(text) > MaxTemplateBytes {
		p.problem(KindTooLong, 0, "", fmt.Sprintf("template is %d bytes; the limit is %d", len(text), MaxTemplateBytes))
		return nil, &Error{Problems: p.problems}
	}
	p.run()
	if len(p.problems) > 0 {
		return nil, &Error{Problems: p.problems}
	}
	return &Template{parts: p.parts}, nil
}

type parser struct {
	src      string
	parts    []part
	problems []Problem
}

func (p *parser) run() {
	i, lit := 0, 0 // lit: start of the pending literal text
	for i < len(p.src) && len(p.problems) < maxProblems {
		switch {
		case strings.HasPrefix(p.src[i:], "{{"):
			rest := p.src[i+2:]
			end := strings.Index(rest, "}}")
			reopen := strings.Index(rest, "{{")
			if end < 0 || (reopen >= 0 && reopen < end) {
				p.problem(KindUnclosed, i, "", `"{{" is not closed by "}}"`)
				if end < 0 {
					return
				}
				i += 2 + reopen
				continue
			}
			p.text(lit, i)
			p.variable(i, rest[:end])
			i += 2 + end + 2
			lit = i
		case strings.HasPrefix(p.src[i:], "}}"):
			p.problem(KindUnopened, i, "", `"}}" has no "{{" before it`)
			i += 2
		default:
			i++
		}
	}
	p.text(lit, len(p.src))
}

func (p *parser) text(from, to int) {
	if to > from {
		p.parts = append(p.parts, part{text: p.src[from:to]})
	}
}

func (p *parser) variable(at int, inner string) {
	name := strings.TrimSpace(inner)
	switch {
	case name == "":
		p.problem(KindEmpty, at, "", "empty variable {{}}")
	case !validName(name):
		p.problem(KindInvalidName, at, name, fmt.Sprintf("%q is not a variable name (names are like debtor.name)", name))
	default:
		if _, ok := Lookup(name); !ok {
			msg := fmt.Sprintf("unknown variable {{%s}}", name)
			if s := suggest(name); s != "" {
				msg += fmt.Sprintf(" (did you mean {{%s}}?)", s)
			}
			p.problem(KindUnknownVariable, at, name, msg)
			return
		}
		p.parts = append(p.parts, part{v: Variable(name)})
	}
}

func (p *parser) problem(kind string, offset int, variable, msg string) {
	line := 1 + strings.Count(p.src[:offset], "\n")
	lineStart := strings.LastIndexByte(p.src[:offset], '\n') + 1
	col := 1 + utf8.RuneCountInString(p.src[lineStart:offset])
	p.problems = append(p.problems, Problem{Kind: kind, Message: msg, Variable: variable, Offset: offset, Line: line, Column: col})
}

// validName accepts dot-separated words of a–z, 0–9 and underscore,
// starting with a letter: the shape of every variable, so anything else
// (quotes, pipes, calls) is refused as a name before any lookup.
func validName(s string) bool {
	for _, seg := range strings.Split(s, ".") {
		if seg == "" || seg[0] < 'a' || seg[0] > 'z' {
			return false
		}
		for i := 0; i < len(seg); i++ {
			c := seg[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
				return false
			}
		}
	}
	return true
}

// suggest is the known variable closest to name, if it is close enough
// to be a typo (at most a third of its letters differ).
func suggest(name string) string {
	best, bestDist := "", len(name)/3+1
	for _, v := range Variables {
		if d := distance(name, string(v.Name)); d < bestDist {
			best, bestDist = string(v.Name), d
		}
	}
	return best
}

// distance is the Levenshtein distance between a and b, in bytes (names
// are ASCII).
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Variables lists the variables the template uses, each once, in order
// of first use: what the sender must be able to fill in.
func (t *Template) Variables() []Variable {
	var out []Variable
	seen := map[Variable]bool{}
	for _, p := range t.parts {
		if p.v != "" && !seen[p.v] {
			seen[p.v] = true
			out = append(out, p.v)
		}
	}
	return out
}
