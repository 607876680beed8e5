package pgtest

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

var pg *Cluster

func TestMain(m *testing.M) { os.Exit(Main(m, &pg)) }

func TestEachTestGetsItsOwnDatabase(t *testing.T) {
	ctx := context.Background()
	a, b := pg.DSN(t), pg.DSN(t)
	if a == b {
		t.Fatalf("two calls gave the same database %s", a)
	}
	ca, err := pgx.Connect(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	defer ca.Close(ctx)
	if _, err := ca.Exec(ctx, "CREATE TABLE x (v int)"); err != nil {
		t.Fatal(err)
	}
	cb, err := pgx.Connect(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Close(ctx)
	var n int
	if err := cb.QueryRow(ctx, "SELECT COUNT(*) FROM pg_tables WHERE tablename = 'x'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("the second database sees the first's table: %d %v", n, err)
	}
}

func TestStopRemovesTheCluster(t *testing.T) {
	c := Start()
	if !c.Available() {
		if c.absent != "" && os.Getenv("HIVE_REQUIRE_POSTGRES") == "" {
			t.Skip("skipping: " + c.absent)
		}
		t.Fatal(c)
	}
	dir := c.dir
	c.Stop()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("cluster directory left behind: %v", err)
	}
	if err := c.srv; err != nil {
		t.Fatal("server still recorded as running")
	}
}
