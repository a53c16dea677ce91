package inbox

import "github.com/kobana/kobana-mcp/rest"

// STUB (helper F): agent runs, webhooks, deliveries, system events routes.
func registerAgentRuns(api *rest.API, s *service)    {}
func registerWebhooks(api *rest.API, s *service)     {}
func registerSystemEvents(api *rest.API, s *service) {}
