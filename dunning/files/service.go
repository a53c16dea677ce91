package files

import "github.com/kobana/kobana-mcp/dunning/notify"

// Service is the Service below, with the methods of files.
type Service struct{ *notify.Service }
