package store

import (
	"context"
	"database/sql"
	"fmt"
	"io"

	"github.com/crawlconsole/crawlconsole/store/internal/upgrade"
)

// rebuilds are the migrations that copy a table, by version. The update hook
// counts their rows as SQLite writes them (a cgo callback a row: a second or so a
// million rows, against minutes for the step).
var rebuilds = map[int]upgrade.Rebuild{
	15: {
		What:   "moving the pages into a table where each URL's row finds its page by id",
		Unit:   "pages",
		Total:  `SELECT COALESCE(MAX(id), 0) FROM pages`,
		CopyTo: "pages_by_row",
		Link:   "urls",
		Linked: "URLs pointed at their page",
	},
	17: {
		What:  "indexing the exchanges stored so far by their URL's text, apart from the new ones",
		Unit:  "exchanges",
		Total: `SELECT COALESCE(MAX(id), 0) FROM captures`,
	},
	18: {
		What:   "moving the pages' revisit states into a table keyed by their URL's row",
		Unit:   "revisit states",
		Total:  `SELECT COUNT(*) FROM revisit`,
		CopyTo: "revisit_by_seq",
	},
}

// startReport begins reporting migration m on conn when it rebuilds a table (see
// upgrade.Start); nil when it does not, or the table is small.
func startReport(ctx context.Context, conn *sql.Conn, w io.Writer, dbPath string, m migration) *upgrade.Report {
	rb, ok := rebuilds[m.version]
	if !ok {
		return nil
	}
	return upgrade.Start(ctx, conn, w, fmt.Sprintf("store: upgrading %s to schema %d", dbPath, m.version), rb)
}
