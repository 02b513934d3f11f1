package page

import (
	"golang.org/x/net/html/atom"

	"github.com/crawlconsole/crawlconsole/engine/page/internal/chrome"
)

// Readability's candidate scoring (Arc90; Mozilla's Readability.js: initializeNode,
// getClassWeight, the top-candidates' common ancestor, the sibling join), over the
// light tree of dom.go. article.go decides what is chrome before and after it.

// initialScore is Readability's score of an element by its tag.
func initialScore(tag atom.Atom) float64 {
	switch tag {
	case atom.Div, atom.Article, atom.Main, atom.Section:
		return 5
	case atom.Pre, atom.Td, atom.Blockquote:
		return 3
	case atom.Address, atom.Ol, atom.Ul, atom.Dl, atom.Dd, atom.Dt, atom.Li, atom.Form:
		return -3
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Th:
		return -5
	}
	return 0
}

// topCandidates and minAltCandidates are Readability's DEFAULT_N_TOP_CANDIDATES and
// MINIMUM_TOPCANDIDATES.
const (
	topCandidates    = 5
	minAltCandidates = 3
)

// isAncestor reports whether a is el or one of its ancestors.
func (d *doc) isAncestor(a, el int32) bool {
	for ; el >= a; el = d.elems[el].parent {
		if el == a {
			return true
		}
	}
	return false
}

// scoreCandidates runs Readability's scoring and returns the top candidate, or -1
// when no paragraph qualifies.
func (d *doc) scoreCandidates(paras []paragraph, removed []bool) int32 {
	for _, p := range paras {
		if p.letters < minParagraphLetters || removed[p.block] {
			continue
		}
		score := 1 + float64(p.commas) + min(float64(p.letters/100), 3)
		// The paragraph's element scores as a paragraph would; its ancestors get
		// the share Readability gives parents (1), grandparents (1/2) and above
		// (1/(3·level)).
		// Readability turns a <div> that holds text into a <p>: the block always
		// scores its parent first.
		a := d.elems[p.block].parent
		for level := 0; level < 5 && a > 0; level++ {
			e := &d.elems[a]
			if !e.scored {
				e.scored = true
				e.score = initialScore(e.tag) + chrome.ClassWeight(e.names)
			}
			switch level {
			case 0:
				e.score += score
			case 1:
				e.score += score / 2
			default:
				e.score += score / float64(level*3)
			}
			a = e.parent
		}
	}
	var cands [topCandidates]int32 // best first
	n := 0
	for i := range d.elems {
		e := &d.elems[i]
		if !e.scored {
			continue
		}
		if e.letters > 0 {
			e.score *= 1 - float64(e.linkLetters)/float64(e.letters)
		}
		for k := 0; k < topCandidates; k++ {
			if k == n || e.score > d.elems[cands[k]].score {
				copy(cands[k+1:], cands[k:topCandidates-1])
				cands[k] = int32(i)
				n = min(n+1, topCandidates)
				break
			}
		}
	}
	if n == 0 {
		return -1
	}
	top, best := cands[0], d.elems[cands[0]].score
	// Readability: when several near-best candidates share an ancestor, the article
	// was split over them (a page of cards), and the ancestor is the article.
	var alts []int32
	for _, c := range cands[1:n] {
		if d.elems[c].score >= 0.75*best {
			alts = append(alts, c)
		}
	}
	if len(alts) >= minAltCandidates {
		for a := d.elems[top].parent; a > 0; a = d.elems[a].parent {
			shared := 0
			for _, c := range alts {
				if d.isAncestor(a, c) {
					shared++
				}
			}
			if shared >= minAltCandidates {
				top = a
				break
			}
		}
		if !d.elems[top].scored {
			d.elems[top].scored = true
			d.elems[top].score = initialScore(d.elems[top].tag) + chrome.ClassWeight(d.elems[top].names)
		}
		best = d.elems[top].score
	}
	// Readability: a parent that scores better than the candidate holds more of the
	// article (the text was split over sibling containers).
	last, threshold := best, best/3
	for a := d.elems[top].parent; a > 0; a = d.elems[a].parent {
		e := &d.elems[a]
		if !e.scored {
			continue
		}
		if e.score < threshold {
			break
		}
		if e.score > last {
			top = a
			break
		}
		last = e.score
	}
	return top
}

// articleElems returns the article's top element and the siblings Readability joins
// to it: siblings that score at least a fifth of it, and link-poor paragraphs.
func (d *doc) articleElems(top int32) []int32 {
	out := []int32{top}
	parent := d.elems[top].parent
	if parent <= 0 {
		return out
	}
	topE := d.elems[top]
	threshold := max(10, topE.score*0.2)
	for i := int32(parent + 1); int(i) < len(d.elems); i++ {
		e := &d.elems[i]
		if e.runStart >= d.elems[parent].runEnd && e.runEnd > e.runStart {
			break
		}
		if e.parent != parent || i == top {
			continue
		}
		bonus := 0.0
		if e.names != "" && e.names == topE.names {
			bonus = topE.score * 0.2
		}
		ld := 0.0
		if e.letters > 0 {
			ld = float64(e.linkLetters) / float64(e.letters)
		}
		switch {
		case e.scored && e.score+bonus >= threshold:
			out = append(out, i)
		case (e.tag == atom.P || e.tag == atom.Div && d.textOnly(i)) && e.letters > 80 && ld < 0.25:
			out = append(out, i)
		case e.tag == atom.P && e.letters > 0 && e.letters <= 80 && ld == 0:
			out = append(out, i)
		}
	}
	return out
}

// textOnly reports a block whose text is all its own, no block inside it: the <div>
// Readability reads as a <p> (a lead paragraph written as <div class="lead">).
func (d *doc) textOnly(el int32) bool {
	e := &d.elems[el]
	if e.runStart == e.runEnd {
		return false
	}
	for _, r := range d.runs[e.runStart:e.runEnd] {
		if r.block != el {
			return false
		}
	}
	return true
}

// within reports whether element el lies in one of the subtrees roots. Ancestors
// come before their descendants in document order, so the walk up stops below the
// first root.
func (d *doc) within(el int32, roots []int32) bool {
	lowest := roots[0]
	for _, r := range roots[1:] {
		lowest = min(lowest, r)
	}
	for a := el; a >= lowest; a = d.elems[a].parent {
		for _, r := range roots {
			if a == r {
				return true
			}
		}
	}
	return false
}
