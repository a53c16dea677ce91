package oauth

import (
	"embed"

	"github.com/kobana/kobana-mcp/platform/store"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations are the steps of the table this package owns: the signing
// keys DBKeyStore keeps (version 00010). They keep the number they had in
// the platform's directory, so a database that applied them there is
// current; store.DB.Migrate applies them in one ordered run with the
// platform's and every product's (productkit.FrameworkMigrations lists
// them for the binary).
var Migrations = store.Dir(migrationFiles, "migrations")
