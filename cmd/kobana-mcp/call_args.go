package main

import (
	"encoding/json"
	"fmt"
	"strings"
)

// toolArguments reads a tool's arguments from the command line: one JSON
// object, or key=value pairs where each value takes the type the input
// schema declares for its key (a string stays as typed; numbers, booleans,
// arrays and objects are JSON; an undeclared type is JSON when it parses
// as JSON, a string otherwise).
func toolArguments(schema json.RawMessage, args []string) (map[string]any, error) {
	out := map[string]any{}
	if len(args) == 1 && strings.HasPrefix(strings.TrimSpace(args[0]), "{") {
		if err := json.Unmarshal([]byte(args[0]), &out); err != nil {
			return nil, fmt.Errorf("the arguments are not a JSON object: %v", err)
		}
		return out, nil
	}
	types := propertyTypes(schema)
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("arguments are one JSON object or key=value pairs, not %q", a)
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("%s given twice", k)
		}
		t := types[k]
		switch {
		case t == "string":
			out[k] = v
		case t != "" || json.Valid([]byte(v)):
			var val any
			if err := json.Unmarshal([]byte(v), &val); err != nil {
				if t != "" {
					return nil, fmt.Errorf("%s is a %s: %q is not one (write it as JSON)", k, t, v)
				}
			}
			out[k] = val
		default:
			out[k] = v
		}
	}
	return out, nil
}

// propertyTypes maps each top-level property of an input schema to its
// type, when it declares exactly one (besides null).
func propertyTypes(schema json.RawMessage) map[string]string {
	var s struct {
		Properties map[string]struct {
			Type json.RawMessage `json:"type"`
		} `json:"properties"`
	}
	out := map[string]string{}
	if json.Unmarshal(schema, &s) != nil {
		return out
	}
	for name, p := range s.Properties {
		var one string
		if json.Unmarshal(p.Type, &one) == nil {
			out[name] = one
			continue
		}
		var many []string
		if json.Unmarshal(p.Type, &many) == nil {
			var kept []string
			for _, t := range many {
				if t != "null" {
					kept = append(kept, t)
				}
			}
			if len(kept) == 1 {
				out[name] = kept[0]
			}
		}
	}
	return out
}
