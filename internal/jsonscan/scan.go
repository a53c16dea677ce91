// Package jsonscan walks the members of a JSON object without building it:
// each member's name and raw value are slices of the input, so reading a
// request envelope costs no allocation per member. Duplicate names and
// invalid UTF-8 are syntax errors, so what one reader sees is what every
// reader sees.
package jsonscan

import (
	"bytes"
	"errors"
	"io"
	"sync"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Options are the strict reading rules.
var Options = json.JoinOptions(jsontext.AllowDuplicateNames(false), jsontext.AllowInvalidUTF8(false))

// ErrNotObject is returned by Start when the input is valid JSON but not an
// object.
var ErrNotObject = errors.New("jsonscan: not an object")

// Scanner reads one object's members. Get one with Get and give it back
// with Put; it is not safe for concurrent use.
type Scanner struct {
	dec *jsontext.Decoder
	buf bytes.Buffer
	in  []byte
}

var pool = sync.Pool{New: func() any { return &Scanner{dec: jsontext.NewDecoder(bytes.NewReader(nil))} }}

// Get returns a pooled Scanner.
func Get() *Scanner { return pool.Get().(*Scanner) }

// Put returns s to the pool. The decoder is pointed at the scanner's own
// emptied buffer, so a pooled scanner keeps no reference to the input and
// giving it back allocates nothing.
func Put(s *Scanner) {
	s.in = nil
	s.buf = bytes.Buffer{}
	s.dec.Reset(&s.buf)
	pool.Put(s)
}

// Start positions the scanner at the first member of the object in. For an
// input that is not an object it validates the whole input and returns
// ErrNotObject, or the syntax error found.
func (s *Scanner) Start(in []byte) error {
	s.in = in
	s.buf = *bytes.NewBuffer(in)
	s.dec.Reset(&s.buf, Options)
	if k := s.dec.PeekKind(); k != '{' {
		if _, err := s.dec.ReadValue(); err != nil {
			return err
		}
		return ErrNotObject
	}
	_, err := s.dec.ReadToken()
	return err
}

// Next returns the next member: its name (unescaped) and its raw value, a
// slice of the input. ok is false after the last member.
func (s *Scanner) Next() (name []byte, value jsontext.Value, ok bool, err error) {
	name, ok, err = s.Name()
	if !ok || err != nil {
		return nil, nil, false, err
	}
	value, err = s.dec.ReadValue()
	if err != nil {
		return nil, nil, false, err
	}
	return name, value, true, nil
}

// Name reads the next member's name, unescaped; read its value next, with
// Value or Enter. ok is false after the last member of the object being
// walked, whose end it consumes: the walk then goes on in the enclosing
// object, if there is one.
func (s *Scanner) Name() (name []byte, ok bool, err error) {
	if s.dec.PeekKind() == '}' {
		if _, err := s.dec.ReadToken(); err != nil {
			return nil, false, err
		}
		return nil, false, nil
	}
	raw, err := s.dec.ReadValue()
	if err != nil {
		return nil, false, err
	}
	name = raw[1 : len(raw)-1 : len(raw)-1]
	if bytes.IndexByte(name, '\\') >= 0 {
		var unq string
		if err := json.Unmarshal(raw, &unq); err != nil {
			return nil, false, err
		}
		name = []byte(unq)
	}
	return name, true, nil
}

// Value reads the value of the member just named, raw: a slice of the
// input, checked as strictly as the rest.
func (s *Scanner) Value() (jsontext.Value, error) {
	return s.dec.ReadValue()
}

// Enter walks into the value of the member just named when it is an
// object: Name then reads that object's members, so a nested object is
// read once instead of once per level. entered is false, and nothing is
// read, for any other kind of value; read it with Value.
func (s *Scanner) Enter() (entered bool, err error) {
	if s.dec.PeekKind() != '{' {
		return false, nil
	}
	if _, err := s.dec.ReadToken(); err != nil {
		return false, err
	}
	return true, nil
}

// Finish checks that nothing but white space follows the object.
func (s *Scanner) Finish() error {
	if s.dec.PeekKind() != 0 {
		_, err := s.dec.ReadValue()
		if err == nil {
			return errors.New("jsonscan: more than one JSON value")
		}
		return err
	}
	// PeekKind reports 0 both at a clean end and on an error.
	if _, err := s.dec.ReadToken(); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// Unquoted returns the text of a JSON string value. Without escapes it is
// a slice of v itself, so a caller that only compares the text or looks it
// up in a map (m[string(b)]) allocates nothing; with escapes it is a fresh
// copy. ok is false for any other kind of value. The slice shares v's
// memory: a caller that keeps the text keeps a string of it instead.
func Unquoted(v jsontext.Value) ([]byte, bool) {
	if v.Kind() != '"' {
		return nil, false
	}
	inner := v[1 : len(v)-1 : len(v)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return inner, true
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return nil, false
	}
	return []byte(s), true
}

// String unquotes a JSON string value, without allocating beyond the
// result when it has no escapes. ok is false for any other kind of value.
func String(v jsontext.Value) (string, bool) {
	if v.Kind() != '"' {
		return "", false
	}
	inner := v[1 : len(v)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner), true
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", false
	}
	return s, true
}
