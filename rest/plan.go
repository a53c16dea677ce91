package rest

import (
	"encoding"
	encjson "encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sv "github.com/santhosh-tekuri/jsonschema/v6"
)

// A plan is an input's JSON Schema compiled together with its Go type, so
// that one walk over a request's JSON both validates it and fills the
// input struct: no intermediate map, no re-encoding. The rules are read
// from the generated schema itself (the one published as the tool's
// inputSchema and in the OpenAPI document), never re-derived from struct
// tags, and their messages are the validator's own (kind.*), so a plan
// refuses exactly what the schema refuses, in the same words.

// jsonType is a set of JSON Schema types.
type jsonType uint8

const (
	tNull jsonType = 1 << iota
	tBoolean
	tNumber
	tInteger
	tString
	tArray
	tObject
)

// typeNames lists the types in the order the validator names them.
var typeNames = []struct {
	t    jsonType
	name string
}{{tNull, "null"}, {tBoolean, "boolean"}, {tNumber, "number"}, {tInteger, "integer"}, {tString, "string"}, {tArray, "array"}, {tObject, "object"}}

func typeOfName(name string) jsonType {
	for _, tn := range typeNames {
		if tn.name == name {
			return tn.t
		}
	}
	return 0
}

// goKind is how a value lands in Go.
type goKind uint8

const (
	kString goKind = iota
	kBool
	kInt
	kUint
	kFloat
	kSlice
	kArray
	kMap
	kStruct
	kAny           // an empty interface: encoding/json's generic values
	kUnmarshalJSON // a json.Unmarshaler (time.Time, say)
	kUnmarshalText // an encoding.TextUnmarshaler, from a JSON string
)

// additional says what an object node does with members it does not
// declare.
type additional uint8

const (
	addUnchecked additional = iota // allowed, not validated
	addRefused                     // "unknown field"
	addSchema                      // validated with node.elem
)

// node is one schema position and the Go type a value there fills.
type node struct {
	// Schema rules.
	types    jsonType // 0: any type
	want     []string // the type names, for "got x, want y"
	mainType string   // the schema's single "type", which path and query text converts to
	enum     []any    // allowed values as the validator holds them; nil: no enum
	format   *sv.Schema
	minLen   int // -1: none
	maxLen   int
	pattern  *regexp.Regexp
	min, max *big.Rat
	minItems int // -1: none
	maxItems int

	// Go side.
	typ   reflect.Type // the destination type, pointers included
	base  reflect.Type // typ without its pointers
	ptrs  int
	kind  goKind
	items *node // arrays
	elem  *node // map values, or additional members validated by schema
	shape *node // a json.Unmarshaler's JSON, validated before its method runs
	add   additional
	props map[string]*prop // struct members
	list  []*prop          // struct members in declaration order
	// required lists the indexes in list of the required members.
	required []int
}

// prop is one member of a struct node.
type prop struct {
	name  string
	index []int // the Go field, possibly through embedded structs
	n     *node
	i     int    // position in the node's list (its presence bit)
	where string // top level only: path, query or body
}

