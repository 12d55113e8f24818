package history

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/llmgate/llmgate/untrusted"
)

// pgSchemaVersion is the version of the tables this build creates; it is
// recorded in llmgate_history_schema, and a database holding a newer one is
// refused.
const pgSchemaVersion = 1

// pgSchema creates the tables on first use. Estimates are rows of their
// own so that a dashboard can chart them with plain SQL; the results file
// is kept byte for byte (bytea), so both stores return the same bytes.
var pgSchema = []string{
	`CREATE TABLE IF NOT EXISTS llmgate_history_schema (version integer NOT NULL, created timestamptz NOT NULL DEFAULT now())`,
	`CREATE TABLE IF NOT EXISTS llmgate_history_entries (
		id text PRIMARY KEY,
		format integer NOT NULL,
		suite text NOT NULL,
		git_commit text NOT NULL,
		git_ref text NOT NULL,
		measured timestamptz NOT NULL,
		added timestamptz NOT NULL,
		source text NOT NULL,
		digest text NOT NULL,
		partial boolean NOT NULL,
		environment jsonb NOT NULL,
		results bytea NOT NULL)`,
	`CREATE INDEX IF NOT EXISTS llmgate_history_entries_suite ON llmgate_history_entries (suite, measured)`,
	`CREATE TABLE IF NOT EXISTS llmgate_history_runs (
		entry_id text NOT NULL REFERENCES llmgate_history_entries (id),
		position integer NOT NULL,
		name text NOT NULL,
		scenario text NOT NULL,
		params jsonb,
		status text NOT NULL,
		reasons jsonb,
		PRIMARY KEY (entry_id, name))`,
	`CREATE TABLE IF NOT EXISTS llmgate_history_estimates (
		entry_id text NOT NULL,
		run text NOT NULL,
		metric text NOT NULL,
		value double precision NOT NULL,
		lo double precision,
		hi double precision,
		n integer NOT NULL,
		estimator text NOT NULL,
		PRIMARY KEY (entry_id, run, metric),
		FOREIGN KEY (entry_id, run) REFERENCES llmgate_history_runs (entry_id, name))`,
	`CREATE TABLE IF NOT EXISTS llmgate_history_accepted (
		id text PRIMARY KEY,
		format integer NOT NULL,
		suite text NOT NULL,
		run text NOT NULL,
		metric text NOT NULL,
		entry_id text NOT NULL,
		git_commit text NOT NULL,
		accepted_by text NOT NULL,
		accepted_at timestamptz NOT NULL,
		reason text NOT NULL)`,
}

// pgLockKey serialises the schema's creation between two first users.
const pgLockKey = 0x6c6c6d67617465 // "llmgate"

// PostgresStore is a history kept in PostgreSQL.
type PostgresStore struct {
	conn *pgx.Conn
	name string
}

// OpenPostgres connects to the database at dsn and creates the schema on
// first use, recording its version.
func OpenPostgres(ctx context.Context, dsn string) (*PostgresStore, error) {
	name := redactDSN(dsn)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("history store %s: %w", name, err)
	}
	if m := untrusted.Current(); m != nil && cfg.Password != "" {
		m.Add(cfg.Password) // an error that quotes the DSN must not show it
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("history store %s: %w", name, err)
	}
	s := &PostgresStore{conn: conn, name: name}
	if err := s.migrate(ctx); err != nil {
		conn.Close(ctx)
		return nil, fmt.Errorf("history store %s: %w", name, err)
	}
	return s, nil
}

// redactDSN is the URL without its password.
func redactDSN(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "postgres://…"
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}

func (s *PostgresStore) String() string { return s.name }

// Close closes the connection.
func (s *PostgresStore) Close() error { return s.conn.Close(context.Background()) }

