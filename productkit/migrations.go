package productkit

import (
	"io/fs"

	"github.com/kobana/kobana-mcp/oauth"
	"github.com/kobana/kobana-mcp/oauth/server/sqlstore"
	"github.com/kobana/kobana-mcp/productkit/approval"
)

// FrameworkMigrations are the migrations of the framework's tables that
// live beside their owners rather than in the platform's directory: the
// signing keys (oauth), the built-in authorization server's tables
// (oauth/server/sqlstore) and the approvals (productkit/approval). The
// binary applies them with the platform's and every product's, in one
// ordered run (store.DB.Migrate); their version numbers are those they
// had in the platform's directory.
func FrameworkMigrations() []fs.FS {
	return []fs.FS{oauth.Migrations, sqlstore.Migrations, approval.Migrations}
}
