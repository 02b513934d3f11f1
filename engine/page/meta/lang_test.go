package meta

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// refCountScripts is countScripts as first written: every word of up to
// maxFunctionRunes runes lower-cased with unicode.ToLower and looked up in
// functionWords. countScripts must count the same for any text.
func refCountScripts(title, body string) scriptCounts {
	var c scriptCounts
	nwords := 0
	refCount(&c, title, &nwords, false)
	refCount(&c, body, &nwords, true)
	return c
}

func refCount(c *scriptCounts, s string, nwords *int, last bool) {
	var scripts [scDevanagari + 1]int
	word := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if k := letterScript(r); k != scNone {
			scripts[k]++
			i += size
			continue
		}
		if i > word && *nwords < 4000 {
			refWord(c, s[word:i])
			*nwords++
		}
		word = i + utf8.RuneLen(r)
		i += size
	}
	if word < len(s) && (last || *nwords < 4000) {
		refWord(c, s[word:])
		*nwords++
	}
	for k, n := range scripts {
		if k != int(scNone) {
			c.letters += n
			c.add(uint8(k), n)
		}
	}
}

func refWord(c *scriptCounts, w string) {
	if utf8.RuneCountInString(w) > maxFunctionRunes {
		return
	}
	var b []byte
	for _, r := range w {
		b = utf8.AppendRune(b, unicode.ToLower(r))
	}
	if lang, ok := functionWords[string(b)]; ok && lang >= 0 {
		c.words[lang]++
	}
}

// scriptTexts are texts in the scripts and languages countScripts tells apart, and
// the pinned pages' bodies (markup and all: any text will do).
func scriptTexts(t testing.TB) []string {
	texts := []string{
		"", "a", "The cat and THE dog; of the people, for the people.",
		"Der Hund und die Katze FÜR sich. Für, für, FÜR! ẞ İst",
		"Le chat et la souris dans LA maison. Très été, ÉTÉ",
		"Он сказал, что это ВСЁ. Она и они были для нас. І та що не на це як від але він",
		"Ελληνικά κείμενα εδώ", "日本語のテキストです。カタカナ", "中文文本在这里", "한국어 텍스트",
		"العربية نص هنا", "עברית כאן", "ภาษาไทย", "हिन्दी पाठ", "\xff\xfeand\xc3 the\xe2\x82 of",
		"KELVIN \u212A the", "o O ó Ó é è È À",
		strings.Repeat("the and of ", 3000) + "The",
	}
	f, err := os.Open(filepath.Join("..", "testdata", "pins", "sandbox.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(z)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var p struct{ Body []byte }
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(p.Body))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return texts
}

func TestCountScriptsSameAsReference(t *testing.T) {
	texts := scriptTexts(t)
	if len(texts) < 100 {
		t.Fatalf("%d texts: the pinned pages are missing", len(texts))
	}
	for i, s := range texts {
		title := texts[(i+1)%len(texts)]
		if len(title) > 200 {
			title = title[:200]
		}
		if got, want := countScripts(title, s), refCountScripts(title, s); got != want {
			t.Errorf("text %d (%.40q): countScripts = %+v, want %+v", i, s, got, want)
		}
	}
	if c := countScripts("", "Der Hund und die Katze für sich, für alle"); c.wordsOf("de") != 6 {
		t.Errorf("German function words: %d, want 6", c.wordsOf("de"))
	}
}

func FuzzCountScripts(f *testing.F) {
	for _, s := range scriptTexts(f)[:20] {
		f.Add("Title", s)
	}
	f.Fuzz(func(t *testing.T, title, body string) {
		if got, want := countScripts(title, body), refCountScripts(title, body); got != want {
			t.Errorf("countScripts(%q, %q) = %+v, want %+v", title, body, got, want)
		}
	})
}
