package schedule

import (
	"fmt"
	"sync"
	"time"
)

// DefaultZone is the time zone of an organization that set none: most
// Brazilian organizations keep Brasília time, which São Paulo observes.
const DefaultZone = "America/Sao_Paulo"

// LoadZone resolves an organization's IANA time zone name ("" is
// DefaultZone). "Local" is refused: it would make the schedule depend on
// the server's configuration.
func LoadZone(name string) (*time.Location, error) {
	if name == "" {
		name = DefaultZone
	}
	if name == "Local" {
		return nil, fmt.Errorf("time zone must be an IANA name such as %s, not Local", DefaultZone)
	}
	if loc, ok := zones.Load(name); ok {
		return loc.(*time.Location), nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("time zone must be an IANA name such as %s (got %.60q)", DefaultZone, name)
	}
	if len(name) <= maxZoneName {
		zones.Store(name, loc)
	}
	return loc, nil
}

// zones are the zones loaded so far, by name: time.LoadLocation reads and
// parses the zone's file on every call, and every listing of charges
// reads its organization's zone (docs/performance.md, "Dunning
// listings"). Only names that loaded are kept — the IANA database's few
// hundred — so the map is bounded; a zone's rules change only with a new
// binary's tzdata.
var zones sync.Map

// maxZoneName bounds the names zones keeps (the longest IANA name has 30
// bytes).
const maxZoneName = 64
