package main

import (
	"testing"
)

// Chinese and Japanese text is scored a character a token (no spaces to split
// words at), other scripts by lower-cased word.
func TestRealwebTokens(t *testing.T) {
	got := bagTokens("新华社北京 Новости дня, News 2024")
	for tok, n := range map[string]int{"新": 1, "华": 1, "北": 1, "новости": 1, "дня": 1, "news": 1, "2024": 1} {
		if got[tok] != n {
			t.Errorf("token %q counted %d, want %d (all: %v)", tok, got[tok], n, got)
		}
	}
	if f := bagF1("子どもへの体罰", "子どもへの体罰を禁止"); f <= 0.8 || f >= 1 {
		t.Errorf("F1 %.3f of a text within a longer one: want between 0.8 and 1", f)
	}
}

// On the corpus's Chinese, Japanese and Russian pages the page model names the
// language the page is in, and reads each labelled headline (as the label or with
// the site's name around it) on the Chinese ones.
func TestRealwebCJKRussian(t *testing.T) {
	pages, err := loadRealweb("testdata/realweb")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i := range pages {
		p := &pages[i]
		if p.Lang != "zh" && p.Lang != "ja" && p.Lang != "ru" {
			continue
		}
		n++
		a := oursRealweb(p)
		if primaryLang(a.Lang) != p.Lang {
			t.Errorf("%s: language %q, want %s", p.ID, a.Lang, p.Lang)
		}
		if p.Lang == "zh" && p.Title != "" && !nearHeadline(a.Headline, p.Title) {
			t.Errorf("%s: headline %q, label %q", p.ID, a.Headline, p.Title)
		}
	}
	if n < 30 {
		t.Fatalf("%d Chinese, Japanese and Russian pages, want at least 30", n)
	}
}
