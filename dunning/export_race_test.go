//go:build race

package dunning

// largeExportRows is how many rows TestExportHundredThousandRows exports
// under the race detector, which slows the seeding and the export about
// tenfold: 5 000 rows (several parts of 256 KiB) keep the streaming path whole
// within the package's test timeout in CI's race run; a run without
// -race exports the full 100 000 (export_norace_test.go).
const largeExportRows = 5_000
