package schedule

import (
	"fmt"
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
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("time zone must be an IANA name such as %s (got %.60q)", DefaultZone, name)
	}
	return loc, nil
}
