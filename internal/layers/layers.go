// Package layers states the project's import rules and checks a package
// graph against them (docs/decisions.md "Layers"). Floors, bottom up:
//
//	internal/…, mcp/…      the protocol, knowing nothing of Kobana
//	rest                   operations declared once (REST, MCP, OpenAPI)
//	platform/…             foundations: store, identity, httpx, jobs, bankcalendar, …
//	oauth/…                tokens and the built-in authorization server
//	productkit/…           what assembles a product
//	<product>/…            inbox, dunning, kadu: one folder each
//	cmd/…, examples/…      the wiring, which alone may name every product
//
// A package may import its own floor and the floors below it, with two
// more rules: mcp imports nothing of the project but internal and itself,
// and a product imports no other product. An external test package
// (package x_test) may reach up to drive its package through the floors
// above (an integration test), but the mcp and product rules hold for it
// too.
package layers

import (
	"fmt"
	"sort"
	"strings"
)

// Module is the project's module path.
const Module = "github.com/kobana/kobana-mcp"

// floors ranks the framework's top-level folders; any other top-level
// folder holding Go code is a product.
var floors = map[string]int{
	"internal":   0,
	"mcp":        0,
	"rest":       1,
	"platform":   2,
	"oauth":      3,
	"productkit": 4,
	// products: 5
	"cmd":      6,
	"examples": 6,
}

const productFloor = 5

// top is the first element of a package path inside the module ("" for a
// package outside it).
func top(pkg string) string {
	rest, ok := strings.CutPrefix(pkg, Module+"/")
	if !ok {
		return ""
	}
	first, _, _ := strings.Cut(rest, "/")
	return strings.TrimSuffix(first, "_test")
}

func floorOf(first string) int {
	if f, ok := floors[first]; ok {
		return f
	}
	return productFloor
}

// Check returns every import of graph (package → its imports) that breaks
// a rule, each as "a imports b: why", sorted.
func Check(graph map[string][]string) []string {
	var out []string
	for pkg, imports := range graph {
		from := top(pkg)
		if from == "" {
			continue
		}
		externalTest := strings.HasSuffix(pkg, "_test")
		for _, imp := range imports {
			to := top(imp)
			if to == "" || to == from {
				continue
			}
			short := func(p string) string { return strings.TrimPrefix(p, Module+"/") }
			switch {
			case from == "mcp" && to != "internal":
				out = append(out, fmt.Sprintf("%s imports %s: mcp knows nothing of the project but internal", short(pkg), short(imp)))
			case floorOf(from) == productFloor && floorOf(to) == productFloor:
				out = append(out, fmt.Sprintf("%s imports %s: a product never imports another product", short(pkg), short(imp)))
			case floorOf(to) > floorOf(from) && !externalTest:
				out = append(out, fmt.Sprintf("%s imports %s: %s is a floor above %s", short(pkg), short(imp), to, from))
			}
		}
	}
	sort.Strings(out)
	return out
}
