package kadu

import (
	"embed"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit/approval"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations are Kadu's own tables (versions 300–399) and the approvals
// table its tools and runtime read (productkit/approval.Migrations, which
// the binary also applies with the framework's: each step runs once),
// applied with the platform's in one ordered run (store.DB.Migrate).
var Migrations = store.Union(store.Dir(migrationFiles, "migrations"), approval.Migrations)
