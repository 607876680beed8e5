package sqlite

/*
typedef struct sqlite3 sqlite3;
extern int sqlite3_db_config(sqlite3*, int op, ...);

// hive_qpsg sets SQLITE_DBCONFIG_ENABLE_QPSG (1007 in sqlite3.h) to set (1
// on, 0 off, -1 unchanged) and returns whether it is on, -1 on error.
static int hive_qpsg(void *db, int set) {
	int on = 0;
	int rc = sqlite3_db_config((sqlite3*)db, 1007, set, &on);
	return rc != 0 ? -1 : on;
}
*/
import "C"

import (
	"errors"
	"reflect"
	"unsafe"

	"github.com/mattn/go-sqlite3"
)

// stablePlans turns on SQLite's query planner stability guarantee (QPSG) for
// c. Without it, a statement whose WHERE compares a column that its index
// does not cover with a bound value (e.kind = ? on a row found by seq) is
// marked to be re-planned when that value changes, and go-sqlite3 clears the
// bindings after every run, which marks it every time: each such statement
// was compiled anew at every step (sqlite3Reprepare). Our plans never depend
// on the values bound (no LIKE, no STAT4 statistics), so nothing is lost.
//
// go-sqlite3 has no call for sqlite3_db_config; its connection's handle is
// read from the pinned version's unexported field.
func stablePlans(c *sqlite3.SQLiteConn) error {
	on, err := qpsg(c, 1)
	if err == nil && !on {
		err = errors.New("sqlite: SQLite did not turn SQLITE_DBCONFIG_ENABLE_QPSG on")
	}
	return err
}

// qpsg sets the connection's QPSG flag (1 on, 0 off, -1 unchanged) and
// reports whether it is on.
func qpsg(c *sqlite3.SQLiteConn, set int) (bool, error) {
	f := reflect.ValueOf(c).Elem().FieldByName("db")
	if !f.IsValid() || f.Kind() != reflect.Pointer || f.IsNil() {
		return false, errors.New("sqlite: no database handle in this go-sqlite3 connection (has the library changed?)")
	}
	switch C.hive_qpsg(unsafe.Pointer(f.Pointer()), C.int(set)) {
	case 1:
		return true, nil
	case 0:
		return false, nil
	}
	return false, errors.New("sqlite: SQLite refused SQLITE_DBCONFIG_ENABLE_QPSG")
}
