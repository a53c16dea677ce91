package store

import (
	"database/sql"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/jmoiron/sqlx"
	"github.com/jmoiron/sqlx/reflectx"
)

// scanPlans keeps, for each query and destination struct type, which field
// each column of the answer goes to. sqlx works it out again on every
// query — the columns asked of the driver, every column's path through the
// struct — which was a tenth of a signed-in listing's allocations
// (docs/decisions.md, "Identity read cache"). A query's text
// names its columns, so the plan of a (query, type) pair never changes
// while the process runs. Scanning itself, and every type sqlx handles
// that is not a plain struct (scalars, sql.Scanner values), stay sqlx's.
type scanPlans struct {
	plans sync.Map // scanKey → *scanPlan
	n     atomic.Int64
}

// scanPlan is one (query, type) pair's plan, with the columns it was made
// for: a plan is used only while the answer has the same columns, so a
// table changed under a query (a migration, a test's ALTER TABLE) is
// planned again rather than scanned into the wrong fields.
type scanPlan struct {
	columns []string
	fields  [][]int
	// rows is how many rows the query's last Select returned (at most
	// maxRowsHint): the room its next Select makes when the first row
	// arrives, so a page of ten is read into one slice of ten without a
	// caller making it in advance — and an empty page makes none
	// (docs/decisions.md, "A slice the size of the last answer").
	rows atomic.Int32
}

// maxRowsHint bounds the room a Select makes in advance from its query's
// last answer: a larger answer grows the slice as append does.
const maxRowsHint = 256

// maxScanPlans bounds the plans kept: the code's queries are a few
// hundred shapes; past the bound a query is planned on each run.
const maxScanPlans = 4096

type scanKey struct {
	t     reflect.Type
	query string
}

var scannerType = reflect.TypeFor[sql.Scanner]()

// structBase returns the struct type of a destination element (T or *T)
// that the plans cover, or nil for what sqlx scans as one value.
func structBase(m *reflectx.Mapper, t reflect.Type) reflect.Type {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || reflect.PointerTo(t).Implements(scannerType) || len(m.TypeMap(t).Index) == 0 {
		return nil
	}
	return t
}

// plan returns the plan of rows' columns in base.
func (p *scanPlans) plan(rows *sqlx.Rows, base reflect.Type, query string) (*scanPlan, error) {
	columns, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	k := scanKey{base, query}
	if v, ok := p.plans.Load(k); ok {
		if plan := v.(*scanPlan); slices.Equal(plan.columns, columns) {
			return plan, nil
		}
	}
	fields := rows.Mapper.TraversalsByName(base, columns)
	for i, f := range fields {
		if len(f) == 0 {
			return nil, fmt.Errorf("missing destination name %s in %v", columns[i], base)
		}
	}
	// The driver may reuse its slice of names: the plan keeps a copy.
	plan := &scanPlan{columns: slices.Clone(columns), fields: fields}
	if p.n.Load() < maxScanPlans {
		if _, loaded := p.plans.Swap(k, plan); !loaded {
			p.n.Add(1)
		}
	}
	return plan, nil
}

// scanRow scans the current row into v, an addressable struct.
func scanRow(rows *sqlx.Rows, v reflect.Value, fields [][]int, values []any) error {
	for i, f := range fields {
		values[i] = reflectx.FieldByIndexes(v, f).Addr().Interface()
	}
	return rows.Scan(values...)
}

// sliceBase is the struct type of the elements dest (a pointer to a slice)
// holds, when the plans cover it; false leaves the query to sqlx.
func sliceBase(m *reflectx.Mapper, dest any) (reflect.Type, bool) {
	t := reflect.TypeOf(dest)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Slice || reflect.ValueOf(dest).IsNil() {
		return nil, false
	}
	base := structBase(m, t.Elem().Elem())
	return base, base != nil
}

// structDest is the struct type dest (a pointer to a struct) points to,
// when the plans cover it; false leaves the query to sqlx.
func structDest(m *reflectx.Mapper, dest any) (reflect.Type, bool) {
	t := reflect.TypeOf(dest)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct || reflect.ValueOf(dest).IsNil() {
		return nil, false
	}
	base := structBase(m, t.Elem())
	return base, base != nil
}

// selectRows is sqlx's Select over rows with the plan kept: every row is
// appended to the slice dest points to (sliceBase gave base).
func (p *scanPlans) selectRows(rows *sqlx.Rows, err error, dest any, base reflect.Type, query string) error {
	if err != nil {
		return err
	}
	defer rows.Close()
	plan, err := p.plan(rows, base, query)
	if err != nil {
		return err
	}
	dv := reflect.ValueOf(dest).Elem()
	ptrs := dv.Type().Elem().Kind() == reflect.Pointer
	values := make([]any, len(plan.fields))
	start := dv.Len()
	for rows.Next() {
		n := dv.Len()
		if n == dv.Cap() {
			room := 1
			if n == start {
				room = max(room, int(plan.rows.Load()))
			}
			dv.Grow(room)
		}
		dv.SetLen(n + 1)
		// Each row is scanned where it stays: a value row in the
		// slice's own element (zeroed first: the slice may have held
		// another), a pointer row in a struct of its own.
		el := dv.Index(n)
		if ptrs {
			el.Set(reflect.New(base))
			el = el.Elem()
		} else {
			el.SetZero()
		}
		if err := scanRow(rows, el, plan.fields, values); err != nil {
			dv.SetLen(start)
			return err
		}
	}
	if err := rows.Err(); err != nil {
		dv.SetLen(start)
		return err
	}
	plan.rows.Store(int32(min(dv.Len()-start, maxRowsHint)))
	return nil
}

// getRow is sqlx's Get over rows with the plan kept: the first row is
// scanned into the struct dest points to (structDest gave base; columns
// the query does not name leave their fields as they were),
// sql.ErrNoRows when there is none.
func (p *scanPlans) getRow(rows *sqlx.Rows, err error, dest any, base reflect.Type, query string) error {
	if err != nil {
		return err
	}
	defer rows.Close()
	plan, err := p.plan(rows, base, query)
	if err != nil {
		return err
	}
	fields := plan.fields
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return sql.ErrNoRows
	}
	if err := scanRow(rows, reflect.ValueOf(dest).Elem(), fields, make([]any, len(fields))); err != nil {
		return err
	}
	return rows.Close()
}
