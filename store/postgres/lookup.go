package postgres

import "github.com/ainb/hive/store"

// Lookup is one select over all the values, bound as one array.
func (d *db) Lookup(a *store.Args, col string, vals []string, sel func(cond string) string) string {
	return sel(d.In(a, col, vals, false))
}
