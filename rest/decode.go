package rest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	sv "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/kobana/kobana-mcp/mcp/restbridge"
)

// printer words validation messages as the validator does (English, with
// its number formatting), so they read the same whoever checks a value.
var printer = message.NewPrinter(language.English)

// decode gathers an operation's input from the path, the query string and
// the JSON body and fills dst (a *In) in one walk that validates each
// value against the input schema as it is read. Fields in the wrong place
// and unknown fields are validation errors that name the field, and so is
// any string breaking the string rule (package documentation, "Strings").
func (spec *inputSpec) decode(r *http.Request, hasBody bool, dst any) *Error {
	d := getDecoder()
	defer putDecoder(d)
	root := reflect.ValueOf(dst).Elem()
	var seen presence
	spec.pathValues(d, r, root, &seen)
	spec.queryValues(d, r, root, &seen)
	if hasBody {
		body, e := readBody(r)
		if e != nil {
			return e
		}
		if body != nil {
			if e := spec.object(d, body, root, &seen, nil, true); e != nil {
				return e
			}
		}
	}
	d.required(spec.root, &seen)
	return d.result()
}

// decodeArguments fills dst from the path and the arguments object of an
// in-process tools/call (restbridge.Arguments), read once in place of a
// query string and a body. Every member is taken as the REST request
// would carry it: a query parameter as the query string would (text
// converted to its type, null as absent), a body field as JSON, a member
// the bridge routed (a path parameter, the idempotency key) not at all;
// what a REST request would refuse is refused with the same message.
func (spec *inputSpec) decodeArguments(r *http.Request, args *restbridge.Arguments, hasBody bool, dst any) *Error {
	d := getDecoder()
	defer putDecoder(d)
	root := reflect.ValueOf(dst).Elem()
	var seen presence
	spec.pathValues(d, r, root, &seen)
	spec.queryValues(d, r, root, &seen)
	if e := spec.object(d, args.Object, root, &seen, args, hasBody); e != nil {
		return e
	}
	d.required(spec.root, &seen)
	return d.result()
}

// result is the validation error of the details gathered, if any, sorted
// by field (a field's own details keep the validator's order).
func (d *decoder) result() *Error {
	if len(d.details)+len(d.placed) == 0 {
		return nil
	}
	details := append(d.placed, d.details...)
	d.placed, d.details = nil, nil
	slices.SortStableFunc(details, func(a, b FieldError) int { return strings.Compare(a.Field, b.Field) })
	return Validation("the request is invalid", details...)
}

func (spec *inputSpec) pathValues(d *decoder, r *http.Request, root reflect.Value, seen *presence) {
	for _, p := range spec.root.list {
		if p.where != inPath {
			continue
		}
		seen.mark(p.i, len(spec.root.list))
		d.push(p.name)
		d.text(p.n, r.PathValue(p.name), fieldOf(root, p.index))
		d.pop()
	}
}

func (spec *inputSpec) queryValues(d *decoder, r *http.Request, root reflect.Value, seen *presence) {
	if r.URL.RawQuery == "" {
		return
	}
	for key, values := range r.URL.Query() {
		p := spec.root.props[key]
		switch {
		case p == nil:
			d.misplaced(key, "unknown query parameter")
		case p.where != inQuery:
			d.misplaced(key, "must be sent in the "+p.where+", not in the query string")
		default:
			seen.mark(p.i, len(spec.root.list))
			d.push(key)
			d.texts(p.n, values, fieldOf(root, p.index))
			d.pop()
		}
	}
}

// text reads path or query text into v.
func (d *decoder) text(n *node, text string, v reflect.Value) {
	if msg := textProblem(text); msg != "" {
		d.fail(msg)
		return
	}
	// A number's literal goes into the decoder's buffer, which it keeps:
	// nothing reads it after this value's checks and store.
	sc := textScalar(n.mainType, text, d.lit)
	if sc.lit != nil {
		d.lit = sc.lit
	}
	d.scalar(n, &sc, v)
}

// numberText is text for a JSON number's literal raw: what the query
// string would carry for it, read without making it a string (a literal
// holds neither NUL nor invalid UTF-8, and text judges nothing else).
func (d *decoder) numberText(n *node, raw []byte, v reflect.Value) {
	sc := scalar{kind: '0', lit: raw}
	if textKind(n.mainType, raw) != '0' {
		sc = scalar{kind: '"', s: string(raw)}
	}
	d.scalar(n, &sc, v)
}

