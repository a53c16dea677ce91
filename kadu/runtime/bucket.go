package runtime

import "github.com/kobana/kobana-mcp/platform/blob"

// Bucket is where files' bytes are kept: the product's bucket
// (kadu files_config.go), which may be missing.
type Bucket interface {
	// Ready is the bucket and the most bytes a file may hold, or why
	// files cannot be stored (503 files_unavailable).
	Ready() (*blob.Bucket, int64, error)
}
