package webhookapi

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// The operations' inputs are written once, as Go structs (inputs.go),
// whose tags may hold placeholders ({tenant}, {scope}, {items}, …) and a
// `wire` tag naming the feature a field belongs to ("scope", "subject",
// "cursor", "numbered"). Register turns each into the struct a product's
// API declares (rest.HandleType): placeholders filled with the product's
// words, fields of features it does not have dropped, embedded structs
// flattened. The handlers then copy the decoded value back into the Go
// struct (fill), so the code below reads plain fields whatever a product
// calls them on the wire.

// tagKeys are the struct tags package rest reads, in the order they are
// written back.
var tagKeys = []string{"json", "in", "enum", "format", "pattern", "minimum", "maximum", "minLength", "maxLength", "jsonschema"}

// wireType is typ as a product declares it: vars fill the placeholders,
// features keep the fields whose wire tag they hold.
func wireType(typ reflect.Type, vars map[string]string, features map[string]bool) reflect.Type {
	var fields []reflect.StructField
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if f.Anonymous && f.Type.Kind() == reflect.Struct {
				walk(f.Type)
				continue
			}
			if !f.IsExported() {
				continue
			}
			if w, ok := f.Tag.Lookup("wire"); ok && !features[w] {
				continue
			}
			var tag []string
			for _, k := range tagKeys {
				if v, ok := f.Tag.Lookup(k); ok {
					tag = append(tag, k+":"+strconv.Quote(expand(v, vars)))
				}
			}
			fields = append(fields, reflect.StructField{Name: f.Name, Type: f.Type, Tag: reflect.StructTag(strings.Join(tag, " "))})
		}
	}
	walk(typ)
	return reflect.StructOf(fields)
}

// expand fills every {name} of s from vars; an unknown placeholder is a
// mistake in this package, caught when the product registers.
func expand(s string, vars map[string]string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			panic(fmt.Sprintf("webhookapi: unclosed placeholder in %q", s))
		}
		name := s[i+1 : i+j]
		v, ok := vars[name]
		if !ok {
			panic(fmt.Sprintf("webhookapi: unknown placeholder {%s}", name))
		}
		b.WriteString(s[:i])
		b.WriteString(v)
		s = s[i+j+1:]
	}
}

// fill copies the fields of src, a pointer to a wireType value, into the
// same-named fields of dst, a pointer to the Go struct it was made from.
func fill(dst, src any) {
	d := reflect.ValueOf(dst).Elem()
	s := reflect.ValueOf(src).Elem()
	for i := 0; i < s.NumField(); i++ {
		d.FieldByName(s.Type().Field(i).Name).Set(s.Field(i))
	}
}
