package dunning

import "github.com/kobana/kobana-mcp/productkit/restkit"

// deref is the tests' name for restkit.Deref on the optional texts they
// print (a notification's error, a step's subject).
var deref = restkit.Deref[string]
