package inbox

import (
	"embed"

	"github.com/kobana/kobana-mcp/platform/store"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations are The Inbox's own tables (versions 100–199), applied with the
// platform's in one ordered run (store.DB.Migrate).
var Migrations = store.Dir(migrationFiles, "migrations")
