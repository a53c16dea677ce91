package approval

import (
	"embed"

	"github.com/kobana/kobana-mcp/platform/store"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations are the steps of the approvals table (00040, 00045, 00080).
// They keep the numbers they had in the platform's directory, so a
// database that applied them there is current; store.DB.Migrate applies
// them in one ordered run with the platform's and every product's
// (productkit.FrameworkMigrations lists them for the binary; a product
// whose own code reads approvals may carry them in its Migrations too, and
// each step still runs once).
var Migrations = store.Dir(migrationFiles, "migrations")
