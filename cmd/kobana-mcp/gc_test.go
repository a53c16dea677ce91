package main

import (
	"runtime/debug"
	"testing"
)

func TestTuneGC(t *testing.T) {
	// Not parallel: the GC percent is the whole process's.
	was := debug.SetGCPercent(100)
	defer debug.SetGCPercent(was)
	tuneGC(func(string) string { return "" })
	if got := debug.SetGCPercent(100); got != defaultGCPercent {
		t.Fatalf("without GOGC: GC percent %d, want %d", got, defaultGCPercent)
	}
	tuneGC(func(k string) string {
		if k == "GOGC" {
			return "100"
		}
		return ""
	})
	if got := debug.SetGCPercent(100); got != 100 {
		t.Fatalf("GOGC set: GC percent %d, want it left as the runtime read it", got)
	}
}
