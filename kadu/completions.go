package kadu

import (
	"net/url"

	"github.com/kobana/kobana-mcp/productkit/restkit"
)

// The id sources Kadu's completions suggest from: the newest 200 items of
// the listing, and, once something is typed and the route searches (the
// tasks' q), the 200 its search matches. Kadu's items have no
// external_id: the suggestion is the id.
var (
	taskIDs      = restkit.IDSource{Path: APIBase + "/tasks", Label: "name", Page: completionPage, Search: "q"}
	executionIDs = restkit.IDSource{Path: APIBase + "/executions", Label: "task_id", Page: completionPage}

	completionPage = url.Values{"limit": {"200"}}
)
