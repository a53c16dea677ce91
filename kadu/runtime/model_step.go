package runtime

import "encoding/json"

// minOutputTokens is the least answer a model step is started for (the
// budget check prices a step at least this long: budget.go).
const minOutputTokens = 16

// stepArgs is v as a step's recorded arguments.
func stepArgs(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
