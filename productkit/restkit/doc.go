// Package restkit is what every product's REST operations share above the
// foundations: the annotation presets, how a request's tenant (its
// organization and workspace) is resolved, the "get one" body, and the two
// list styles the products page with — cursors ({data, meta:{next_cursor}},
// optionally with meta.limit) and numbered pages ({data, meta:{total, page,
// per_page, total_pages}}) — and what their MCP catalogs share: resources
// and prompts that read those routes in-process, the notice beside
// third-party data, id completions from the listings, and the small
// generic helpers (OrEmpty, Deref) every product would otherwise write
// again. It sits in the productkit floor so that no product keeps what
// another needs in its own folder (docs/architecture.md;
// docs/decisions.md "A product is one folder").
package restkit
