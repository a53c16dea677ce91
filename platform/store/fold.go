package store

import (
	"database/sql/driver"
	"strconv"
	"strings"

	"modernc.org/sqlite"
)

// SQLite's built-in lower() and upper() change only ASCII letters, while
// PostgreSQL's (in a UTF-8 database) change every letter: a search for
// "érica" found "ÉRICA" on one engine and not on the other. Both engines
// must give the same answer to the same input (docs/decisions.md
// "Migrations"), so the SQLite connections this package opens replace the
// two functions with Go's Unicode case mapping, which agrees with
// PostgreSQL's for the letters of Portuguese and Spanish names.
func init() {
	for name, fold := range map[string]func(string) string{"lower": strings.ToLower, "upper": strings.ToUpper} {
		if err := sqlite.RegisterDeterministicScalarFunction(name, 1, caseFunc(fold)); err != nil {
			panic("store: registering SQLite " + name + "(): " + err.Error())
		}
	}
}

// caseFunc is the SQL function applying fold to its one argument, with
// SQLite's own rules for the other types: NULL stays NULL, numbers become
// their text, a blob is read as UTF-8 text.
func caseFunc(fold func(string) string) func(*sqlite.FunctionContext, []driver.Value) (driver.Value, error) {
	return func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		switch v := args[0].(type) {
		case nil:
			return nil, nil
		case string:
			return fold(v), nil
		case []byte:
			return fold(string(v)), nil
		case int64:
			return strconv.FormatInt(v, 10), nil
		case float64:
			return strconv.FormatFloat(v, 'g', -1, 64), nil
		default:
			return v, nil
		}
	}
}
