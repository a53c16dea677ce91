package bankcalendar

import (
	"encoding/json"
	"testing"
	"time"
)

func TestParseDate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want Date
		ok   bool
	}{
		{"2026-03-10", NewDate(2026, time.March, 10), true},
		{"2024-02-29", NewDate(2024, time.February, 29), true},
		{"2026-02-29", Date{}, false},
		{"2026-02-30", Date{}, false},
		{"2026-13-01", Date{}, false},
		{"10/03/2026", Date{}, false},
		{"2026-3-10", Date{}, false},
		{"2026-03-10T00:00:00Z", Date{}, false},
		{"", Date{}, false},
	}
	for _, tt := range tests {
		got, err := ParseDate(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseDate(%q) = %v, %v; want %v, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestDateArithmetic(t *testing.T) {
	t.Parallel()
	d := NewDate(2026, time.January, 31)
	if got := d.AddDays(1); got != NewDate(2026, time.February, 1) {
		t.Errorf("AddDays(1) = %v", got)
	}
	if got := d.AddDays(-31); got != NewDate(2025, time.December, 31) {
		t.Errorf("AddDays(-31) = %v", got)
	}
	if got := NewDate(2026, time.February, 28).AddDays(1); got != NewDate(2026, time.March, 1) {
		t.Errorf("2026-02-28 + 1 = %v", got)
	}
	if got := NewDate(2024, time.February, 28).AddDays(1); got != NewDate(2024, time.February, 29) {
		t.Errorf("2024-02-28 + 1 = %v", got)
	}
	if got := NewDate(2026, time.April, 31); got != NewDate(2026, time.May, 1) {
		t.Errorf("NewDate normalises 31 April to %v", got)
	}
	subs := []struct {
		a, b Date
		want int
	}{
		{NewDate(2026, time.March, 10), NewDate(2026, time.March, 10), 0},
		{NewDate(2026, time.April, 24), NewDate(2026, time.March, 10), 45},
		{NewDate(2026, time.March, 10), NewDate(2026, time.April, 24), -45},
		{NewDate(2027, time.January, 1), NewDate(2026, time.January, 1), 365},
		{NewDate(2025, time.January, 1), NewDate(2024, time.January, 1), 366},
		{NewDate(2100, time.January, 1), NewDate(1900, time.January, 1), 73049},
	}
	for _, s := range subs {
		if got := s.a.Sub(s.b); got != s.want {
			t.Errorf("%v.Sub(%v) = %d, want %d", s.a, s.b, got, s.want)
		}
	}
	a, b := NewDate(2026, time.March, 10), NewDate(2026, time.March, 11)
	if !a.Before(b) || a.After(b) || b.Before(a) || !b.After(a) || a.Compare(a) != 0 || a.Compare(b) != -1 || b.Compare(a) != 1 {
		t.Error("Before/After/Compare disagree")
	}
	if NewDate(2025, time.December, 31).Compare(NewDate(2026, time.January, 1)) != -1 ||
		NewDate(2026, time.February, 1).Compare(NewDate(2026, time.January, 31)) != 1 {
		t.Error("Compare across months or years is wrong")
	}
}

func TestDateFormats(t *testing.T) {
	t.Parallel()
	d := NewDate(2026, time.March, 10)
	if d.String() != "2026-03-10" || d.BR() != "10/03/2026" || d.Weekday() != time.Tuesday {
		t.Errorf("got %s %s %v", d, d.BR(), d.Weekday())
	}
	if d.Year() != 2026 || d.Month() != time.March || d.Day() != 10 || d.IsZero() || !(Date{}).IsZero() {
		t.Error("accessors disagree")
	}
	b, err := json.Marshal(struct {
		Due Date `json:"due_date"`
	}{d})
	if err != nil || string(b) != `{"due_date":"2026-03-10"}` {
		t.Errorf("Marshal = %s, %v", b, err)
	}
	var back struct {
		Due Date `json:"due_date"`
	}
	if err := json.Unmarshal(b, &back); err != nil || back.Due != d {
		t.Errorf("Unmarshal = %v, %v", back.Due, err)
	}
	if err := json.Unmarshal([]byte(`{"due_date":"2026-02-30"}`), &back); err == nil {
		t.Error("Unmarshal accepted 2026-02-30")
	}
}

func TestDateOfAndAt(t *testing.T) {
	t.Parallel()
	sp, err := time.LoadLocation("America/Sao_Paulo")
	if err != nil {
		t.Fatal(err)
	}
	// 02:30 UTC on 11 March is still 10 March in São Paulo (UTC−3).
	instant := time.Date(2026, time.March, 11, 2, 30, 0, 0, time.UTC)
	if got := DateOf(instant.In(sp)); got != NewDate(2026, time.March, 10) {
		t.Errorf("DateOf in São Paulo = %v", got)
	}
	if got := DateOf(instant); got != NewDate(2026, time.March, 11) {
		t.Errorf("DateOf in UTC = %v", got)
	}
	at := NewDate(2026, time.March, 10).At(9, 30, sp)
	if !at.Equal(time.Date(2026, time.March, 10, 12, 30, 0, 0, time.UTC)) {
		t.Errorf("At = %v", at.UTC())
	}
}
