package rest

import (
	"bytes"
	encjson "encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	sv "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/message"
)

// decoder walks one request's input once, validating each value against
// its plan node as it fills the destination. Validation errors are
// collected, one per field, as the validator reports them; a syntax error
// ends the walk (the request is then not JSON, which is answered first).
type decoder struct {
	dec     *jsontext.Decoder
	in      []byte
	buf     bytes.Buffer // in, read in place by dec
	path    []seg
	placed  []FieldError // where fields travel: reported before their values' errors
	details []FieldError
	scratch []byte
	lit     []byte // the literal of a number read from path or query text
	syntax  error
}

// seg is one step of the path to the value being read: a member name, or
// an array index when idx >= 0.
type seg struct {
	name string
	idx  int
}

// The walk reads invalid UTF-8 and unpaired surrogates without failing, so
// it can name the field that holds them (a validation error), and tracks
// duplicate names itself for the same reason.
var walkOptions = json.JoinOptions(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))

var decoderPool = sync.Pool{New: func() any { return &decoder{dec: jsontext.NewDecoder(bytes.NewReader(nil))} }}

func getDecoder() *decoder {
	d := decoderPool.Get().(*decoder)
	d.path = d.path[:0]
	d.placed = nil
	d.details = nil
	d.syntax = nil
	return d
}

func putDecoder(d *decoder) {
	// Drop the input; resetting onto the decoder's own empty buffer
	// allocates nothing.
	d.in = nil
	d.buf = bytes.Buffer{}
	d.dec.Reset(&d.buf)
	if cap(d.scratch) > 64<<10 {
		d.scratch = nil
	}
	decoderPool.Put(d)
}

// start positions the decoder at the beginning of in, which it reads in
// place (a bytes.Buffer is read without copying).
func (d *decoder) start(in []byte) {
	d.in = in
	d.buf = *bytes.NewBuffer(in)
	d.dec.Reset(&d.buf, walkOptions)
}

func (d *decoder) push(name string) { d.path = append(d.path, seg{name: name, idx: -1}) }
func (d *decoder) pushIndex(i int)  { d.path = append(d.path, seg{idx: i}) }
func (d *decoder) pop()             { d.path = d.path[:len(d.path)-1] }

// field names the value being read: "filters.0.field".
func (d *decoder) field() string {
	var b strings.Builder
	for i, s := range d.path {
		if i > 0 {
			b.WriteByte('.')
		}
		if s.idx >= 0 {
			b.WriteString(strconv.Itoa(s.idx))
		} else {
			b.WriteString(s.name)
		}
	}
	return b.String()
}

func (d *decoder) fail(msg string) {
	d.details = append(d.details, FieldError{Field: d.field(), Message: msg})
}

// failAt reports a member of the value being read.
func (d *decoder) failAt(name, msg string) {
	d.details = append(d.details, FieldError{Field: join(d.field(), name), Message: msg})
}

// misplaced reports a top-level member in the wrong place, or unknown
// there. Such details come before those of the values, as they did when
// they were found before validation.
func (d *decoder) misplaced(name, msg string) {
	d.placed = append(d.placed, FieldError{Field: name, Message: msg})
}

// failKind reports an error in the validator's own words.
func (d *decoder) failKind(k interface{ LocalizedString(*message.Printer) string }) {
	d.fail(k.LocalizedString(printer))
}

// readToken and skip wrap the decoder's reads: a failure is a syntax
// error, which ends the walk.
func (d *decoder) readToken() bool {
	if _, err := d.dec.ReadToken(); err != nil {
		d.syntax = err
		return false
	}
	return true
}

func (d *decoder) skip() bool {
	if err := d.dec.SkipValue(); err != nil {
		d.syntax = err
		return false
	}
	return true
}

// Messages of the string rule (package documentation, "Strings"): every
// string input is text both databases store alike, or a validation error
// naming it.
const (
	msgNUL       = "must not contain the NUL character (U+0000)"
	msgSurrogate = "must not contain an unpaired UTF-16 surrogate escape (\\uD800-\\uDFFF)"
	msgUTF8      = "must be valid UTF-8"
)

// textProblem applies the string rule to path and query text.
func textProblem(s string) string {
	if strings.IndexByte(s, 0) >= 0 {
		return msgNUL
	}
	if !utf8.ValidString(s) {
		return msgUTF8
	}
	return ""
}

