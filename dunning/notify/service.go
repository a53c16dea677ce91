package notify

import "github.com/kobana/kobana-mcp/dunning/collection"

// Service is the Service below, with the methods of notify.
type Service struct{ *collection.Service }
