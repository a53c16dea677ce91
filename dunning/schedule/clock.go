package schedule

import "fmt"

// Clock is a wall-clock time of day to the minute, such as a step's send
// time "09:30", counted in minutes after midnight (0 to 1439).
type Clock int

// At is the Clock hour:min; it does not check the range (ParseClock does).
func At(hour, min int) Clock { return Clock(hour*60 + min) }

// ParseClock reads "HH:MM" on a 24-hour clock, two digits each ("09:30",
// "23:59"); "9:30", "24:00" and seconds are refused.
func ParseClock(s string) (Clock, error) {
	if len(s) == 5 && s[2] == ':' && digits(s[0:2]) && digits(s[3:5]) {
		h := int(s[0]-'0')*10 + int(s[1]-'0')
		m := int(s[3]-'0')*10 + int(s[4]-'0')
		if h < 24 && m < 60 {
			return At(h, m), nil
		}
	}
	return 0, fmt.Errorf("time of day must be HH:MM between 00:00 and 23:59 (got %.20q)", s)
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Hour is the clock's hour, 0 to 23.
func (c Clock) Hour() int { return int(c) / 60 }

// Minute is the clock's minute, 0 to 59.
func (c Clock) Minute() int { return int(c) % 60 }

// Valid reports whether c is a time of day, 00:00 to 23:59.
func (c Clock) Valid() bool { return c >= 0 && c < 24*60 }

// String is "HH:MM".
func (c Clock) String() string { return fmt.Sprintf("%02d:%02d", c.Hour(), c.Minute()) }

// MarshalText writes "HH:MM", so a Clock is a JSON string.
func (c Clock) MarshalText() ([]byte, error) {
	if !c.Valid() {
		return nil, fmt.Errorf("clock %d is out of range", int(c))
	}
	return []byte(c.String()), nil
}

// UnmarshalText reads "HH:MM" with ParseClock's rules.
func (c *Clock) UnmarshalText(b []byte) error {
	v, err := ParseClock(string(b))
	if err != nil {
		return err
	}
	*c = v
	return nil
}
