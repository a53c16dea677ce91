package kadu

import "github.com/kobana/kobana-mcp/productkit/restkit"

// deref is the tests' name for restkit.Deref on the optional texts they
// print (an execution's error, a step's output).
var deref = restkit.Deref[string]
