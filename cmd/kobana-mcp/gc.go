package main

import "runtime/debug"

// defaultGCPercent is the process's GOGC when the environment sets none.
//
// A server's live heap is small (about 8 MB under load: the catalogs, the
// caches, the connections), so at Go's default of 100 the collector ran
// two dozen times a second under a signed-in load and cost a tenth of a
// request's CPU; at 200 it runs half as often, for 6–8 % less CPU per
// request and a heap goal about 8 MB larger (docs/decisions.md,
// "The signed-in path, third round (issue 16)"). GOGC, as everywhere in Go, wins:
// GOGC=100 restores Go's default, and GOMEMLIMIT bounds the heap as usual.
const defaultGCPercent = 200

// tuneGC sets defaultGCPercent unless getenv("GOGC") is set.
func tuneGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(defaultGCPercent)
	}
}