// migrate creates the tables in one transaction under an advisory lock,
// and records or checks the schema version.
func (s *PostgresStore) migrate(ctx context.Context) error {
	return pgx.BeginFunc(ctx, s.conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(pgLockKey)); err != nil {
			return err
		}
		for _, stmt := range pgSchema {
			if _, err := tx.Exec(ctx, stmt); err != nil {
				return err
			}
		}
		var version *int
		if err := tx.QueryRow(ctx, `SELECT max(version) FROM llmgate_history_schema`).Scan(&version); err != nil {
			return err
		}
		switch {
		case version == nil:
			_, err := tx.Exec(ctx, `INSERT INTO llmgate_history_schema (version) VALUES ($1)`, pgSchemaVersion)
			return err
		case *version > pgSchemaVersion:
			return fmt.Errorf("the database holds history schema %d, newer than this llmgate understands (%d); upgrade llmgate", *version, pgSchemaVersion)
		}
		return nil
	})
}

// Add inserts the entry, its runs and their estimates in one transaction.
func (s *PostgresStore) Add(ctx context.Context, e *Entry) error {
	env, err := json.Marshal(e.Environment)
	if err != nil {
		return err
	}
	err = pgx.BeginFunc(ctx, s.conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO llmgate_history_entries
			(id, format, suite, git_commit, git_ref, measured, added, source, digest, partial, environment, results)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
			e.ID, e.Format, e.Suite, e.Commit, e.Ref, e.Time, e.Added, e.Source, e.Digest, e.Partial, env, e.payload); err != nil {
			return err
		}
		var rows [][]any
		for i := range e.Runs {
			r := &e.Runs[i]
			if _, err := tx.Exec(ctx, `INSERT INTO llmgate_history_runs (entry_id, position, name, scenario, params, status, reasons)
				VALUES ($1, $2, $3, $4, $5, $6, $7)`, e.ID, i, r.Name, r.Scenario, jsonOrNil(r.Params), r.Status, jsonOrNil(r.Reasons)); err != nil {
				return err
			}
			for name, est := range r.Estimates {
				rows = append(rows, []any{e.ID, r.Name, name, est.Value, est.Lo, est.Hi, est.N, est.Estimator})
			}
		}
		_, err := tx.CopyFrom(ctx, pgx.Identifier{"llmgate_history_estimates"},
			[]string{"entry_id", "run", "metric", "value", "lo", "hi", "n", "estimator"}, pgx.CopyFromRows(rows))
		return err
	})
	if isUniqueViolation(err) {
		return fmt.Errorf("entry %s: %w", e.ID, ErrExists)
	}
	return err
}

// jsonOrNil encodes v, or SQL NULL for an empty map or slice.
func jsonOrNil[T any](v T) any {
	b, _ := json.Marshal(v)
	switch string(b) {
	case "null", "{}", "[]":
		return nil
	}
	return b
}

func isUniqueViolation(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}

