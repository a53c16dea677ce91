//go:build !race

package dunning

// largeExportRows is how many rows TestExportHundredThousandRows exports
// (export_race_test.go says why a race run exports fewer).
const largeExportRows = 100_000