// unquote decodes a raw JSON string, applying the string rule. The result
// may alias the input or d.scratch: use it before the next read.
func (d *decoder) unquote(raw []byte) ([]byte, string) {
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		if !utf8.Valid(inner) {
			return inner, msgUTF8
		}
		return inner, ""
	}
	var err error
	d.scratch, err = jsontext.AppendUnquote(d.scratch[:0], raw)
	if err != nil {
		if !utf8.Valid(inner) {
			return d.scratch, msgUTF8
		}
		return d.scratch, msgSurrogate
	}
	if bytes.IndexByte(d.scratch, 0) >= 0 {
		return d.scratch, msgNUL
	}
	return d.scratch, ""
}

// name reads a member name. The name aliases the input or d.scratch: use
// it before the next read. ok is false on a syntax error; bad says the
// name breaks the string rule, which is already reported.
func (d *decoder) name() (name []byte, bad bool, ok bool) {
	raw, err := d.dec.ReadValue()
	if err != nil {
		d.syntax = err
		return nil, false, false
	}
	u, problem := d.unquote(raw)
	if problem != "" {
		d.failAt(string(u), "key "+problem)
		return u, true, true
	}
	return u, false, true
}

// scalar is one JSON scalar, or path or query text converted to one.
type scalar struct {
	kind byte // 'n' null, 't' boolean, '0' number, '"' string
	b    bool
	lit  []byte // a number's literal
	s    string
	raw  []byte // the JSON text; nil for path and query text
}

// jsonType is the scalar's type as the validator sees it (numbers are
// "number", integral or not).
func (sc *scalar) jsonType() jsonType {
	switch sc.kind {
	case 'n':
		return tNull
	case 't':
		return tBoolean
	case '0':
		return tNumber
	}
	return tString
}

// value is the scalar as the validator holds it, for its messages.
func (sc *scalar) value() any {
	switch sc.kind {
	case 'n':
		return nil
	case 't':
		return sc.b
	case '0':
		return encjson.Number(sc.lit)
	}
	return sc.s
}

func typeName(t jsonType) string {
	for _, tn := range typeNames {
		if tn.t == t {
			return tn.name
		}
	}
	return ""
}

// readScalar reads the scalar at the decoder's position. ok is false when
// it was refused (the string rule) or on a syntax error (d.syntax set).
func (d *decoder) readScalar() (scalar, bool) {
	raw, err := d.dec.ReadValue()
	if err != nil {
		d.syntax = err
		return scalar{}, false
	}
	sc := scalar{kind: byte(raw.Kind()), raw: raw}
	switch sc.kind {
	case 't', 'f':
		sc.kind, sc.b = 't', raw[0] == 't'
	case '0':
		sc.lit = raw
	case '"':
		u, problem := d.unquote(raw)
		if problem != "" {
			d.fail(problem)
			return sc, false
		}
		sc.s = string(u)
	}
	return sc, true
}

// value reads one JSON value into v (when v is valid; otherwise it only
// validates), following plan node n.
func (d *decoder) value(n *node, v reflect.Value) bool {
	k := d.dec.PeekKind()
	switch k {
	case 0:
		return d.readToken() // reports the syntax error
	case '{', '[':
		t := tObject
		if k == '[' {
			t = tArray
		}
		if n.types != 0 && n.types&t == 0 {
			d.failKind(&kind.Type{Got: typeName(t), Want: n.want})
			return d.skip()
		}
		switch n.kind {
		case kAny:
			val, ok := d.anyValue()
			if ok && v.IsValid() {
				d.target(n, v).Set(reflect.ValueOf(&val).Elem())
			}
			return ok
		case kUnmarshalJSON:
			return d.unmarshalComposite(n, v)
		}
		if k == '{' {
			switch n.kind {
			case kStruct:
				return d.structObject(n, d.target(n, v))
			case kMap:
				return d.mapObject(n, d.target(n, v))
			}
		} else if n.kind == kSlice || n.kind == kArray {
			return d.array(n, d.target(n, v))
		}
		d.mismatch(n, t)
		return d.skip()
	}
	sc, ok := d.readScalar()
	if !ok {
		return d.syntax == nil
	}
	d.scalar(n, &sc, v)
	return true
}

// target allocates the pointers between v and the value it designates.
func (d *decoder) target(n *node, v reflect.Value) reflect.Value {
	if !v.IsValid() {
		return v
	}
	for range n.ptrs {
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		v = v.Elem()
	}
	return v
}

