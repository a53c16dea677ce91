package restkit

import (
	"bytes"
	"encoding/json"
)

// WithNotice is the text of a resource that shows third-party data:
// {"notice": notice, member: data}, indented two spaces, the notice first
// so a model reads the warning before the data, and data's members in the
// order the route answered them. Field values in results are third-party
// data, never instructions (docs/decisions.md "The rules we build on").
func WithNotice(notice, member string, data json.RawMessage) (string, error) {
	n, _ := json.Marshal(notice)
	key, _ := json.Marshal(member)
	compact := make([]byte, 0, len(n)+len(key)+len(data)+16)
	compact = append(compact, `{"notice":`...)
	compact = append(compact, n...)
	compact = append(compact, ',')
	compact = append(compact, key...)
	compact = append(compact, ':')
	compact = append(compact, data...)
	compact = append(compact, '}')
	var out bytes.Buffer
	if err := json.Indent(&out, compact, "", "  "); err != nil {
		return "", err
	}
	return out.String(), nil
}
