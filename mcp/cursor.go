package mcp

import (
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// Cursors are opaque to clients: base64url of "<list>:<offset>". The list
// name keeps a tools cursor from paging prompts. Offsets index the list as
// filtered for the caller, which is deterministic for a given caller.
func encodeCursor(list string, offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte(list + ":" + strconv.Itoa(offset)))
}

func decodeCursor(raw jsontext.Value, list string, total int) (int, *Error) {
	if raw == nil || string(raw) == "null" {
		return 0, nil
	}
	s, ok := stringMember(raw)
	if !ok {
		return 0, InvalidParams("Invalid cursor: must be a string")
	}
	if s == "" {
		return 0, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return 0, InvalidParams("Invalid cursor")
	}
	kind, off, found := strings.Cut(string(b), ":")
	n, err := strconv.Atoi(off)
	if !found || kind != list || err != nil || n <= 0 || n > total {
		return 0, InvalidParams("Invalid cursor")
	}
	return n, nil
}

// page slices a filtered list and says where the next page starts.
func page[T any](c *call, items []T, list string) ([]T, string, *Error) {
	start, e := decodeCursor(c.msg.params.Cursor, list, len(items))
	if e != nil {
		return nil, "", e
	}
	end := min(start+c.h.opts.PageSize, len(items))
	next := ""
	if end < len(items) {
		next = encodeCursor(list, end)
	}
	return items[start:end], next, nil
}
