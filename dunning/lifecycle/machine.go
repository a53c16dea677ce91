package lifecycle

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Errors a TransitionError matches with errors.Is.
var (
	// ErrIllegalTransition: the table has no arrow from one state to the
	// other (the API's conflict).
	ErrIllegalTransition = errors.New("illegal state transition")
	// ErrNoChange: the resource is already in the state asked for.
	ErrNoChange = errors.New("already in that state")
)

// TransitionError is a refused change of state.
type TransitionError struct {
	// Noun is what changes: "charge", "enrollment", "collection plan".
	Noun     string
	From, To string
}

// Error reads "a paid charge cannot become overdue", or "the charge is
// already paid" when From equals To.
func (e *TransitionError) Error() string {
	if e.From == e.To {
		return fmt.Sprintf("the %s is already %s", e.Noun, e.From)
	}
	return fmt.Sprintf("%s %s %s cannot become %s", article(e.From), e.From, e.Noun, e.To)
}

// Is matches ErrNoChange when From equals To, ErrIllegalTransition
// otherwise.
func (e *TransitionError) Is(target error) bool {
	if e.From == e.To {
		return target == ErrNoChange
	}
	return target == ErrIllegalTransition
}

func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

// Machine is one resource's transition table. The package's Charges,
// Enrollments and Plans are the only instances; they are immutable.
type Machine[S ~string] struct {
	noun   string
	states []S
	next   map[S][]S
}

func newMachine[S ~string](noun string, states []S, next map[S][]S) *Machine[S] {
	for from, tos := range next {
		if !slices.Contains(states, from) {
			panic("lifecycle: " + noun + " table names unknown state " + string(from))
		}
		for _, to := range tos {
			if !slices.Contains(states, to) {
				panic("lifecycle: " + noun + " table names unknown state " + string(to))
			}
		}
	}
	return &Machine[S]{noun: noun, states: states, next: next}
}

// Noun is what the machine's states belong to, "charge" for Charges.
func (m *Machine[S]) Noun() string { return m.noun }

// States lists every state, in the table's order (for API enums and
// documentation).
func (m *Machine[S]) States() []S { return slices.Clone(m.states) }

// Next lists the states from may change into; none for a final state.
func (m *Machine[S]) Next(from S) []S { return slices.Clone(m.next[from]) }

// Final reports whether nothing may follow s.
func (m *Machine[S]) Final(s S) bool { return m.Valid(s) && len(m.next[s]) == 0 }

// Valid reports whether s is one of the machine's states.
func (m *Machine[S]) Valid(s S) bool { return slices.Contains(m.states, s) }

// Parse reads a state from the wire, for filters and request bodies:
// an unknown value is an error listing the accepted ones.
func (m *Machine[S]) Parse(s string) (S, error) {
	if m.Valid(S(s)) {
		return S(s), nil
	}
	names := make([]string, len(m.states))
	for i, st := range m.states {
		names[i] = string(st)
	}
	return "", fmt.Errorf("%s status must be one of %s (got %.40q)", m.noun, strings.Join(names, ", "), s)
}

// Check is the one place a change from one state to another is allowed
// or refused: nil when the table has the arrow, a *TransitionError
// otherwise (ErrNoChange when from equals to), or an error for a state
// that is not the machine's.
func (m *Machine[S]) Check(from, to S) error {
	for _, s := range []S{from, to} {
		if !m.Valid(s) {
			return fmt.Errorf("unknown %s status %.40q", m.noun, string(s))
		}
	}
	if from != to && slices.Contains(m.next[from], to) {
		return nil
	}
	return &TransitionError{Noun: m.noun, From: string(from), To: string(to)}
}
