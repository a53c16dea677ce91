package approvaltest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/pagetext"
	"github.com/kobana/kobana-mcp/productkit/approval"
)

// projects_export stands for a tool whose answer only starts work, as
// Kadu's kadu_tasks_run answers an execution still queued: it queues an
// export and answers {"export_id","status":"queued"}; the export then
// stays queued until the test moves it (SetExport). Progress tells the
// approval page where it stands, so the page cannot say "done" while it
// is only queued.

// ToolTitles are the test catalog's destructive tools' titles in both of
// the pages' languages (approval.Options.ToolTitles); the catalog's own
// titles are English, like the products'.
var ToolTitles = map[string]pagetext.Phrase{
	"projects_delete": {PT: "Excluir projeto", EN: "Delete a project"},
	"projects_export": {PT: "Exportar projeto", EN: "Export a project"},
}

// ExportFollowPath is where an export can be followed on the test
// server (examples/approval serves it), before its id.
const ExportFollowPath = "/test/exports/"

// Brasilia is the pages' time zone, as every product's
// (productkit.Brasilia; UTC when the system has no zone data).
func Brasilia() *time.Location {
	loc, err := time.LoadLocation("America/Sao_Paulo")
	if err != nil {
		return time.UTC
	}
	return loc
}

type exportAnswer struct {
	ExportID string `json:"export_id"`
	Status   string `json:"status"`
}

// exportTool is projects_export.
func (p *Projects) exportTool() mcp.Tool {
	notFound := mcp.ErrorResult(`{"error":{"code":"not_found","message":"project not found"}}`)
	return mcp.Tool{
		Name: "projects_export", Title: "Export a project", Description: "Queues an export of a project's files to the archive and answers at once.",
		InputSchema: &jsonschema.Schema{Type: "object", Required: []string{"project"}, Properties: map[string]*jsonschema.Schema{
			"project": {Type: "string", Description: "the project's id"},
		}},
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(false), DestructiveHint: mcp.Bool(true), IdempotentHint: mcp.Bool(false), OpenWorldHint: mcp.Bool(false)},
		Requires:    mcp.Requirement{Scopes: []string{Scope}, Permission: identity.PermManage},
		Confirm: func(ctx context.Context, req *mcp.CallToolRequest) (string, *mcp.CallToolResult, error) {
			var a deleteArgs
			_ = json.Unmarshal(req.Arguments, &a)
			p.mu.Lock()
			name, ok := p.names[a.Project]
			p.mu.Unlock()
			if !ok {
				return "", notFound, nil
			}
			return fmt.Sprintf("Export project '%s' (id %s) to the archive? Its files are copied out of this account.", name, a.Project), nil, nil
		},
		Handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a deleteArgs
			_ = json.Unmarshal(req.Arguments, &a)
			p.mu.Lock()
			defer p.mu.Unlock()
			if _, ok := p.names[a.Project]; !ok {
				return notFound, nil
			}
			id := fmt.Sprintf("exp-%s-%d", a.Project, len(p.exports)+1)
			p.exports[id] = approval.WorkQueued
			body, _ := json.Marshal(exportAnswer{ExportID: id, Status: string(approval.WorkQueued)})
			return mcp.TextResult(string(body)), nil
		},
	}
}

// Export is where an export stands ("" when there is no such export).
func (p *Projects) Export(id string) approval.WorkState {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exports[id]
}

// SetExport moves an export to state; it reports whether the export
// exists.
func (p *Projects) SetExport(id string, state approval.WorkState) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.exports[id]; !ok {
		return false
	}
	p.exports[id] = state
	return true
}

// Progress is the approval policy's Progress for the test catalog: a
// succeeded projects_export started an export, read afresh.
func (p *Projects) Progress(publicURL string) approval.ProgressFunc {
	return func(ctx context.Context, a *approval.Approval) (*approval.Progress, error) {
		if a.Tool != "projects_export" {
			return nil, nil
		}
		var ans exportAnswer
		if err := json.Unmarshal([]byte(a.ResultText()), &ans); err != nil || ans.ExportID == "" {
			return nil, nil
		}
		state := p.Export(ans.ExportID)
		if state == "" {
			return nil, fmt.Errorf("export %s is gone", ans.ExportID)
		}
		return &approval.Progress{
			What:      pagetext.Phrase{PT: "a exportação " + ans.ExportID, EN: "export " + ans.ExportID},
			State:     state,
			FollowURL: publicURL + ExportFollowPath + url.PathEscape(ans.ExportID),
			Resource:  "projects://exports/" + ans.ExportID,
		}, nil
	}
}
