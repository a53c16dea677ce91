package store

import "testing"

// TestWritesRows pins which statements outside a transaction take the
// write gate: a wrong "no" lets a writer race the others for SQLite's lock
// again, a wrong "yes" makes a read queue behind writers.
func TestWritesRows(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]bool{
		"INSERT INTO t VALUES (1)":                                 true,
		"  insert into t values (1)":                               true,
		"UPDATE t SET v = 1":                                       true,
		"delete from t":                                            true,
		"REPLACE INTO t VALUES (1)":                                true,
		"UPDATE river_job SET state = 'running' RETURNING *":       true,
		"WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x":       true,
		"SELECT * FROM t":                                          false,
		"select updated_at, inserted from t":                       false,
		"WITH x AS (SELECT 1) SELECT * FROM x":                     false,
		"PRAGMA busy_timeout":                                      false,
		"(SELECT 1) UNION (SELECT 2)":                              false,
		"SELECT id FROM t WHERE v = 'returning' /* not a write */": true, // a false yes: it only queues
	} {
		if got := writesRows(q); got != want {
			t.Errorf("writesRows(%q) = %v, want %v", q, got, want)
		}
	}
	if gateOf(":memory:") != nil || gateOf("file::memory:?cache=shared&mode=memory") != nil {
		t.Error("an in-memory database has a gate")
	}
	if gateOf("/tmp/a.db?_busy_timeout=1") != gateOf("/tmp/a.db?_txlock=immediate") {
		t.Error("two connections to one file have two gates")
	}
}
