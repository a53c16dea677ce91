package dunning

import (
	"embed"

	"github.com/kobana/kobana-mcp/platform/store"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations are Dunning's own tables (versions 200–299), applied with the
// platform's in one ordered run (store.DB.Migrate).
var Migrations = store.Dir(migrationFiles, "migrations")
