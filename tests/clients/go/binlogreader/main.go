// binlogreader streams a server's binary log with go-mysql's
// replication.BinlogSyncer (the library under canal, gh-ost and many CDC
// tools) and prints what it decodes as JSON lines, for
// tests/clients/test_dump_readers.py:
//
//	{"gtid":"<uuid>:<n>"}                                   every GTID event
//	{"rows":"write|update|delete","schema":..,"table":..,
//	 "columns":[..],"values":[[..],..]}                     every rows event
//	{"rotate":"<file>","pos":N}                             every Rotate event
//	{"done":true,"rows":N}                                  at the end (exit 0)
//	{"xid":N,"pos":N}                                        every Xid event (-xids)
//
// -tls connects with TLS. With -semisync it asks for semisync as go-mysql's SemiSyncEnabled does
// (SHOW VARIABLES for rpl_semi_sync_*_enabled = ON, SET
// @rpl_semi_sync_slave = 1) and acks every event the source flags.
//
// It stops after -rows row images (an UPDATE counts its before and after
// image once: one changed row) or fails after -timeout (exit 2, reason on
// stderr). Values are normalised so that Python can compare them: integers
// and floats as JSON numbers, DECIMAL as a string (UseDecimal), []byte as a
// string when it is valid UTF-8 else {"hex": ".."}, temporal values as
// go-mysql's strings (ParseTime off, TIMESTAMP rendered in UTC).
package main

import (
	"context"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"
	"unicode/utf8"

	"github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/replication"
	"github.com/shopspring/decimal"
)

// A transaction's GTID event, from a MySQL source (replication.GTIDEvent) or
// a MariaDB one (replication.MariadbGTIDEvent): printed alike, so that a
// bench comparing the two gives the reader the same work per transaction.
type gtidEvent interface {
	GTIDNext() (mysql.GTIDSet, error)
}

func value(v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case []byte:
		if utf8.Valid(x) {
			return string(x)
		}
		return map[string]string{"hex": hex.EncodeToString(x)}
	case decimal.Decimal:
		return x.String()
	case string, bool,
		int, int8, int16, int32, int64,
		uint, uint8, uint16, uint32, uint64,
		float32, float64:
		return x
	case fmt.Stringer:
		return x.String()
	default:
		return fmt.Sprintf("%v", x)
	}
}

func main() {
	host := flag.String("host", "127.0.0.1", "server host")
	port := flag.Int("port", 3306, "server port")
	user := flag.String("user", "root", "user")
	password := flag.String("password", "", "password")
	serverID := flag.Uint("server-id", 1001, "this reader's server id")
	mode := flag.String("mode", "pos", "pos or gtid")
	file := flag.String("file", "", "start file (mode pos)")
	pos := flag.Uint("pos", 4, "start position (mode pos)")
	gtid := flag.String("gtid", "", "executed GTID set (mode gtid)")
	wantRows := flag.Int("rows", 1, "stop after this many changed rows")
	timeout := flag.Duration("timeout", 60*time.Second, "give up after this long")
	verbose := flag.Bool("v", false, "go-mysql's log on stderr")
	semisync := flag.Bool("semisync", false, "register as a semisync replica and ack (SemiSyncEnabled)")
	useTLS := flag.Bool("tls", false, "connect with TLS (certificate not verified)")
	xids := flag.Bool("xids", false, "print every Xid event")
	flag.Parse()

	logOut := io.Discard
	if *verbose {
		logOut = os.Stderr
	}
	cfg := replication.BinlogSyncerConfig{
		ServerID:                uint32(*serverID),
		Flavor:                  "mysql",
		Host:                    *host,
		Port:                    uint16(*port),
		User:                    *user,
		Password:                *password,
		UseDecimal:              true,
		TimestampStringLocation: time.UTC,
		VerifyChecksum:          true,
		DisableRetrySync:        true,
		SemiSyncEnabled:         *semisync,
		Logger:                  slog.New(slog.NewTextHandler(logOut, nil)),
	}
	if *useTLS {
		cfg.TLSConfig = &tls.Config{InsecureSkipVerify: true}
	}
	syncer := replication.NewBinlogSyncer(cfg)
	defer syncer.Close() // KILLs the dump connection from a new one

	var streamer *replication.BinlogStreamer
	var err error
	switch *mode {
	case "pos":
		streamer, err = syncer.StartSync(mysql.Position{Name: *file, Pos: uint32(*pos)})
	case "gtid":
		var set mysql.GTIDSet
		set, err = mysql.ParseMysqlGTIDSet(*gtid)
		if err != nil {
			fmt.Fprintf(os.Stderr, "bad GTID set %q: %v\n", *gtid, err)
			os.Exit(2)
		}
		streamer, err = syncer.StartSyncGTID(set)
	default:
		fmt.Fprintf(os.Stderr, "unknown -mode %q\n", *mode)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "start: %v\n", err)
		os.Exit(2)
	}

	out := json.NewEncoder(os.Stdout)
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	seen := 0
	for seen < *wantRows {
		ev, err := streamer.GetEvent(ctx)
		if err != nil {
			fmt.Fprintf(os.Stderr, "after %d rows: %v\n", seen, err)
			syncer.Close()
			os.Exit(2)
		}
		switch e := ev.Event.(type) {
		case gtidEvent: // MySQL's Gtid event, and MariaDB's GTID event alike
			next, err := e.GTIDNext()
			if err == nil {
				_ = out.Encode(map[string]any{"gtid": next.String()})
			}
		case *replication.XIDEvent:
			if *xids {
				_ = out.Encode(map[string]any{"xid": e.XID, "pos": ev.Header.LogPos})
			}
		case *replication.RotateEvent:
			_ = out.Encode(map[string]any{"rotate": string(e.NextLogName), "pos": e.Position})
		case *replication.RowsEvent:
			kind := ""
			perRow := 1
			switch ev.Header.EventType {
			case replication.WRITE_ROWS_EVENTv2, replication.WRITE_ROWS_EVENTv1:
				kind = "write"
			case replication.UPDATE_ROWS_EVENTv2, replication.UPDATE_ROWS_EVENTv1:
				kind, perRow = "update", 2
			case replication.DELETE_ROWS_EVENTv2, replication.DELETE_ROWS_EVENTv1:
				kind = "delete"
			default:
				continue
			}
			rows := make([][]any, 0, len(e.Rows))
			for _, r := range e.Rows {
				vals := make([]any, len(r))
				for i, v := range r {
					vals[i] = value(v)
				}
				rows = append(rows, vals)
			}
			_ = out.Encode(map[string]any{
				"rows":    kind,
				"schema":  string(e.Table.Schema),
				"table":   string(e.Table.Table),
				"columns": e.Table.ColumnNameString(),
				"values":  rows,
			})
			seen += len(e.Rows) / perRow
		}
	}
	_ = out.Encode(map[string]any{"done": true, "rows": seen})
}
