package sandbox

import (
	"embed"
	"html"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The text of the sandbox web comes from small embedded corpora: English and Russian
// news sentences, Chinese sentences taken from the five patents the product is built on
// (cleaned of OCR noise), and per language a few "story" sentences with slots for
// people, organisations and places. The binary never reads the seeds at run time.
//
// Why stories: two samples of one small corpus look alike to SimHash, so a content
// change would hide in the noise. Each content version therefore gets its own cast —
// made-up names of people, organisations and places, drawn from a huge space and
// repeated through the text like a news story repeats its protagonists — which makes a
// real change move the fingerprint the way a new article does (M2).

//go:embed corpus/en.txt corpus/ru.txt corpus/zh.txt corpus/zh_news.txt
var corpusFS embed.FS

type slot uint8

const (
	slotText slot = iota
	slotNumber
	slotKeyword
	slotPerson
	slotOrg
	slotPlace
)

// segment is a piece of a sentence template: literal (HTML-escaped) text or a slot.
type segment struct {
	kind slot
	text []byte
}

type sentence []segment

// corpus is the parsed text of one language.
type corpus struct {
	lang    lang
	plain   []sentence // general sentences
	stories []sentence // sentences naming the cast
}

var corpora = [3]*corpus{
	langEN: loadCorpus(langEN, "corpus/en.txt"),
	langZH: loadCorpus(langZH, "corpus/zh.txt", "corpus/zh_news.txt"),
	langRU: loadCorpus(langRU, "corpus/ru.txt"),
}

func loadCorpus(l lang, names ...string) *corpus {
	c := &corpus{lang: l}
	for _, name := range names {
		data, err := corpusFS.ReadFile(name)
		if err != nil {
			panic(err) // embedded: cannot happen
		}
		for _, line := range strings.Split(string(data), "\n") {
			if line = strings.TrimSpace(line); line == "" {
				continue
			}
			s, story := parseSentence(line)
			if story {
				c.stories = append(c.stories, s)
			} else {
				c.plain = append(c.plain, s)
			}
		}
	}
	return c
}

// parseSentence splits a template at its {slots}; story tells whether it names the cast.
func parseSentence(line string) (sentence, bool) {
	var s sentence
	story := false
	for line != "" {
		i := strings.IndexByte(line, '{')
		j := strings.IndexByte(line, '}')
		if i < 0 || j < i {
			s = append(s, segment{text: []byte(html.EscapeString(line))})
			break
		}
		if i > 0 {
			s = append(s, segment{text: []byte(html.EscapeString(line[:i]))})
		}
		switch line[i+1 : j] {
		case "n":
			s = append(s, segment{kind: slotNumber})
		case "kw":
			s = append(s, segment{kind: slotKeyword})
		case "person":
			s, story = append(s, segment{kind: slotPerson}), true
		case "org":
			s, story = append(s, segment{kind: slotOrg}), true
		case "place", "city":
			s, story = append(s, segment{kind: slotPlace}), true
		default:
			s = append(s, segment{text: []byte(html.EscapeString(line[i : j+1]))})
		}
		line = line[j+1:]
	}
	return s, story
}

// appendSentence writes one sentence from pool, filling its slots; cast seeds the names.
func (c *corpus) appendSentence(buf []byte, pool []sentence, rng *prng, keywords []string, cast uint64) []byte {
	for _, seg := range pool[rng.intn(len(pool))] {
		switch seg.kind {
		case slotText:
			buf = append(buf, seg.text...)
		case slotNumber:
			buf = strconv.AppendInt(buf, int64(rng.between(2, 120)), 10)
		case slotKeyword:
			buf = append(buf, keywords[rng.intn(len(keywords))]...)
		case slotPerson:
			buf = appendPerson(buf, c.lang, mix(cast, 1, uint64(rng.intn(3))))
		case slotOrg:
			buf = appendOrg(buf, c.lang, mix(cast, 2, uint64(rng.intn(2))))
		case slotPlace:
			buf = appendPlace(buf, c.lang, mix(cast, 3, uint64(rng.intn(2))))
		}
	}
	return buf
}

// appendParagraph writes a paragraph of general and story sentences about one cast.
func (c *corpus) appendParagraph(buf []byte, rng *prng, keywords []string, cast uint64) []byte {
	buf = append(buf, "<p>"...)
	n := rng.between(4, 6)
	for i := 0; i < n; i++ {
		if i > 0 && c.lang != langZH {
			buf = append(buf, ' ')
		}
		pool := c.plain
		if i%2 == 1 || (i == 0 && rng.intn(2) == 0) {
			pool = c.stories
		}
		buf = c.appendSentence(buf, pool, rng, keywords, cast)
	}
	return append(buf, "</p>\n"...)
}

// appendTitle writes a short headline: a keyword and the start of a sentence.
func (c *corpus) appendTitle(buf []byte, rng *prng, keywords []string, cast uint64) []byte {
	kw := keywords[rng.intn(len(keywords))]
	if c.lang == langZH {
		buf = append(buf, "「"...)
		buf = append(buf, kw...)
		buf = append(buf, "」"...)
		start := len(buf)
		buf = c.appendSentence(buf, c.plain, rng, keywords, cast)
		for i, n := start, 0; i < len(buf); n++ {
			if n == 18 {
				return buf[:i]
			}
			_, size := utf8.DecodeRune(buf[i:])
			i += size
		}
		return buf
	}
	start := len(buf)
	buf = append(buf, kw...)
	buf = capitalize(buf, start)
	buf = append(buf, ": "...)
	start = len(buf)
	buf = c.appendSentence(buf, c.plain, rng, keywords, cast)
	for i, words := start, 0; i < len(buf); i++ {
		if buf[i] == ' ' {
			if words++; words == 7 {
				buf = buf[:i]
				break
			}
		}
	}
	for len(buf) > start && (buf[len(buf)-1] == '.' || buf[len(buf)-1] == ',' || buf[len(buf)-1] == ';') {
		buf = buf[:len(buf)-1]
	}
	return buf
}