// Entries reads the entries of q with their runs and estimates, checking
// each as the directory store does.
func (s *PostgresStore) Entries(ctx context.Context, q Query) ([]*Entry, error) {
	cols := `id, format, suite, git_commit, git_ref, measured, added, source, digest, partial, environment`
	if q.WithResults {
		cols += `, results`
	}
	rows, err := s.conn.Query(ctx, `SELECT `+cols+` FROM llmgate_history_entries WHERE $1 = '' OR suite = $1`, q.Suite)
	if err != nil {
		return nil, err
	}
	byID := map[string]*Entry{}
	var out []*Entry
	payloads := map[string][]byte{}
	for rows.Next() {
		e := &Entry{}
		var env []byte
		dest := []any{&e.ID, &e.Format, &e.Suite, &e.Commit, &e.Ref, &e.Time, &e.Added, &e.Source, &e.Digest, &e.Partial, &env}
		var payload []byte
		if q.WithResults {
			dest = append(dest, &payload)
		}
		if err := rows.Scan(dest...); err != nil {
			rows.Close()
			return nil, err
		}
		if err := json.Unmarshal(env, &e.Environment); err != nil {
			rows.Close()
			return nil, fmt.Errorf("entry %s: environment: %w", untrusted.Short(e.ID, 80), err)
		}
		e.Time, e.Added = e.Time.UTC(), e.Added.UTC()
		payloads[e.ID] = payload
		byID[e.ID] = e
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if err := s.loadRuns(ctx, q.Suite, byID); err != nil {
		return nil, err
	}
	for _, e := range out {
		if err := e.check(); err != nil {
			return nil, err
		}
		if q.WithResults {
			if err := e.loadPayload(payloads[e.ID]); err != nil {
				return nil, err
			}
		}
	}
	sortEntries(out)
	return out, nil
}

// loadRuns fills the runs and estimates of the entries in byID.
func (s *PostgresStore) loadRuns(ctx context.Context, suite string, byID map[string]*Entry) error {
	rows, err := s.conn.Query(ctx, `SELECT r.entry_id, r.name, r.scenario, r.params, r.status, r.reasons
		FROM llmgate_history_runs r JOIN llmgate_history_entries e ON e.id = r.entry_id
		WHERE $1 = '' OR e.suite = $1 ORDER BY r.entry_id, r.position`, suite)
	if err != nil {
		return err
	}
	for rows.Next() {
		var id string
		var r Run
		var params, reasons []byte
		if err := rows.Scan(&id, &r.Name, &r.Scenario, &params, &r.Status, &reasons); err != nil {
			rows.Close()
			return err
		}
		if params != nil {
			if err := json.Unmarshal(params, &r.Params); err != nil {
				rows.Close()
				return err
			}
		}
		if reasons != nil {
			if err := json.Unmarshal(reasons, &r.Reasons); err != nil {
				rows.Close()
				return err
			}
		}
		if e := byID[id]; e != nil {
			e.Runs = append(e.Runs, r)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	rows, err = s.conn.Query(ctx, `SELECT m.entry_id, m.run, m.metric, m.value, m.lo, m.hi, m.n, m.estimator
		FROM llmgate_history_estimates m JOIN llmgate_history_entries e ON e.id = m.entry_id
		WHERE $1 = '' OR e.suite = $1`, suite)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id, run, metric string
		var est Estimate
		if err := rows.Scan(&id, &run, &metric, &est.Value, &est.Lo, &est.Hi, &est.N, &est.Estimator); err != nil {
			return err
		}
		e := byID[id]
		if e == nil {
			continue
		}
		r := e.Run(run)
		if r == nil {
			continue
		}
		if r.Estimates == nil {
			r.Estimates = map[string]Estimate{}
		}
		r.Estimates[metric] = est
	}
	return rows.Err()
}

// Accept inserts the acceptance.
func (s *PostgresStore) Accept(ctx context.Context, a *Acceptance) error {
	_, err := s.conn.Exec(ctx, `INSERT INTO llmgate_history_accepted
		(id, format, suite, run, metric, entry_id, git_commit, accepted_by, accepted_at, reason)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		a.ID, a.Format, a.Suite, a.Run, a.Metric, a.Entry, a.Commit, a.By, a.At, a.Reason)
	if isUniqueViolation(err) {
		return fmt.Errorf("acceptance %s: %w", a.ID, ErrExists)
	}
	return err
}

// Acceptances reads every acceptance.
func (s *PostgresStore) Acceptances(ctx context.Context) ([]*Acceptance, error) {
	rows, err := s.conn.Query(ctx, `SELECT id, format, suite, run, metric, entry_id, git_commit, accepted_by, accepted_at, reason FROM llmgate_history_accepted`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*Acceptance
	for rows.Next() {
		a := &Acceptance{}
		var at time.Time
		if err := rows.Scan(&a.ID, &a.Format, &a.Suite, &a.Run, &a.Metric, &a.Entry, &a.Commit, &a.By, &at, &a.Reason); err != nil {
			return nil, err
		}
		a.At = at.UTC()
		if err := a.check(); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	sortAcceptances(out)
	return out, nil
}