// texts reads a query parameter's values: the last one, or for an array
// every comma-separated part of every value.
func (d *decoder) texts(n *node, values []string, v reflect.Value) {
	if n.mainType != "array" || n.items == nil {
		d.text(n, values[len(values)-1], v)
		return
	}
	v = d.target(n, v)
	if v.IsValid() && n.kind == kSlice {
		v.Set(reflect.MakeSlice(v.Type(), 0, len(values)))
	}
	count := 0
	for _, value := range values {
		for part := range strings.SplitSeq(value, ",") {
			elem := reflect.Value{}
			if v.IsValid() {
				if n.kind == kSlice {
					if v.Len() == v.Cap() {
						v.Grow(1)
					}
					v.SetLen(count + 1)
					elem = v.Index(count)
				} else if count < v.Len() {
					elem = v.Index(count)
				}
			}
			d.pushIndex(count)
			d.text(n.items, part, elem)
			d.pop()
			count++
		}
	}
	d.itemCount(n, count)
}

// object reads the top-level JSON object: a request body, or with args the
// arguments of a tools/call. A body that is null counts as absent, as an
// empty one does.
func (spec *inputSpec) object(d *decoder, in []byte, root reflect.Value, seen *presence, args *restbridge.Arguments, hasBody bool) *Error {
	d.start(in)
	switch d.dec.PeekKind() {
	case '{':
		if !spec.members(d, root, seen, args, hasBody) {
			return errNotJSON
		}
	case 'n':
		if !d.readToken() {
			return errNotJSON
		}
	default:
		if _, err := d.dec.ReadValue(); err != nil {
			return errNotJSON
		}
		if e := d.end(); e != nil {
			return e
		}
		return Validation("the request body must be a JSON object", FieldError{"", "expected an object"})
	}
	return d.end()
}

var errNotJSON = &Error{Status: http.StatusBadRequest, Code: CodeBadRequest, Message: "the request body is not valid JSON"}

// end checks that nothing follows the object.
func (d *decoder) end() *Error {
	if d.dec.PeekKind() == 0 {
		if _, err := d.dec.ReadToken(); errors.Is(err, io.EOF) {
			return nil
		}
	}
	return &Error{Status: http.StatusBadRequest, Code: CodeBadRequest, Message: "the request body holds more than one JSON value"}
}

// members reads the top-level members: each where its field travels, or
// refused naming it.
func (spec *inputSpec) members(d *decoder, root reflect.Value, seen *presence, args *restbridge.Arguments, hasBody bool) bool {
	if !d.readToken() {
		return false
	}
	n := spec.root
	// Through the bridge, what is not a body field would have travelled
	// in the query string for a request without a body.
	unknownMsg, elsewhere := "unknown field", "the body"
	if args != nil && !hasBody {
		unknownMsg, elsewhere = "unknown query parameter", "the query string"
	}
	var unknown []string
	for d.dec.PeekKind() != '}' {
		nb, bad, ok := d.name()
		if !ok {
			return false
		}
		p := n.props[string(nb)]
		if args != nil && !hasBody && !bad && !args.Routed(nb) && (p == nil || p.where == inPath) {
			// The request the bridge would have built carries this member
			// in its query string only if it has text there: null or an
			// empty list sends nothing, and nothing is refused.
			name := string(nb)
			texts, ok := d.hasQueryText()
			if !ok {
				return false
			}
			if texts && p == nil {
				d.misplaced(name, unknownMsg)
			} else if texts {
				d.misplaced(name, "must be sent in the "+p.where+", not in "+elsewhere)
			}
			continue
		}
		switch {
		case bad, args != nil && args.Routed(nb):
		case p == nil:
			if name := string(nb); !contains(unknown, name) {
				unknown = append(unknown, name)
				if args != nil && !hasBody {
					d.misplaced(name, unknownMsg)
				} else {
					d.failAt(name, unknownMsg)
				}
			}
		case p.where == inPath || (p.where == inQuery && args == nil):
			d.misplaced(p.name, "must be sent in the "+p.where+", not in "+elsewhere)
		case seen.has(p.i, len(n.list)):
			d.failAt(p.name, "appears more than once")
		case p.where == inQuery:
			d.push(p.name)
			ok, present := d.queryArgument(p.n, fieldOf(root, p.index))
			d.pop()
			if !ok {
				return false
			}
			if present {
				seen.mark(p.i, len(n.list))
			}
			continue
		default:
			seen.mark(p.i, len(n.list))
			d.push(p.name)
			ok := d.value(p.n, fieldOf(root, p.index))
			d.pop()
			if !ok {
				return false
			}
			continue
		}
		if !d.skip() {
			return false
		}
	}
	return d.readToken()
}

