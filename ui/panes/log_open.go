package panes

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/crawlconsole/crawlconsole/ui/pane"
)

// openView shows the selected event whole: each of its fields on a line, then its
// message wrapped to the pane's width. ↑/↓ go on to the next event, still open.
func (p *logPane) openView() string {
	st := p.c.Styles
	e := &p.events[p.rows[p.list.Cursor]]
	var b strings.Builder
	title := "  EVENT " + strconv.Itoa(p.list.Cursor+1) + " of " + strconv.Itoa(len(p.rows))
	keys := "enter or esc closes · ↑/↓ the previous/next event "
	b.WriteString(st.ColHeader.Render(pane.Fit(title, p.width-pane.CellWidth(keys)) + keys))
	host := e.Host
	if host == "" {
		host = "-"
	}
	field := func(label, value string) {
		b.WriteString("\n")
		b.WriteString(pane.Fit("  "+st.Label.Render(pane.Fit(label, 8))+st.Value.Render(value), p.width))
	}
	field("time", e.At.Format("2006-01-02 15:04:05.000 MST"))
	level := st.Level(int(e.Level))
	b.WriteString("\n")
	b.WriteString(pane.Fit("  "+st.Label.Render(pane.Fit("level", 8))+level.Render(e.Level.String()), p.width))
	field("lane", laneLabel(e.Lane))
	field("host", host)
	field("event", "#"+strconv.FormatUint(e.Seq, 10))
	b.WriteString("\n")
	b.WriteString(pane.Fit("  "+st.Label.Render("message"), p.width))
	room := max(p.height-7, 1) // the lines above, and the message's own
	textW := max(p.width-4, 8)
	msg := e.Msg
	// A message is the engine's, but may quote what a site sent: wrap no more of it
	// than the pane can show.
	if limit := room * textW * 4; len(msg) > limit {
		msg = msg[:limit]
	}
	// Words wrap at spaces; a word longer than a line (a URL) is cut where the line ends.
	lines := strings.Split(ansi.Hardwrap(ansi.Wordwrap(msg, textW, ""), textW, false), "\n")
	if len(lines) > room {
		lines = lines[:room]
		lines[room-1] = pane.Fit(lines[room-1]+" …", textW)
	}
	for _, l := range lines {
		b.WriteString("\n    ")
		b.WriteString(pane.Fit(strings.TrimRight(l, " "), textW))
	}
	return b.String()
}
