package rest

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Where an input field travels in a REST request.
const (
	inPath  = "path"
	inQuery = "query"
	inBody  = "body"
)

// inputSpec is an operation's input type, analysed once: its flat JSON
// Schema, where each field travels, and the plan that validates and
// decodes requests by that schema in one walk.
type inputSpec struct {
	typ      reflect.Type
	schema   *jsonschema.Schema
	location map[string]string // json name → path, query or body
	order    []string          // json names in declaration order
	root     *node
}

// Struct tags read besides `json`:
//
//	in:"path" | in:"query"   where the field travels (default: body, or query for GET/DELETE)
//	jsonschema:"…"           the field's description (google/jsonschema-go)
//	enum:"a,b,c"             allowed values
//	format:"date-time"       a JSON Schema format
//	minimum, maximum         numeric bounds
//	minLength, maxLength     string length bounds
//	pattern                  a regular expression for strings
func analyseInput(typ reflect.Type, method string) (*inputSpec, error) {
	if typ.Kind() != reflect.Struct {
		return nil, fmt.Errorf("rest: input %v must be a struct", typ)
	}
	schema, err := jsonschema.ForType(typ, &jsonschema.ForOptions{})
	if err != nil {
		return nil, fmt.Errorf("rest: input %v: %w", typ, err)
	}
	spec := &inputSpec{typ: typ, schema: schema, location: map[string]string{}}
	defaultIn := inBody
	if method == "GET" || method == "HEAD" || method == "DELETE" {
		defaultIn = inQuery
	}
	if err := spec.walk(typ, defaultIn); err != nil {
		return nil, err
	}
	for name, prop := range schema.Properties {
		normaliseNullable(prop)
		if spec.location[name] == inPath && !contains(schema.Required, name) {
			schema.Required = append(schema.Required, name)
		}
	}
	if spec.root, err = compilePlan(schema, typ, ""); err != nil {
		return nil, fmt.Errorf("rest: input %v: %w", typ, err)
	}
	for _, p := range spec.root.list {
		if p.where = spec.location[p.name]; p.where == "" {
			return nil, fmt.Errorf("rest: input %v: field %s has no place in a request", typ, p.name)
		}
	}
	return spec, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func (spec *inputSpec) walk(typ reflect.Type, defaultIn string) error {
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			if err := spec.walk(f.Type, defaultIn); err != nil {
				return err
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		where := f.Tag.Get("in")
		switch where {
		case "":
			where = defaultIn
		case inPath, inQuery:
		default:
			return fmt.Errorf("rest: field %s: in:%q must be path or query", f.Name, where)
		}
		spec.location[name] = where
		spec.order = append(spec.order, name)
		prop := spec.schema.Properties[name]
		if prop == nil {
			continue
		}
		if err := enrich(prop, f); err != nil {
			return fmt.Errorf("rest: field %s: %w", f.Name, err)
		}
	}
	return nil
}

// enrich adds the constraints google/jsonschema-go does not read from tags.
func enrich(s *jsonschema.Schema, f reflect.StructField) error {
	if v, ok := f.Tag.Lookup("enum"); ok {
		for _, e := range strings.Split(v, ",") {
			s.Enum = append(s.Enum, e)
		}
	}
	if v, ok := f.Tag.Lookup("format"); ok {
		s.Format = v
	}
	if v, ok := f.Tag.Lookup("pattern"); ok {
		s.Pattern = v
	}
	for tag, dst := range map[string]**float64{"minimum": &s.Minimum, "maximum": &s.Maximum} {
		if v, ok := f.Tag.Lookup(tag); ok {
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return fmt.Errorf("%s:%q: %w", tag, v, err)
			}
			*dst = &n
		}
	}
	for tag, dst := range map[string]**int{"minLength": &s.MinLength, "maxLength": &s.MaxLength} {
		if v, ok := f.Tag.Lookup(tag); ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				return fmt.Errorf("%s:%q: %w", tag, v, err)
			}
			*dst = &n
		}
	}
	return nil
}

// normaliseNullable turns ["null","T"] into "T": optional fields are
// expressed by not being required, which models and clients read better
// than type unions.
func normaliseNullable(s *jsonschema.Schema) {
	if len(s.Types) == 2 && (s.Types[0] == "null" || s.Types[1] == "null") {
		if s.Types[0] == "null" {
			s.Type = s.Types[1]
		} else {
			s.Type = s.Types[0]
		}
		s.Types = nil
	}
	if s.Items != nil {
		normaliseNullable(s.Items)
	}
}
