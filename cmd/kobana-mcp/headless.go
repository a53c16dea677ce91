package main

import (
	"go.opentelemetry.io/otel/trace"

	"context"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/kobana/kobana-mcp/oauth/server/sqlstore"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/productkit/approval"
	"github.com/kobana/kobana-mcp/productkit/toolreg"
)

// headless are the products as a process that serves none of them builds
// them — `kobana-mcp worker`, and `kobana-mcp approvals`: each product's
// listener assembled from its spec exactly as serve does, but never
// served. Its jobs go on the queue; its MCP tools into the registry Kadu's
// executions call in-process (productkit/toolreg), as the person, with the
// role read from the database at the call; its approval policy decides
// and runs approvals as the page's does. The listeners' own resource
// servers verify no token (workerKeys): in-process calls carry their
// identity.
type headless struct {
	DataDir string
	DB      *store.DB
	Queue   *jobs.Queue
	Secret  []byte
	Hooks   productkit.WebhookSettings
	Log     *slog.Logger
	// Public is each product's public base URL, as serve's.
	Public map[string]string
	// Tracer is the process's tracer provider (nil: tracing off).
	Tracer trace.TracerProvider
}

// assemble builds the specs' listeners by product key; close ends what
// they share (the watch of identity changes) once the caller is done.
func (h headless) assemble(ctx context.Context, specs []*productkit.Spec) (listeners map[string]*productkit.Listener, close func(), err error) {
	tools := toolreg.New()
	// The role read of every in-process call, cached like serve's
	// (sqlstore.RoleCache): a change made anywhere is seen within the
	// watch's bounds.
	changes := accounts.NewChangeWatch(ctx, h.DB, 0)
	roles := sqlstore.NewRoleCache(ctx, h.DB, sqlstore.RoleCacheOptions{Watch: changes}).Lookup
	// One runner of approved calls for every product's approval link, as
	// in serve (productkit/approval Runners).
	approvals := approval.NewRunners(h.DB, h.Queue)
	listeners = map[string]*productkit.Listener{}
	for _, spec := range specs {
		p, err := productkit.Assemble(spec, productkit.Deps{DataDir: filepath.Join(h.DataDir, spec.Key), Logger: h.Log.With("product", spec.Key),
			PublicURL: h.Public[spec.Key], DB: h.DB, Jobs: h.Queue, Approvals: approvals, Secret: h.Secret, Webhooks: h.Hooks,
			Keys: workerKeys{}, Roles: roles, Changes: changes, Tools: tools, Tracer: h.Tracer})
		if err == nil {
			err = tools.Add(spec.Key, p.Catalog.Tools)
		}
		if err != nil {
			changes.Close()
			return nil, nil, fmt.Errorf("%s: %w", spec.Key, err)
		}
		listeners[spec.Key] = p
	}
	return listeners, changes.Close, nil
}