// hasQueryText reads a value and reports whether a query string would
// carry any text for it: anything but null and lists of nothing.
func (d *decoder) hasQueryText() (texts, ok bool) {
	switch d.dec.PeekKind() {
	case 'n':
		return false, d.skip()
	case '[':
		if !d.readToken() {
			return false, false
		}
		any := false
		for d.dec.PeekKind() != ']' {
			t, ok := d.hasQueryText()
			if !ok {
				return false, false
			}
			any = any || t
		}
		return any, d.readToken()
	}
	return true, d.skip()
}

// queryArgument reads a tools/call argument that the REST request carries
// in its query string, as that query string would: a string, number or
// boolean is its text, an array its items' texts, null (or an empty
// array) no parameter at all. An object has no query text: it is refused
// by type. present is false when no parameter results.
func (d *decoder) queryArgument(n *node, v reflect.Value) (ok, present bool) {
	if d.dec.PeekKind() == '0' && (n.mainType == "integer" || n.mainType == "number") {
		// A number for a numeric parameter (a limit, say): its text is its
		// literal, read in place instead of copied into a string first.
		raw, err := d.dec.ReadValue()
		if err != nil {
			d.syntax = err
			return false, false
		}
		d.numberText(n, raw, v)
		return true, true
	}
	var buf [4]string
	texts := buf[:0]
	list := n.mainType == "array" && n.items != nil
	parts := 0 // the list items the texts so far make, once split at commas
	refused := false
	var read func() bool
	read = func() bool {
		switch d.dec.PeekKind() {
		case '{':
			want := n.want
			if list {
				want = n.items.want
			}
			d.failKind(&kind.Type{Got: "object", Want: want})
			refused = true
			return d.skip()
		case '[':
			if !d.readToken() {
				return false
			}
			for d.dec.PeekKind() != ']' {
				if !read() {
					return false
				}
			}
			return d.readToken()
		}
		raw, err := d.dec.ReadValue()
		if err != nil {
			d.syntax = err
			return false
		}
		text := ""
		switch raw.Kind() {
		case '"':
			u, problem := d.unquote(raw)
			if problem != "" {
				// Name the list item the query string would hold it in.
				refused = true
				if !list {
					d.fail(problem)
					return true
				}
				i := 0
				for part := range bytes.SplitSeq(u, []byte(",")) {
					if bytes.IndexByte(part, 0) >= 0 || bytes.ContainsRune(part, utf8.RuneError) {
						break
					}
					i++
				}
				d.pushIndex(parts + i)
				d.fail(problem)
				d.pop()
				return true
			}
			text = string(u)
		case '0':
			text = string(raw)
		case 't':
			text = "true"
		case 'f':
			text = "false"
		default: // null
			return true
		}
		texts = append(texts, text)
		parts += strings.Count(text, ",") + 1
		return true
	}
	if !read() {
		return false, false
	}
	if refused {
		return true, true
	}
	if len(texts) == 0 {
		return true, false
	}
	d.texts(n, texts, v)
	return true, true
}

// readBody reads a request body: nil when it is empty, an error when it
// is too large, unreadable or not JSON by its Content-Type.
func readBody(r *http.Request) ([]byte, *Error) {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, errTooLarge(tooBig.Limit)
		}
		return nil, &Error{Status: http.StatusBadRequest, Code: CodeBadRequest, Message: "the request body could not be read"}
	}
	if len(strings.TrimSpace(string(raw))) == 0 {
		return nil, nil
	}
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return nil, &Error{Status: http.StatusUnsupportedMediaType, Code: CodeUnsupportedMedia, Message: "the request body must be application/json"}
		}
	}
	return raw, nil
}

func errTooLarge(limit int64) *Error {
	return &Error{Status: http.StatusRequestEntityTooLarge, Code: CodePayloadTooLarge, Message: fmt.Sprintf("the request body exceeds %d bytes", limit)}
}

// fieldErrors flattens a validation error into one detail per field.
func fieldErrors(ve *sv.ValidationError) []FieldError {
	var out []FieldError
	var walk func(e *sv.ValidationError)
	walk = func(e *sv.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		base := strings.Join(e.InstanceLocation, ".")
		switch k := e.ErrorKind.(type) {
		case *kind.AdditionalProperties:
			for _, p := range k.Properties {
				out = append(out, FieldError{join(base, p), "unknown field"})
			}
		case *kind.Required:
			for _, p := range k.Missing {
				out = append(out, FieldError{join(base, p), "is required"})
			}
		default:
			out = append(out, FieldError{base, e.ErrorKind.LocalizedString(printer)})
		}
	}
	walk(ve)
	return out
}

func join(base, field string) string {
	if base == "" {
		return field
	}
	return base + "." + field
}
