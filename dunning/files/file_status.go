package files

// File statuses, shared by documents and exports (the status column of
// dunning_documents and dunning_exports).
const (
	FileGenerating = "generating"
	FileReady      = "ready"
	FileFailed     = "failed"
)