// mismatch reports a value the schema allows but the Go type cannot hold
// (a schema without a type over a typed field).
func (d *decoder) mismatch(n *node, got jsonType) {
	want := map[goKind]string{kString: "string", kBool: "boolean", kInt: "integer", kUint: "integer", kFloat: "number",
		kSlice: "array", kArray: "array", kMap: "object", kStruct: "object", kUnmarshalText: "string"}[n.kind]
	d.failKind(&kind.Type{Got: typeName(got), Want: []string{want}})
}

// scalar validates a scalar against n, in the validator's order (type,
// enum and format each end the checks; then every length, pattern and
// bound), then stores it.
func (d *decoder) scalar(n *node, sc *scalar, v reflect.Value) {
	got := sc.jsonType()
	if n.types != 0 && n.types&got == 0 {
		if got != tNumber || n.types&tInteger == 0 || !integral(sc.lit) {
			d.failKind(&kind.Type{Got: typeName(got), Want: n.want})
			return
		}
	}
	if n.enum != nil && !enumHas(n.enum, sc) {
		d.failKind(&kind.Enum{Got: sc.value(), Want: n.enum})
		return
	}
	if n.format != nil {
		if err := n.format.Validate(sc.value()); err != nil {
			var ve *sv.ValidationError
			if errors.As(err, &ve) {
				for _, fe := range fieldErrors(ve) {
					d.fail(fe.Message)
				}
			} else {
				d.fail(err.Error())
			}
			return
		}
	}
	failed := len(d.details)
	switch sc.kind {
	case '"':
		if n.minLen >= 0 || n.maxLen >= 0 {
			count := utf8.RuneCountInString(sc.s)
			if n.minLen >= 0 && count < n.minLen {
				d.failKind(&kind.MinLength{Got: count, Want: n.minLen})
			}
			if n.maxLen >= 0 && count > n.maxLen {
				d.failKind(&kind.MaxLength{Got: count, Want: n.maxLen})
			}
		}
		if n.pattern != nil && !n.pattern.MatchString(sc.s) {
			d.failKind(&kind.Pattern{Got: sc.s, Want: n.pattern.String()})
		}
	case '0':
		if n.min != nil && compareBound(sc.lit, n.min) < 0 {
			d.failKind(&kind.Minimum{Got: rat(sc.lit), Want: n.min})
		}
		if n.max != nil && compareBound(sc.lit, n.max) > 0 {
			d.failKind(&kind.Maximum{Got: rat(sc.lit), Want: n.max})
		}
	}
	if len(d.details) > failed || !v.IsValid() {
		return
	}
	d.store(n, sc, v)
}

// store puts a valid scalar into v, as encoding/json would.
func (d *decoder) store(n *node, sc *scalar, v reflect.Value) {
	switch n.kind {
	case kUnmarshalJSON:
		raw := sc.raw
		if raw == nil {
			raw = jsonOf(sc)
		}
		if sc.kind == 'n' && n.ptrs > 0 {
			v.SetZero()
			return
		}
		t := d.target(n, v)
		if err := t.Addr().Interface().(encjson.Unmarshaler).UnmarshalJSON(raw); err != nil {
			d.fail(err.Error())
		}
		return
	case kUnmarshalText:
		if sc.kind == 'n' {
			v.SetZero()
			return
		}
		if sc.kind != '"' {
			d.mismatch(n, sc.jsonType())
			return
		}
		t := d.target(n, v)
		if err := t.Addr().Interface().(interface{ UnmarshalText([]byte) error }).UnmarshalText([]byte(sc.s)); err != nil {
			d.fail(err.Error())
		}
		return
	}
	if sc.kind == 'n' {
		// encoding/json: null empties pointers, maps, slices and
		// interfaces and leaves anything else alone.
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice:
			v.SetZero()
		}
		return
	}
	t := d.target(n, v)
	switch n.kind {
	case kString:
		if sc.kind == '"' {
			t.SetString(sc.s)
			return
		}
	case kBool:
		if sc.kind == 't' {
			t.SetBool(sc.b)
			return
		}
	case kInt:
		if sc.kind == '0' {
			i, ok := parseInt(sc.lit)
			if !ok || t.OverflowInt(i) {
				d.fail(fmt.Sprintf("%s is out of range for %v", sc.lit, n.base))
				return
			}
			t.SetInt(i)
			return
		}
	case kUint:
		if sc.kind == '0' {
			i, ok := parseInt(sc.lit)
			if !ok || i < 0 || t.OverflowUint(uint64(i)) {
				u, err := strconv.ParseUint(string(sc.lit), 10, 64)
				if err != nil || t.OverflowUint(u) {
					d.fail(fmt.Sprintf("%s is out of range for %v", sc.lit, n.base))
					return
				}
				t.SetUint(u)
				return
			}
			t.SetUint(uint64(i))
			return
		}
	case kFloat:
		if sc.kind == '0' {
			f, err := strconv.ParseFloat(string(sc.lit), t.Type().Bits())
			if err != nil {
				d.fail(fmt.Sprintf("%s is out of range for %v", sc.lit, n.base))
				return
			}
			t.SetFloat(f)
			return
		}
	case kAny:
		val, ok := d.anyScalar(sc)
		if ok {
			t.Set(reflect.ValueOf(&val).Elem())
		}
		return
	}
	d.mismatch(n, sc.jsonType())
}

