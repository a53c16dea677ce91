package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/client"
)

// terminalAnswerer answers the server's forms (a destructive tool's
// confirmation above all) by asking the person on the terminal, or as
// --yes or --no say without asking.
type terminalAnswerer struct {
	in          *bufio.Reader
	out         io.Writer
	interactive bool
	yes, no     bool
	declined    bool // the person, --no or the lack of a terminal said no
}

// errNoTerminal: a confirmation is needed and nobody can be asked.
var errNoTerminal = errors.New("the server asks for a confirmation and stdin is not a terminal: run again with --yes to accept or --no to decline")

// Elicit implements client.Answerer.
func (a *terminalAnswerer) Elicit(_ context.Context, _ string, e *client.Elicitation) (mcp.ElicitResult, error) {
	fmt.Fprintf(a.out, "%s\n", e.Message)
	s := e.RequestedSchema
	fields := s.Fields()
	switch {
	case a.no:
		a.declined = true
		fmt.Fprintln(a.out, "Declined (--no).")
		return mcp.ElicitResult{Action: "decline"}, nil
	case a.yes:
		content, err := acceptAll(s, fields)
		if err != nil {
			return mcp.ElicitResult{}, err
		}
		fmt.Fprintln(a.out, "Accepted (--yes).")
		return mcp.ElicitResult{Action: "accept", Content: content}, nil
	case !a.interactive:
		a.declined = true
		return mcp.ElicitResult{}, errNoTerminal
	}
	// A confirmation (one boolean) is a y/N question; any other form is
	// asked field by field.
	if len(fields) == 1 && s.Properties[fields[0]].Type == "boolean" {
		ok, err := a.yesNo(fieldLabel(fields[0], s.Properties[fields[0]]))
		if err != nil {
			return mcp.ElicitResult{}, err
		}
		if !ok {
			a.declined = true
			return mcp.ElicitResult{Action: "decline"}, nil
		}
		return mcp.ElicitResult{Action: "accept", Content: map[string]any{fields[0]: true}}, nil
	}
	content := map[string]any{}
	for _, name := range fields {
		f := s.Properties[name]
		v, err := a.field(name, f, s.IsRequired(name))
		if err != nil {
			return mcp.ElicitResult{}, err
		}
		if v != nil {
			content[name] = v
		}
	}
	return mcp.ElicitResult{Action: "accept", Content: content}, nil
}

func fieldLabel(name string, f client.FormField) string {
	if f.Title != "" {
		return f.Title
	}
	return name
}

// yesNo asks a y/N question: only y or yes (any case) is yes, and the end
// of the input is no.
func (a *terminalAnswerer) yesNo(label string) (bool, error) {
	fmt.Fprintf(a.out, "%s? [y/N] ", label)
	line, err := a.line()
	if err != nil {
		return false, err
	}
	switch strings.ToLower(line) {
	case "y", "yes":
		return true, nil
	}
	return false, nil
}

// line reads one line of the person's answer; the end of the input is
// an empty answer.
func (a *terminalAnswerer) line() (string, error) {
	line, err := a.in.ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	if errors.Is(err, io.EOF) {
		fmt.Fprintln(a.out)
	}
	return strings.TrimSpace(line), nil
}

// field asks one field of a form until the answer fits its type; an
// empty answer takes the default, or leaves an optional field out.
func (a *terminalAnswerer) field(name string, f client.FormField, required bool) (any, error) {
	if f.Type == "boolean" {
		return a.yesNo(fieldLabel(name, f))
	}
	for tries := 0; tries < 3; tries++ {
		hint := f.Type
		if len(f.Enum) > 0 {
			hint = fmt.Sprint(f.Enum)
		}
		if f.Default != nil {
			hint += fmt.Sprintf(", default %v", f.Default)
		}
		fmt.Fprintf(a.out, "%s (%s): ", fieldLabel(name, f), hint)
		line, err := a.line()
		if err != nil {
			return nil, err
		}
		if line == "" {
			if f.Default != nil || !required {
				return f.Default, nil
			}
			continue
		}
		switch f.Type {
		case "number":
			if v, err := strconv.ParseFloat(line, 64); err == nil {
				return v, nil
			}
		case "integer":
			if v, err := strconv.ParseInt(line, 10, 64); err == nil {
				return v, nil
			}
		default:
			return line, nil
		}
		fmt.Fprintf(a.out, "not a %s\n", f.Type)
	}
	return nil, fmt.Errorf("no valid answer for %s", name)
}

// acceptAll is --yes's answer to a form: every boolean ticked, every other
// field at its default; a required field without one needs a person.
func acceptAll(s client.FormSchema, fields []string) (map[string]any, error) {
	content := map[string]any{}
	for _, name := range fields {
		f := s.Properties[name]
		switch {
		case f.Type == "boolean":
			content[name] = true
		case f.Default != nil:
			content[name] = f.Default
		case s.IsRequired(name):
			return nil, fmt.Errorf("the server's form asks for %s, which --yes cannot answer: run it on a terminal", name)
		}
	}
	return content, nil
}
