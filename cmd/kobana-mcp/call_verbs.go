package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/client"
)

// errUsage marks a verb's usage error (exit 2).
var errUsage = errors.New("usage")

func usagef(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errUsage}, a...)...)
}

// callVerb runs one verb of call; code is its exit status when err is nil
// (1 for a tool error).
type callVerb func(ctx context.Context, c *client.Client, args []string, out io.Writer) (code int, err error)

var callVerbs = map[string]callVerb{
	"tools":     listToolsVerb,
	"tool":      callToolVerb,
	"resources": listResourcesVerb,
	"read":      readVerb,
	"prompts":   listPromptsVerb,
	"prompt":    getPromptVerb,
	"info":      infoVerb,
}

func listToolsVerb(ctx context.Context, c *client.Client, args []string, out io.Writer) (int, error) {
	if len(args) > 0 {
		return 0, usagef("tools takes no arguments")
	}
	tools, err := c.ListTools(ctx)
	if err != nil {
		return 0, err
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	for _, t := range tools {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", t.Name, t.Title, hints(&t))
	}
	return 0, tw.Flush()
}

// hints are a tool's annotations in short: read-only, write or
// destructive (the specification's default for a tool that says
// nothing), then idempotent and open-world when declared.
func hints(t *client.Tool) string {
	kind := "write"
	switch {
	case t.ReadOnly():
		kind = "read-only"
	case t.Destructive():
		kind = "destructive"
	}
	if a := t.Annotations; a != nil {
		if a.IdempotentHint != nil && *a.IdempotentHint && !t.ReadOnly() {
			kind += ", idempotent"
		}
		if a.OpenWorldHint != nil && *a.OpenWorldHint {
			kind += ", open-world"
		}
	}
	return kind
}

func callToolVerb(ctx context.Context, c *client.Client, args []string, out io.Writer) (int, error) {
	if len(args) == 0 {
		return 0, usagef("tool NAME [JSON | key=value…]")
	}
	name := args[0]
	// Listing first finds the schema, which types key=value arguments
	// and names the arguments that travel in headers.
	tools, err := c.ListTools(ctx)
	if err != nil {
		return 0, err
	}
	var tool *client.Tool
	for i := range tools {
		if tools[i].Name == name {
			tool = &tools[i]
		}
	}
	if tool == nil {
		return 0, fmt.Errorf("no tool %q here, or not one this token may see (the verb tools lists them)", name)
	}
	arguments, err := toolArguments(tool.InputSchema, args[1:])
	if err != nil {
		return 0, usagef("%v", err)
	}
	res, err := c.CallTool(ctx, name, arguments)
	if err != nil {
		return 0, err
	}
	if res.IsError {
		// A tool error is the tool's answer: shown whole, then exit 1.
		printContent(out, res.Content)
		return 1, nil
	}
	printContent(out, res.Content)
	if len(res.StructuredContent) > 0 && string(res.StructuredContent) != "null" && !sameJSONAsText(res) {
		fmt.Fprintln(out, indentJSON(res.StructuredContent))
	}
	return 0, nil
}

func listResourcesVerb(ctx context.Context, c *client.Client, args []string, out io.Writer) (int, error) {
	if len(args) > 0 {
		return 0, usagef("resources takes no arguments")
	}
	resources, err := c.ListResources(ctx)
	if err != nil {
		return 0, err
	}
	templates, err := c.ListResourceTemplates(ctx)
	if err != nil {
		return 0, err
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	for _, r := range resources {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.URI, titleOr(r.Title, r.Name), r.MimeType)
	}
	for _, r := range templates {
		fmt.Fprintf(tw, "%s\t%s\t%s (template)\n", r.URITemplate, titleOr(r.Title, r.Name), r.MimeType)
	}
	return 0, tw.Flush()
}

func titleOr(title, name string) string {
	if title != "" {
		return title
	}
	return name
}

func readVerb(ctx context.Context, c *client.Client, args []string, out io.Writer) (int, error) {
	if len(args) != 1 {
		return 0, usagef("read URI")
	}
	res, err := c.ReadResource(ctx, args[0])
	if err != nil {
		return 0, err
	}
	for _, rc := range res.Contents {
		switch {
		case rc.Text != nil:
			fmt.Fprintln(out, maybeIndent(*rc.Text))
		default:
			fmt.Fprintf(out, "%s: binary content (%s, %d bytes of base64), not printed\n", rc.URI, rc.MimeType, len(rc.Blob))
		}
	}
	return 0, nil
}

func listPromptsVerb(ctx context.Context, c *client.Client, args []string, out io.Writer) (int, error) {
	if len(args) > 0 {
		return 0, usagef("prompts takes no arguments")
	}
	prompts, err := c.ListPrompts(ctx)
	if err != nil {
		return 0, err
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	for _, p := range prompts {
		var names []string
		for _, a := range p.Arguments {
			n := a.Name
			if a.Required {
				n += "*"
			}
			names = append(names, n)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", p.Name, p.Title, strings.Join(names, " "))
	}
	return 0, tw.Flush()
}

func getPromptVerb(ctx context.Context, c *client.Client, args []string, out io.Writer) (int, error) {
	if len(args) == 0 {
		return 0, usagef("prompt NAME [key=value…]")
	}
	pargs := map[string]string{}
	for _, a := range args[1:] {
		k, v, ok := strings.Cut(a, "=")
		if !ok || k == "" {
			return 0, usagef("prompt arguments are key=value, not %q", a)
		}
		pargs[k] = v
	}
	res, err := c.GetPrompt(ctx, args[0], pargs)
	if err != nil {
		return 0, err
	}
	if res.Description != "" {
		fmt.Fprintln(out, res.Description)
		fmt.Fprintln(out)
	}
	for _, m := range res.Messages {
		fmt.Fprintf(out, "[%s]\n", m.Role)
		printContent(out, []mcp.Content{m.Content})
		fmt.Fprintln(out)
	}
	return 0, nil
}

func infoVerb(ctx context.Context, c *client.Client, args []string, out io.Writer) (int, error) {
	if len(args) > 0 {
		return 0, usagef("info takes no arguments")
	}
	d, err := c.Discover(ctx)
	if err != nil {
		return 0, err
	}
	caps := make([]string, 0, len(d.Capabilities))
	for k := range d.Capabilities {
		caps = append(caps, k)
	}
	slices.Sort(caps)
	fmt.Fprintf(out, "server:       %s %s\n", titleOr(d.ServerInfo.Title, d.ServerInfo.Name), d.ServerInfo.Version)
	fmt.Fprintf(out, "speaks:       %s\n", strings.Join(d.SupportedVersions, ", "))
	fmt.Fprintf(out, "offers:       %s\n", strings.Join(caps, ", "))
	if d.Instructions != "" {
		fmt.Fprintf(out, "instructions: %s\n", d.Instructions)
	}
	return 0, nil
}
