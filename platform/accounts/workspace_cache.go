package accounts

import (
	"sync"
	"time"
)

// workspaceCache keeps the workspace SelectWorkspace picked for an
// organization, a token's workspace and an X-Workspace-Id value, so the
// requests of a product cost no read of the workspaces table when nothing
// changed (docs/decisions.md, "Identity read cache"). It trusts an entry
// only while its ChangeWatch does: every write of the workspaces table
// notes a change (NoteChange), announced to the other replicas on
// PostgreSQL, and no entry outlives the watch's TTL. Only picks that
// succeeded are kept.
type workspaceCache struct {
	watch *ChangeWatch
	max   int
	now   func() time.Time

	mu      sync.Mutex
	entries map[workspaceKey]workspaceEntry
}

type workspaceKey struct{ org, token, header string }

type workspaceEntry struct {
	w  Workspace
	at Stamp
}

func newWorkspaceCache(w *ChangeWatch) *workspaceCache {
	return &workspaceCache{watch: w, max: 10000, now: time.Now, entries: map[workspaceKey]workspaceEntry{}}
}

// get answers a fresh entry, or the stamp to store a new read with.
func (c *workspaceCache) get(k workspaceKey) (Workspace, bool, Stamp) {
	now := c.now()
	stamp := c.watch.Stamp(now)
	if !stamp.OK() {
		return Workspace{}, false, stamp
	}
	c.mu.Lock()
	e, ok := c.entries[k]
	c.mu.Unlock()
	if ok && c.watch.Fresh(e.at, now) {
		return e.w, true, stamp
	}
	return Workspace{}, false, stamp
}

func (c *workspaceCache) put(k workspaceKey, w Workspace, at Stamp) {
	if !at.OK() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= c.max {
		now := c.now()
		for k, v := range c.entries {
			if !c.watch.Fresh(v.at, now) {
				delete(c.entries, k)
			}
		}
		if len(c.entries) >= c.max {
			clear(c.entries)
		}
	}
	c.entries[k] = workspaceEntry{w: w, at: at}
}
