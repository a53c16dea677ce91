package bankcalendar

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/rickar/cal/v2"
)

// holidaysBR is the project's table of state and municipal holidays
// (holidays_br.json): every state's and the 27 capitals', each entry with
// the law that creates it in its source field. No maintained Go library
// has them (github.com/rickar/cal/v2/br has the national ones only), so
// the table is kept here and checked by regional_test.go.
//
//go:embed holidays_br.json
var holidaysBR []byte

// RegionalHoliday is one entry of the table: a fixed day (Month, Day) or
// a day counted from Easter Sunday (EasterOffset), in force from From
// to Until (years, 0 for no bound). Source is the law that creates it.
type RegionalHoliday struct {
	Date         string `json:"date,omitempty"`
	EasterOffset *int   `json:"easter_offset,omitempty"`
	Name         string `json:"name"`
	From         int    `json:"from,omitempty"`
	Until        int    `json:"until,omitempty"`
	Source       string `json:"source"`
}

// State is a federative unit and its holidays.
type State struct {
	UF       string            `json:"uf"`
	Name     string            `json:"name"`
	Holidays []RegionalHoliday `json:"holidays"`
}

// City is a municipality (by its IBGE code) and its holidays.
type City struct {
	IBGE     string            `json:"ibge"`
	UF       string            `json:"uf"`
	Name     string            `json:"name"`
	Holidays []RegionalHoliday `json:"holidays"`
}

type regionalTable struct {
	States []State `json:"states"`
	Cities []City  `json:"cities"`
}

// Regions is the parsed holiday table; it is immutable once built.
type Regions struct {
	states map[string]State
	cities map[string]City // by IBGE code
}

// BrazilRegions is the embedded table, parsed once.
var BrazilRegions = sync.OnceValues(LoadRegions)

// LoadRegions parses the embedded table, checking every entry: a date
// that exists, or an Easter offset, and a source.
func LoadRegions() (*Regions, error) {
	var t regionalTable
	if err := json.Unmarshal(holidaysBR, &t); err != nil {
		return nil, fmt.Errorf("bankcalendar: holidays_br.json: %w", err)
	}
	r := &Regions{states: map[string]State{}, cities: map[string]City{}}
	check := func(where string, hs []RegionalHoliday) error {
		for _, h := range hs {
			if h.Name == "" || h.Source == "" {
				return fmt.Errorf("bankcalendar: holidays_br.json %s: %q needs a name and a source", where, h.Name)
			}
			if (h.Date == "") == (h.EasterOffset == nil) {
				return fmt.Errorf("bankcalendar: holidays_br.json %s: %q needs a date or an easter_offset", where, h.Name)
			}
			if h.Date != "" {
				if _, err := time.Parse("2006-01-02", "2024-"+h.Date); err != nil {
					return fmt.Errorf("bankcalendar: holidays_br.json %s: %q: date %q is not MM-DD", where, h.Name, h.Date)
				}
			}
		}
		return nil
	}
	for _, s := range t.States {
		if err := check(s.UF, s.Holidays); err != nil {
			return nil, err
		}
		r.states[s.UF] = s
	}
	for _, c := range t.Cities {
		if _, ok := r.states[c.UF]; !ok {
			return nil, fmt.Errorf("bankcalendar: holidays_br.json: city %s has unknown state %q", c.IBGE, c.UF)
		}
		if err := check(c.IBGE, c.Holidays); err != nil {
			return nil, err
		}
		r.cities[c.IBGE] = c
	}
	return r, nil
}

// State is the state of uf ("SP"), upper or lower case.
func (r *Regions) State(uf string) (State, bool) {
	s, ok := r.states[strings.ToUpper(strings.TrimSpace(uf))]
	return s, ok
}

// City finds a city of state uf by its IBGE code ("3550308") or its name,
// ignoring case and accents ("sao paulo"). Only the cities in the table
// (the 27 capitals) are found.
func (r *Regions) City(uf, codeOrName string) (City, bool) {
	uf = strings.ToUpper(strings.TrimSpace(uf))
	key := strings.TrimSpace(codeOrName)
	if c, ok := r.cities[key]; ok && c.UF == uf {
		return c, true
	}
	want := fold(key)
	for _, c := range r.cities {
		if c.UF == uf && fold(c.Name) == want {
			return c, true
		}
	}
	return City{}, false
}

// fold is s lower-cased without its accents, for matching city names.
func fold(s string) string {
	return accents.Replace(strings.ToLower(s))
}

// accents are the accented letters of Portuguese city names.
var accents = strings.NewReplacer("á", "a", "à", "a", "â", "a", "ã", "a", "é", "e", "ê", "e", "í", "i",
	"ó", "o", "ô", "o", "õ", "o", "ú", "u", "ü", "u", "ç", "c")

// Place is where an organization is: its state (UF) and, optionally, its
// city (IBGE code), whose holidays close the banks it uses.
type Place struct {
	UF   string
	City string
}

// in is the holiday's date in year, or false when it is not in force.
func (h RegionalHoliday) in(year int) (Date, bool) {
	if (h.From != 0 && year < h.From) || (h.Until != 0 && year > h.Until) {
		return Date{}, false
	}
	if h.EasterOffset != nil {
		return DateOf(cal.CalcEasterOffset(&cal.Holiday{Offset: *h.EasterOffset}, year)), true
	}
	t, err := time.Parse("2006-01-02", fmt.Sprintf("%04d-%s", year, h.Date))
	if err != nil {
		return Date{}, false
	}
	return DateOf(t), true
}
