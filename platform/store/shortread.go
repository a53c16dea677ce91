package store

import "context"

// ShortRead returns ctx without its cancellation, for a read whose cost an
// index and a LIMIT bound (a page of a keyset listing, a row by its key).
//
// A query under a cancellable context costs two goroutines: database/sql
// starts one per Rows to watch the context, and the SQLite driver another
// to interrupt the statement when it ends. Under load they were a tenth of
// a signed-in listing's CPU on the embedded database, more than such a
// read itself costs, and cancelling it could save at most the read's own
// few microseconds (docs/decisions.md, "The signed-in path, third round
// (issue 16)"). Its values are kept, so an ambient transaction still carries
// the read. Never use it for a read whose cost grows with the data — a
// filter no index serves, a report, an export: those must stop when their
// request does.
func ShortRead(ctx context.Context) context.Context {
	if ctx.Done() == nil {
		return ctx
	}
	return context.WithoutCancel(ctx)
}
