package pane

import (
	"strings"

	"github.com/crawlconsole/crawlconsole/themes"
)

// LineAt is line i of a side-by-side column, or blanks below its end.
func LineAt(lines []string, i, width int) string {
	if i < len(lines) {
		return lines[i]
	}
	return Spaces(width)
}

// Figure is one "label value" pair of a figures line.
type Figure struct {
	Label, Value string
	Bad          bool // non-zero and worth the eye (styled like the header's errors)
}

// Render is the figure styled: its label, a space, its value (marked when Bad).
func (f Figure) Render(st *themes.Styles) string {
	value := st.Value
	if f.Bad {
		value = st.Bad
	}
	return st.Label.Render(f.Label) + " " + value.Render(f.Value)
}

// FigureLine renders a titled line of figures, as many as fit in width, in the
// order given (most telling first).
func FigureLine(st *themes.Styles, width int, title string, figs []Figure) string {
	const titleW = 12
	var b strings.Builder
	b.WriteString("  ")
	b.WriteString(st.ColHeader.Render(Fit(title, titleW)))
	used := 2 + titleW
	for i, f := range figs {
		w := CellWidth(f.Label) + 1 + CellWidth(f.Value)
		if i > 0 {
			w += 2
		}
		if used+w > width {
			break
		}
		if i > 0 {
			b.WriteString("  ")
		}
		b.WriteString(f.Render(st))
		used += w
	}
	b.WriteString(Spaces(width - used))
	return b.String()
}

// Dash is s, or "-" for an empty cell.
func Dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