// anyScalar is a scalar as encoding/json stores it in an interface.
func (d *decoder) anyScalar(sc *scalar) (any, bool) {
	switch sc.kind {
	case 'n':
		return nil, true
	case 't':
		return sc.b, true
	case '0':
		f, err := strconv.ParseFloat(string(sc.lit), 64)
		if err != nil {
			d.fail(fmt.Sprintf("%s is out of range for float64", sc.lit))
			return nil, false
		}
		return f, true
	}
	return sc.s, true
}

// anyValue reads a value without a schema, as encoding/json stores it in
// an interface: the string rule still applies at every depth, keys
// included.
func (d *decoder) anyValue() (any, bool) {
	switch d.dec.PeekKind() {
	case 0:
		return nil, d.readToken()
	case '{':
		if !d.readToken() {
			return nil, false
		}
		m := map[string]any{}
		for d.dec.PeekKind() != '}' {
			nb, bad, ok := d.name()
			if !ok {
				return nil, false
			}
			if bad {
				if !d.skip() {
					return nil, false
				}
				continue
			}
			name := string(nb)
			if _, dup := m[name]; dup {
				d.failAt(name, "appears more than once")
				if !d.skip() {
					return nil, false
				}
				continue
			}
			d.push(name)
			val, ok := d.anyValue()
			d.pop()
			if !ok {
				return nil, false
			}
			m[name] = val
		}
		return m, d.readToken()
	case '[':
		if !d.readToken() {
			return nil, false
		}
		list := []any{}
		for i := 0; d.dec.PeekKind() != ']'; i++ {
			d.pushIndex(i)
			val, ok := d.anyValue()
			d.pop()
			if !ok {
				return nil, false
			}
			list = append(list, val)
		}
		return list, d.readToken()
	}
	sc, ok := d.readScalar()
	if !ok {
		return nil, d.syntax == nil
	}
	val, _ := d.anyScalar(&sc)
	return val, true
}

// unmarshalComposite validates an object or array against the type's
// schema (and the string rule) as it reads it, then hands its text to the
// type's UnmarshalJSON.
func (d *decoder) unmarshalComposite(n *node, v reflect.Value) bool {
	start := d.dec.InputOffset()
	before := len(d.details)
	if n.shape != nil {
		if !d.value(n.shape, reflect.Value{}) {
			return false
		}
	} else if _, ok := d.anyValue(); !ok {
		return false
	}
	if len(d.details) > before || !v.IsValid() {
		return true
	}
	raw := bytes.TrimLeft(d.in[start:d.dec.InputOffset()], " \t\r\n:,")
	if err := d.target(n, v).Addr().Interface().(encjson.Unmarshaler).UnmarshalJSON(raw); err != nil {
		d.fail(err.Error())
	}
	return true
}

// presence records which members of an object were read.
type presence struct {
	small [2]uint64
	big   []uint64
}

func (p *presence) words(n int) []uint64 {
	if n <= 128 {
		return p.small[:]
	}
	if p.big == nil {
		p.big = make([]uint64, (n+63)/64)
	}
	return p.big
}

// mark sets member i and reports whether it was already set.
func (p *presence) mark(i, n int) bool {
	w := p.words(n)
	was := w[i/64]&(1<<(i%64)) != 0
	w[i/64] |= 1 << (i % 64)
	return was
}

func (p *presence) has(i, n int) bool { return p.words(n)[i/64]&(1<<(i%64)) != 0 }