var (
	jsonUnmarshaler = reflect.TypeFor[encjson.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// allowedKeywords are the schema keywords a plan implements or that only
// annotate. Anything else fails the operation's declaration rather than
// be ignored silently.
var allowedKeywords = map[string]bool{
	"type": true, "enum": true, "format": true, "pattern": true, "minLength": true, "maxLength": true,
	"minimum": true, "maximum": true, "minItems": true, "maxItems": true, "items": true,
	"properties": true, "required": true, "additionalProperties": true,
	"title": true, "description": true, "default": true, "examples": true, "deprecated": true,
	"readOnly": true, "writeOnly": true, "$comment": true,
}

// compilePlan compiles schema s for values of Go type t; where names the
// position for error messages.
func compilePlan(s *jsonschema.Schema, t reflect.Type, where string) (*node, error) {
	return compileNode(s, t, where, true)
}

// compileNode compiles one position. With methods false, a type's
// UnmarshalJSON is ignored: the node then checks the JSON the schema
// describes, before the method reads it.
func compileNode(s *jsonschema.Schema, t reflect.Type, where string, methods bool) (*node, error) {
	n := &node{typ: t, minLen: -1, maxLen: -1, minItems: -1, maxItems: -1}
	base := t
	for base.Kind() == reflect.Pointer {
		base = base.Elem()
		n.ptrs++
	}
	n.base = base
	if s == nil {
		s = &jsonschema.Schema{}
	}
	raw, err := encjson.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	if string(raw) == "false" {
		return nil, fmt.Errorf("%s: a schema that refuses everything cannot be an input", where)
	}
	if string(raw) != "true" {
		var keys map[string]encjson.RawMessage
		if err := encjson.Unmarshal(raw, &keys); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		for k := range keys {
			if !allowedKeywords[k] {
				return nil, fmt.Errorf("%s: the JSON Schema keyword %q is not supported in inputs", where, k)
			}
		}
	}
	switch {
	case s.Type != "":
		n.types = typeOfName(s.Type)
		n.mainType = s.Type
	case len(s.Types) > 0:
		for _, name := range s.Types {
			n.types |= typeOfName(name)
		}
	}
	for _, tn := range typeNames {
		if n.types&tn.t != 0 {
			n.want = append(n.want, tn.name)
		}
	}
	if s.Enum != nil {
		// The validator reads enum values from the schema's JSON: numbers
		// become json.Number, and messages print them so.
		b, err := encjson.Marshal(s.Enum)
		if err != nil {
			return nil, fmt.Errorf("%s: enum: %w", where, err)
		}
		dec := encjson.NewDecoder(strings.NewReader(string(b)))
		dec.UseNumber()
		if err := dec.Decode(&n.enum); err != nil {
			return nil, fmt.Errorf("%s: enum: %w", where, err)
		}
		if n.enum == nil {
			n.enum = []any{}
		}
	}
	if s.Format != "" {
		if n.format, err = compileFormat(s.Format); err != nil {
			return nil, fmt.Errorf("%s: format %q: %w", where, s.Format, err)
		}
	}
	if s.Pattern != "" {
		if n.pattern, err = regexp.Compile(s.Pattern); err != nil {
			return nil, fmt.Errorf("%s: pattern: %w", where, err)
		}
	}
	if s.MinLength != nil {
		n.minLen = *s.MinLength
	}
	if s.MaxLength != nil {
		n.maxLen = *s.MaxLength
	}
	if s.MinItems != nil {
		n.minItems = *s.MinItems
	}
	if s.MaxItems != nil {
		n.maxItems = *s.MaxItems
	}
	// The validator reads bounds from the schema's JSON text: 0.1 is one
	// tenth, not the float64 nearest to it.
	if s.Minimum != nil {
		n.min, _ = new(big.Rat).SetString(strconv.FormatFloat(*s.Minimum, 'g', -1, 64))
	}
	if s.Maximum != nil {
		n.max, _ = new(big.Rat).SetString(strconv.FormatFloat(*s.Maximum, 'g', -1, 64))
	}

	pt := reflect.PointerTo(base)
	switch {
	case methods && pt.Implements(jsonUnmarshaler):
		n.kind = kUnmarshalJSON
		// The shape validates an object or array before UnmarshalJSON
		// reads it; a type whose Go shape has no plan (unexported fields
		// behind a schema of its own) is checked by the string rule only.
		n.shape, _ = compileNode(s, base, where, false)
		return n, nil
	case methods && pt.Implements(textUnmarshaler):
		n.kind = kUnmarshalText
		return n, nil
	}
	switch base.Kind() {
	case reflect.String:
		n.kind = kString
	case reflect.Bool:
		n.kind = kBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n.kind = kInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		n.kind = kUint
	case reflect.Float32, reflect.Float64:
		n.kind = kFloat
	case reflect.Interface:
		if base.NumMethod() != 0 {
			return nil, fmt.Errorf("%s: %v: only the empty interface can hold an input", where, base)
		}
		n.kind = kAny
		if s.Items != nil || s.Properties != nil || s.AdditionalProperties != nil {
			return nil, fmt.Errorf("%s: an interface's schema cannot describe its members", where)
		}
	case reflect.Slice, reflect.Array:
		if base.Kind() == reflect.Slice && base.Elem().Kind() == reflect.Uint8 {
			// encoding/json reads []byte as base64 text, its schema says an
			// array of integers: the two would disagree.
			return nil, fmt.Errorf("%s: []byte inputs are not supported", where)
		}
		n.kind = kSlice
		if base.Kind() == reflect.Array {
			n.kind = kArray
		}
		if n.items, err = compilePlan(s.Items, base.Elem(), where+"[]"); err != nil {
			return nil, err
		}
	case reflect.Map:
		if base.Key().Kind() != reflect.String {
			return nil, fmt.Errorf("%s: map keys must be strings", where)
		}
		n.kind = kMap
		if err := n.additionalMembers(s, base.Elem(), where); err != nil {
			return nil, err
		}
		if n.add == addRefused {
			return nil, fmt.Errorf("%s: a map whose schema refuses every member", where)
		}
		if n.add == addUnchecked {
			// The map's values still land somewhere: give them a plan
			// that checks nothing.
			if n.elem, err = compilePlan(&jsonschema.Schema{}, base.Elem(), where+"{}"); err != nil {
				return nil, err
			}
		}
	case reflect.Struct:
		n.kind = kStruct
		if err := n.structMembers(s, base, where); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%s: %v is not supported in inputs", where, base)
	}
	return n, nil
}

// additionalMembers reads additionalProperties.
func (n *node) additionalMembers(s *jsonschema.Schema, elem reflect.Type, where string) error {
	a := s.AdditionalProperties
	if a == nil {
		n.add = addUnchecked
		return nil
	}
	raw, err := encjson.Marshal(a)
	if err != nil {
		return err
	}
	switch string(raw) {
	case "true":
		n.add = addUnchecked
		return nil
	case "false":
		n.add = addRefused
		return nil
	}
	n.add = addSchema
	n.elem, err = compilePlan(a, elem, where+"{}")
	return err
}

// structMembers pairs the schema's properties with the struct's fields, by
// the JSON names encoding/json would use.
func (n *node) structMembers(s *jsonschema.Schema, t reflect.Type, where string) error {
	if err := n.additionalMembers(s, reflect.TypeFor[any](), where); err != nil {
		return err
	}
	n.props = map[string]*prop{}
	for _, f := range reflect.VisibleFields(t) {
		if f.Anonymous || !f.IsExported() {
			continue
		}
		// The names and omissions encoding/json and google/jsonschema-go
		// use: "-" omits the field, "-," names it "-".
		name, opts, hasOpts := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" && !hasOpts {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if slices.Contains(strings.Split(opts, ","), "string") {
			return fmt.Errorf("%s.%s: the json \",string\" option is not supported in inputs", where, name)
		}
		if _, dup := n.props[name]; dup {
			return fmt.Errorf("%s: two fields are named %q", where, name)
		}
		ps := s.Properties[name]
		if ps == nil {
			return fmt.Errorf("%s: field %s has no schema", where, name)
		}
		pn, err := compilePlan(ps, f.Type, join(where, name))
		if err != nil {
			return err
		}
		p := &prop{name: name, index: f.Index, n: pn, i: len(n.list)}
		n.props[name] = p
		n.list = append(n.list, p)
	}
	for name := range s.Properties {
		if n.props[name] == nil {
			return fmt.Errorf("%s: property %q has no field", where, name)
		}
	}
	for _, name := range s.Required {
		p := n.props[name]
		if p == nil {
			return fmt.Errorf("%s: required property %q has no field", where, name)
		}
		n.required = append(n.required, p.i)
	}
	return nil
}

// compileFormat compiles a schema holding only a format, which validates
// one value with the validator's own format checks and messages.
func compileFormat(format string) (*sv.Schema, error) {
	c := sv.NewCompiler()
	c.DefaultDraft(sv.Draft2020)
	c.AssertFormat()
	if err := c.AddResource("format.json", map[string]any{"format": format}); err != nil {
		return nil, err
	}
	return c.Compile("format.json")
}
