package mcp

import (
	"context"
	"sync"
)

// AccessClasser is implemented by an Authorizer whose Access answers for
// a caller depend only on the caller's class (for an OAuth resource server:
// the role and the scopes). tools/list then builds the answer of each
// class, protocol version and page once and serves it again to every
// caller of that class: the catalog is fixed when the Handler is made, so
// the filtered list can only change with the class. ok is false when the
// caller has no class (each request is then filtered afresh).
type AccessClasser interface {
	AccessClass(ctx context.Context) (class string, ok bool)
}

// maxListAnswers bounds the answers kept: classes are few (roles × the
// scope sets clients ask for); past the bound answers are built per
// request.
const maxListAnswers = 256

type listKey struct{ class, version, cursor string }

// listCache holds tools/list answers (a kept result: everything after the
// id, decorated for the key's version) by caller class; the slices are
// never written once stored.
type listCache struct {
	mu sync.RWMutex
	m  map[listKey][]byte
}

func (lc *listCache) get(k listKey) ([]byte, bool) {
	lc.mu.RLock()
	defer lc.mu.RUnlock()
	b, ok := lc.m[k]
	return b, ok
}

func (lc *listCache) put(k listKey, b []byte) {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if lc.m == nil {
		lc.m = map[listKey][]byte{}
	}
	if len(lc.m) < maxListAnswers {
		lc.m[k] = b
	}
}

// listKeyOf is the cache key of this call's list, or false when the
// caller has no class.
func (c *call) listKeyOf() (listKey, bool) {
	ac, ok := c.h.auth.(AccessClasser)
	if !ok {
		return listKey{}, false
	}
	class, ok := ac.AccessClass(c.ctx)
	if !ok {
		return listKey{}, false
	}
	return listKey{class: class, version: c.version, cursor: string(c.msg.params.Cursor)}, true
}
