package rest

import (
	encjson "encoding/json"
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	sv "github.com/santhosh-tekuri/jsonschema/v6"
)

// The oracle is how requests were decoded before plans: path, query and
// body gathered into a map[string]any, validated by the santhosh-tekuri
// validator compiled from the same schema, re-marshalled and unmarshalled
// into the input. The one-walk decoder must give the same answers, in the
// same words, wherever the oracle's answer was a sound one.

type oracle struct {
	spec      *inputSpec
	validator *sv.Schema
}

func newOracle(t testing.TB, spec *inputSpec) *oracle {
	t.Helper()
	raw, err := encjson.Marshal(spec.schema)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := sv.UnmarshalJSON(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	c := sv.NewCompiler()
	c.DefaultDraft(sv.Draft2020)
	c.AssertFormat()
	if err := c.AddResource("input.json", doc); err != nil {
		t.Fatal(err)
	}
	v, err := c.Compile("input.json")
	if err != nil {
		t.Fatal(err)
	}
	return &oracle{spec: spec, validator: v}
}

func (o *oracle) propertyType(name string) (string, string) {
	p := o.spec.schema.Properties[name]
	if p == nil {
		return "", ""
	}
	items := ""
	if p.Items != nil {
		items = p.Items.Type
	}
	return p.Type, items
}

func oracleConvert(typ, text string) any {
	switch typ {
	case "integer":
		if _, err := strconv.ParseInt(text, 10, 64); err == nil {
			return encjson.Number(text)
		}
	case "number":
		if _, err := strconv.ParseFloat(text, 64); err == nil {
			return encjson.Number(text)
		}
	case "boolean":
		if b, err := strconv.ParseBool(text); err == nil {
			return b
		}
	}
	return text
}

// decode is the former decode, verbatim but for the helpers it used.
func (o *oracle) decode(r *http.Request, hasBody bool, body []byte, dst any) *Error {
	spec := o.spec
	in := map[string]any{}
	var details []FieldError
	for name, where := range spec.location {
		if where != inPath {
			continue
		}
		typ, _ := o.propertyType(name)
		in[name] = oracleConvert(typ, r.PathValue(name))
	}
	for key, values := range r.URL.Query() {
		if spec.location[key] != inQuery {
			if where, known := spec.location[key]; known {
				details = append(details, FieldError{key, "must be sent in the " + where + ", not in the query string"})
			} else {
				details = append(details, FieldError{key, "unknown query parameter"})
			}
			continue
		}
		typ, items := o.propertyType(key)
		if typ == "array" {
			list := make([]any, 0, len(values))
			for _, v := range values {
				for _, part := range strings.Split(v, ",") {
					list = append(list, oracleConvert(items, part))
				}
			}
			in[key] = list
		} else {
			in[key] = oracleConvert(typ, values[len(values)-1])
		}
	}
	if hasBody && len(strings.TrimSpace(string(body))) > 0 {
		dec := encjson.NewDecoder(strings.NewReader(string(body)))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return errNotJSON
		}
		if dec.More() {
			return &Error{Status: http.StatusBadRequest, Code: CodeBadRequest, Message: "the request body holds more than one JSON value"}
		}
		if v != nil {
			obj, ok := v.(map[string]any)
			if !ok {
				return Validation("the request body must be a JSON object", FieldError{"", "expected an object"})
			}
			for key, v := range obj {
				if where, known := spec.location[key]; known && where != inBody {
					details = append(details, FieldError{key, "must be sent in the " + where + ", not in the body"})
					continue
				}
				in[key] = v
			}
		}
	}
	if err := o.validator.Validate(in); err != nil {
		var ve *sv.ValidationError
		if errors.As(err, &ve) {
			details = append(details, fieldErrors(ve)...)
		} else {
			details = append(details, FieldError{"", err.Error()})
		}
	}
	if len(details) > 0 {
		slices.SortStableFunc(details, func(a, b FieldError) int { return strings.Compare(a.Field, b.Field) })
		return Validation("the request is invalid", details...)
	}
	raw, err := encjson.Marshal(in)
	if err != nil {
		return Validation("the request is invalid", FieldError{"", err.Error()})
	}
	if err := encjson.Unmarshal(raw, dst); err != nil {
		return Validation("the request is invalid", FieldError{"", err.Error()})
	}
	return nil
}

// sameAnswer compares two decode results: the same error (status, code,
// message and details, in order), or both nil with equal inputs.
func sameAnswer(a, b *Error, inA, inB any) string {
	switch {
	case a == nil && b == nil:
		if !reflect.DeepEqual(inA, inB) {
			return "inputs differ: " + dump(inA) + " vs " + dump(inB)
		}
		return ""
	case a == nil || b == nil:
		return "one refused, the other did not: " + dump(a) + " vs " + dump(b)
	}
	if a.Status != b.Status || a.Code != b.Code || a.Message != b.Message || !slices.Equal(a.Details, b.Details) {
		return "errors differ: " + dump(a) + " vs " + dump(b)
	}
	return ""
}

func dump(v any) string {
	b, _ := encjson.Marshal(v)
	return string(b)
}
