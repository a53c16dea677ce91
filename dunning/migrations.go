package dunning

import (
	"embed"
	"io/fs"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations are Dunning's own tables (versions 200–299), applied with the
// platform's in one ordered run (store.DB.Migrate).
var Migrations = func() fs.FS {
	sub, err := fs.Sub(migrationFiles, "migrations")
	if err != nil {
		panic(err) // embedded: it is there
	}
	return sub
}()
