package rest

import (
	encjson "encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"

	sv "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var printer = message.NewPrinter(language.English)

// decode gathers an operation's input from the path, the query string and
// the JSON body into one object, validates it against the input schema and
// unmarshals it into dst. Fields in the wrong place and unknown fields are
// validation errors that name the field.
func (spec *inputSpec) decode(r *http.Request, hasBody bool, dst any) *Error {
	in := map[string]any{}
	var details []FieldError
	for name, where := range spec.location {
		if where != inPath {
			continue
		}
		in[name] = spec.convert(name, r.PathValue(name))
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
		typ, _ := spec.propertyType(key)
		if typ == "array" {
			list := make([]any, 0, len(values))
			for _, v := range values {
				for _, part := range strings.Split(v, ",") {
					list = append(list, spec.convertItem(key, part))
				}
			}
			in[key] = list
		} else {
			in[key] = spec.convert(key, values[len(values)-1])
		}
	}
	if hasBody {
		body, err := readBody(r)
		if err != nil {
			return err
		}
		if body != nil {
			obj, ok := body.(map[string]any)
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
	if err := spec.validator.Validate(in); err != nil {
		var ve *sv.ValidationError
		if errors.As(err, &ve) {
			details = append(details, fieldErrors(ve)...)
		} else {
			details = append(details, FieldError{"", err.Error()})
		}
	}
	if len(details) > 0 {
		slices.SortFunc(details, func(a, b FieldError) int { return strings.Compare(a.Field, b.Field) })
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

func readBody(r *http.Request) (any, *Error) {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, &Error{Status: http.StatusRequestEntityTooLarge, Code: CodePayloadTooLarge, Message: fmt.Sprintf("the request body exceeds %d bytes", tooBig.Limit)}
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
	dec := encjson.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, &Error{Status: http.StatusBadRequest, Code: CodeBadRequest, Message: "the request body is not valid JSON"}
	}
	if dec.More() {
		return nil, &Error{Status: http.StatusBadRequest, Code: CodeBadRequest, Message: "the request body holds more than one JSON value"}
	}
	return v, nil
}

// convert turns path or query text into the property's JSON type; text that
// does not convert is left as text for the validator to report.
func (spec *inputSpec) convert(name, text string) any {
	typ, _ := spec.propertyType(name)
	return convertText(typ, text)
}

func (spec *inputSpec) convertItem(name, text string) any {
	_, items := spec.propertyType(name)
	return convertText(items, text)
}

func convertText(typ, text string) any {
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
