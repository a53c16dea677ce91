package collection

import "github.com/kobana/kobana-mcp/dunning/ledger"

// Service is the Service below, with the methods of collection.
type Service struct{ *ledger.Service }
