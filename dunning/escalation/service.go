package escalation

import "github.com/kobana/kobana-mcp/dunning/files"

// Service is the Service below, with the methods of escalation.
type Service struct{ *files.Service }
