package inbox

import "testing"

func TestApplyFilters(t *testing.T) {
	t.Parallel()
	msg := filterSubject{From: "News@Shop.example", Subject: "Weekly deals", Body: "Boleto em anexo", AttachmentNames: []string{"promo.exe"}}
	cases := []struct {
		name    string
		filters []inboxFilter
		reject  bool
		rule    int
	}{
		{"no filters", nil, false, 0},
		{"ends_with ignores case", []inboxFilter{{Field: "from", Operator: "ends_with", Value: "@shop.example", Action: "reject"}}, true, 1},
		{"allow first wins", []inboxFilter{{Field: "body", Operator: "contains", Value: "boleto", Action: "allow"}, {Field: "subject", Operator: "contains", Value: "deals", Action: "reject"}}, false, 1},
		{"attachment regexp", []inboxFilter{{Field: "subject", Operator: "equals", Value: "other", Action: "reject"}, {Field: "attachment_name", Operator: "matches", Value: `\.exe$`, Action: "reject"}}, true, 2},
		{"no match", []inboxFilter{{Field: "subject", Operator: "starts_with", Value: "invoice", Action: "reject"}}, false, 0},
	}
	for _, c := range cases {
		rej, rule := applyFilters(c.filters, msg)
		if rej != c.reject || rule != c.rule {
			t.Errorf("%s: got %v/%d want %v/%d", c.name, rej, rule, c.reject, c.rule)
		}
	}
	if (inboxFilter{Operator: "matches", Value: "("}).valid() == "" {
		t.Fatal("a broken pattern is valid")
	}
}
