// Package historytest gives the tests of history and of the CLI a fresh
// PostgreSQL database of the test server that .ci/run starts.
package historytest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

// PostgresEnv names the environment variable the PostgreSQL tests read: a
// DSN of a server where they may create and drop databases (.ci/run starts
// a throwaway cluster and sets it).
const PostgresEnv = "LLMGATE_TEST_POSTGRES"

// Postgres returns the DSN of a fresh database, dropped when the test
// ends. Without LLMGATE_TEST_POSTGRES the test is skipped, except under
// CI=true, where the PostgreSQL tests must run.
func Postgres(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(PostgresEnv)
	if dsn == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set, and CI=true requires the PostgreSQL tests to run (.ci/run starts a server)", PostgresEnv)
		}
		t.Skipf("skipping PostgreSQL test: set %s to a server's DSN (eval \"$(bash .ci/postgres.sh)\" starts one)", PostgresEnv)
	}
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("%s: %v", PostgresEnv, err)
	}
	name := fmt.Sprintf("llmgate_test_%d", rand.Uint64()>>1)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		admin.Close(ctx)
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec(context.Background(), "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("dropping %s: %v", name, err)
		}
		admin.Close(context.Background())
	})
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}
