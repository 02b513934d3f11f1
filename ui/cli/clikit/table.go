package clikit

import (
	"io"
	"strings"

	"github.com/mattn/go-runewidth"
)

// Table is a text table whose columns line up on a terminal: each cell is padded to
// its column's widest cell as a terminal shows it (runewidth: a CJK character takes
// two columns), two spaces apart. text/tabwriter counts runes, so a site or host
// named in CJK pushed the rest of its row out of line by one column per character.
type Table struct {
	rows [][]string
}

// Row adds a row of cells.
func (t *Table) Row(cells ...string) { t.rows = append(t.rows, cells) }

// Write writes the table to w: every row's cells padded to the widest of their
// column, the last cell of a row unpadded.
func (t *Table) Write(w io.Writer) error {
	var widths []int
	for _, r := range t.rows {
		for i, c := range r {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], runewidth.StringWidth(c))
		}
	}
	var b strings.Builder
	for _, r := range t.rows {
		for i, c := range r {
			b.WriteString(c)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-runewidth.StringWidth(c)+2))
			}
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}