// structObject reads an object into a struct.
func (d *decoder) structObject(n *node, v reflect.Value) bool {
	if !d.readToken() {
		return false
	}
	var seen presence
	var unknown []string
	for d.dec.PeekKind() != '}' {
		nb, bad, ok := d.name()
		if !ok {
			return false
		}
		p := n.props[string(nb)]
		switch {
		case bad:
		case p == nil:
			switch n.add {
			case addRefused:
				if name := string(nb); !contains(unknown, name) {
					unknown = append(unknown, name)
					d.failAt(name, "unknown field")
				}
			case addSchema:
				d.push(string(nb))
				ok := d.value(n.elem, reflect.Value{})
				d.pop()
				if !ok {
					return false
				}
				continue
			}
		case seen.mark(p.i, len(n.list)):
			d.failAt(p.name, "appears more than once")
		default:
			d.push(p.name)
			ok := d.value(p.n, fieldOf(v, p.index))
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
	if !d.readToken() {
		return false
	}
	d.required(n, &seen)
	return true
}

// required reports the required members an object lacks.
func (d *decoder) required(n *node, seen *presence) {
	for _, i := range n.required {
		if !seen.has(i, len(n.list)) {
			d.failAt(n.list[i].name, "is required")
		}
	}
}

// fieldOf is v's field at index, allocating embedded pointers on the way;
// the invalid Value when v is.
func fieldOf(v reflect.Value, index []int) reflect.Value {
	if !v.IsValid() {
		return v
	}
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				if !v.CanSet() {
					return reflect.Value{}
				}
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v
}

var anyMapType = reflect.TypeFor[map[string]any]()

// mapObject reads an object into a map with string keys.
func (d *decoder) mapObject(n *node, v reflect.Value) bool {
	if !d.readToken() {
		return false
	}
	var generic map[string]any
	if v.IsValid() {
		if v.IsNil() {
			v.Set(reflect.MakeMap(v.Type()))
		}
		if v.Type() == anyMapType && n.elem.kind == kAny && n.elem.types == 0 && n.elem.enum == nil && n.elem.format == nil {
			generic = v.Interface().(map[string]any)
		}
	}
	for d.dec.PeekKind() != '}' {
		nb, bad, ok := d.name()
		if !ok {
			return false
		}
		if bad {
			if !d.skip() {
				return false
			}
			continue
		}
		name := string(nb)
		key := reflect.Value{}
		if v.IsValid() && generic == nil {
			key = reflect.ValueOf(name).Convert(v.Type().Key())
		}
		dup := false
		switch {
		case generic != nil:
			_, dup = generic[name]
		case key.IsValid():
			dup = v.MapIndex(key).IsValid()
		}
		if dup {
			d.failAt(name, "appears more than once")
			if !d.skip() {
				return false
			}
			continue
		}
		d.push(name)
		switch {
		case generic != nil:
			val, ok2 := d.anyValue()
			ok = ok2
			generic[name] = val
		case key.IsValid():
			elem := reflect.New(v.Type().Elem()).Elem()
			ok = d.value(n.elem, elem)
			v.SetMapIndex(key, elem)
		default:
			ok = d.value(n.elem, reflect.Value{})
		}
		d.pop()
		if !ok {
			return false
		}
	}
	return d.readToken()
}

// array reads an array into a slice or a Go array.
func (d *decoder) array(n *node, v reflect.Value) bool {
	if !d.readToken() {
		return false
	}
	if v.IsValid() && n.kind == kSlice {
		v.Set(reflect.MakeSlice(v.Type(), 0, 0))
	}
	count := 0
	for ; d.dec.PeekKind() != ']'; count++ {
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
		ok := d.value(n.items, elem)
		d.pop()
		if !ok {
			return false
		}
	}
	if !d.readToken() {
		return false
	}
	d.itemCount(n, count)
	return true
}

func (d *decoder) itemCount(n *node, count int) {
	if n.minItems >= 0 && count < n.minItems {
		d.failKind(&kind.MinItems{Got: count, Want: n.minItems})
	}
	if n.maxItems >= 0 && count > n.maxItems {
		d.failKind(&kind.MaxItems{Got: count, Want: n.maxItems})
	}
}

// integral reports whether a number literal is an integer, as the
// validator decides it (1.0 and 1e2 are).
func integral(lit []byte) bool {
	if plainInt(lit) {
		return true
	}
	r, ok := new(big.Rat).SetString(string(lit))
	return ok && r.IsInt()
}

// plainInt reports whether lit is digits with an optional sign.
func plainInt(lit []byte) bool {
	if len(lit) > 0 && (lit[0] == '-' || lit[0] == '+') {
		lit = lit[1:]
	}
	if len(lit) == 0 {
		return false
	}
	for _, c := range lit {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// smallInt reads a literal of at most 18 digits with an optional sign,
// which always fits an int64, without allocating.
func smallInt(lit []byte) (int64, bool) {
	neg := false
	if len(lit) > 0 && (lit[0] == '-' || lit[0] == '+') {
		neg = lit[0] == '-'
		lit = lit[1:]
	}
	if len(lit) == 0 || len(lit) > 18 {
		return 0, false
	}
	var i int64
	for _, c := range lit {
		if c < '0' || c > '9' {
			return 0, false
		}
		i = i*10 + int64(c-'0')
	}
	if neg {
		i = -i
	}
	return i, true
}

// parseInt reads an integral literal ("12", "1e2", "1.0") as an int64.
func parseInt(lit []byte) (int64, bool) {
	if i, ok := smallInt(lit); ok {
		return i, true
	}
	if plainInt(lit) {
		i, err := strconv.ParseInt(string(lit), 10, 64)
		if err != nil {
			return 0, false
		}
		return i, true
	}
	r, ok := new(big.Rat).SetString(string(lit))
	if !ok || !r.IsInt() || !r.Num().IsInt64() {
		return 0, false
	}
	return r.Num().Int64(), true
}

// rat is a number literal's exact value. Query text strconv reads but
// big.Rat does not falls back to its float64 value.
func rat(lit []byte) *big.Rat {
	if r, ok := new(big.Rat).SetString(string(lit)); ok {
		return r
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return new(big.Rat)
	}
	return new(big.Rat).SetFloat64(f)
}

// compareBound compares a number literal with a bound exactly, without
// allocating for the usual small integers.
func compareBound(lit []byte, bound *big.Rat) int {
	if i, ok := smallInt(lit); ok && bound.IsInt() && bound.Num().IsInt64() {
		b := bound.Num().Int64()
		switch {
		case i < b:
			return -1
		case i > b:
			return 1
		}
		return 0
	}
	return rat(lit).Cmp(bound)
}

// enumHas reports whether the scalar is one of the allowed values, by the
// validator's equality (numbers by value).
func enumHas(enum []any, sc *scalar) bool {
	for _, e := range enum {
		switch e := e.(type) {
		case string:
			if sc.kind == '"' && sc.s == e {
				return true
			}
		case bool:
			if sc.kind == 't' && sc.b == e {
				return true
			}
		case nil:
			if sc.kind == 'n' {
				return true
			}
		case encjson.Number:
			if sc.kind == '0' && rat(sc.lit).Cmp(rat([]byte(e))) == 0 {
				return true
			}
		}
	}
	return false
}

// jsonOf writes a text-sourced scalar as JSON, for an UnmarshalJSON.
func jsonOf(sc *scalar) []byte {
	switch sc.kind {
	case 'n':
		return []byte("null")
	case 't':
		return strconv.AppendBool(nil, sc.b)
	case '0':
		// A copy: the literal may be the decoder's buffer (textScalar),
		// and UnmarshalJSON may keep what it is given.
		return bytes.Clone(sc.lit)
	}
	b, _ := jsontext.AppendQuote(nil, sc.s)
	return b
}

// textScalar converts path or query text to the JSON type of the
// property, as a query string carries it (textKind); any other text stays
// a string, for the type check to refuse. A number's literal is written
// over lit, a buffer the caller reuses.
func textScalar(typ, text string, lit []byte) scalar {
	switch textKind(typ, text) {
	case '0':
		return scalar{kind: '0', lit: append(lit[:0], text...)}
	case 't':
		b, _ := strconv.ParseBool(text)
		return scalar{kind: 't', b: b}
	}
	return scalar{kind: '"', s: text}
}

// textKind is the JSON kind text converts to for a property of type typ:
// '0' for an integer strconv reads ("12", "+5", "007") or a finite
// number, 't' for a boolean ("true", "1", "F"…), '"' for anything else.
func textKind[T string | []byte](typ string, text T) byte {
	switch typ {
	case "integer":
		if _, err := strconv.ParseInt(string(text), 10, 64); err == nil {
			return '0'
		}
	case "number":
		if f, err := strconv.ParseFloat(string(text), 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return '0'
		}
	case "boolean":
		if _, err := strconv.ParseBool(string(text)); err == nil {
			return 't'
		}
	}
	return '"'
}
