package inbox

import "github.com/kobana/kobana-mcp/rest"

// STUB (helper E): workspaces_create/update, inboxes_*, agents_*.
func registerWorkspaceWrites(api *rest.API, s *service) {}
func registerInboxes(api *rest.API, s *service)         {}
func registerAgents(api *rest.API, s *service)          {}
