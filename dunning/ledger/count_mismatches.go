package ledger

import "github.com/prometheus/client_golang/prometheus"

// The count mender's gauge (count_mender.go), built with the service
// (NewService) so every listener exports its own.

// newCountMismatches is the gauge of what the count mender's last run
// found, by table (dunning_charges, dunning_debtors): 0 in health.
func newCountMismatches() *prometheus.GaugeVec {
	g := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "kobana_dunning_count_mismatches",
		Help: "Rows whose listing count did not match them at the count mender's last run, by table; anything but 0 is a write that bypassed the ledger (the mender mended them)."},
		[]string{"table"})
	g.WithLabelValues("dunning_charges")
	g.WithLabelValues("dunning_debtors")
	return g
}
