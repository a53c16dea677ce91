package kadu

import (
	"embed"

	"github.com/kobana/kobana-mcp/platform/store"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations are Kadu's own tables (versions 300–399), applied with the
// platform's in one ordered run (store.DB.Migrate).
var Migrations = store.Dir(migrationFiles, "migrations")
