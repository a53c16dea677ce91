package schedule

import (
	"encoding/json"
	"testing"
)

func TestParseClock(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want Clock
		ok   bool
	}{
		{"00:00", 0, true},
		{"09:30", 570, true},
		{"23:59", 1439, true},
		{"24:00", 0, false},
		{"12:60", 0, false},
		{"9:30", 0, false},
		{"09:30:00", 0, false},
		{"09h30", 0, false},
		{"+9:30", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		got, err := ParseClock(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseClock(%q) = %v, %v; want %v, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
	if c := At(7, 5); c.String() != "07:05" || c.Hour() != 7 || c.Minute() != 5 {
		t.Errorf("At(7, 5) = %s", c)
	}
}

func TestClockJSON(t *testing.T) {
	t.Parallel()
	var s Step
	if err := json.Unmarshal([]byte(`{"offset_days":-5,"send_time":"09:30","business_days":true}`), &s); err != nil {
		t.Fatal(err)
	}
	if s != (Step{OffsetDays: -5, SendTime: At(9, 30), BusinessDays: true}) {
		t.Errorf("decoded %+v", s)
	}
	out, err := json.Marshal(s)
	if err != nil || string(out) != `{"offset_days":-5,"send_time":"09:30","business_days":true}` {
		t.Errorf("encoded %s, %v", out, err)
	}
	if err := json.Unmarshal([]byte(`{"send_time":"9:30"}`), &s); err == nil {
		t.Error("accepted 9:30")
	}
	if _, err := json.Marshal(Clock(1440)); err == nil {
		t.Error("marshalled an out-of-range clock")
	}
}

func TestLoadZone(t *testing.T) {
	t.Parallel()
	loc, err := LoadZone("")
	if err != nil || loc.String() != "America/Sao_Paulo" {
		t.Errorf("LoadZone(\"\") = %v, %v", loc, err)
	}
	if _, err := LoadZone("America/Manaus"); err != nil {
		t.Error(err)
	}
	for _, bad := range []string{"Local", "Mars/Olympus", "../../etc/passwd", "BRT"} {
		if _, err := LoadZone(bad); err == nil {
			t.Errorf("LoadZone(%q) accepted", bad)
		}
	}
}

func TestWindowContains(t *testing.T) {
	t.Parallel()
	w := DefaultWindow
	for c, want := range map[Clock]bool{At(7, 59): false, At(8, 0): true, At(19, 59): true, At(20, 0): false} {
		if w.Contains(c) != want {
			t.Errorf("DefaultWindow.Contains(%s) = %v", c, !want)
		}
	}
}
