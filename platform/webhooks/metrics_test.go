package webhooks

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

func TestMetricsCountOutcomes(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		s := New(db, nil, testConfig())
		tn := newTenant(t, db)
		rcv := newReceiver(t, 500, 200, 404)
		w, _ := hook(t, s, tn, rcv.URL, "*")
		emit(t, s, tn, "email.processed", "")
		deliverAll(t, s, tn, onlyDelivery(t, s, tn, w.ID).ID) // retry, success
		emit(t, s, tn, "email.received", "")
		ds, _ := s.ListDeliveries(t.Context(), tn.org, tn.ws, w.ID, "", 10)
		deliverAll(t, s, tn, ds[0].ID) // failed (404)

		// Both products' collectors fit in one registry.
		reg := prometheus.NewPedanticRegistry()
		reg.MustRegister(s.Collector(), New(db, nil, Config{Product: "dunning"}).Collector())
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		counts := map[string]float64{}
		var samples uint64
		for _, mf := range mfs {
			for _, m := range mf.GetMetric() {
				labels := map[string]string{}
				for _, l := range m.GetLabel() {
					labels[l.GetName()] = l.GetValue()
				}
				if labels["product"] != "inbox" {
					continue
				}
				switch mf.GetName() {
				case "kobana_webhook_deliveries_total":
					counts[labels["outcome"]] = m.GetCounter().GetValue()
				case "kobana_webhook_delivery_duration_seconds":
					samples = m.GetHistogram().GetSampleCount()
				}
			}
		}
		if counts["success"] != 1 || counts["retry"] != 1 || counts["failed"] != 1 || len(counts) != 3 {
			t.Errorf("deliveries by outcome %v, want one each", counts)
		}
		if samples != 3 {
			t.Errorf("duration samples %d, want 3", samples)
		}
	})
}
