package restkit

import (
	"context"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/mcp"
)

// CompleteFixed suggests, for each argument it names, the choices that
// start with what was typed (case-insensitively), in their order: for
// arguments whose useful values are few and known (a tone, a schedule),
// while any other text stays accepted.
func CompleteFixed(choices map[string][]string) mcp.CompleteHandler {
	return func(_ context.Context, req *mcp.CompleteRequest) (*mcp.Completion, error) {
		values := []string{}
		typed := strings.ToLower(req.Value)
		for _, c := range choices[req.Argument] {
			if strings.HasPrefix(strings.ToLower(c), typed) {
				values = append(values, c)
			}
		}
		return &mcp.Completion{Values: values}, nil
	}
}

// RecentDays are the days that many days before day, as YYYY-MM-DD, that
// start with what was typed: what a "since" argument is usually given.
func RecentDays(day time.Time, typed string, ago ...int) []string {
	values := []string{}
	for _, n := range ago {
		if d := day.AddDate(0, 0, -n).Format(time.DateOnly); strings.HasPrefix(d, typed) {
			values = append(values, d)
		}
	}
	return values
}
