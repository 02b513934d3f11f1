package sandbox

import (
	"embed"
	"html"
	"strconv"
	"strings"
)

// The text of the sandbox web comes from small embedded corpora: English and Russian
// news sentences with slots for numbers, keywords and places, and Chinese sentences
// taken from the five patents the product is built on (cleaned of OCR noise). The binary
// never reads the seeds at run time.

//go:embed corpus/en.txt corpus/ru.txt corpus/zh.txt
var corpusFS embed.FS

type slot uint8

const (
	slotText slot = iota
	slotNumber
	slotKeyword
	slotCity
)

// segment is a piece of a sentence template: literal (HTML-escaped) text or a slot.
type segment struct {
	kind slot
	text []byte
}

type sentence []segment

// corpus is the parsed text of one language.
type corpus struct {
	sentences []sentence
	cities    [][]byte
	kwBefore  []byte // zh: wraps a keyword into a sentence of its own
	kwAfter   []byte
}

var corpora = [3]*corpus{
	langEN: loadCorpus("corpus/en.txt", []string{"Port Ellery", "Westbrook", "Marlow Bay",
		"Ashford", "Kingsbridge", "Redcliff", "Fairhaven", "Northgate", "Stonemoor", "Larkspur"}),
	langZH: loadCorpus("corpus/zh.txt", nil),
	langRU: loadCorpus("corpus/ru.txt", []string{"Сочи", "Туапсе", "Осло", "Баку",
		"Тбилиси", "Монако", "Палермо", "Сан-Ремо"}),
}

func init() {
	corpora[langZH].kwBefore = []byte("關于「")
	corpora[langZH].kwAfter = []byte("」的討論仍在繼續，相關部門表示將進一步公開信息。")
}

func loadCorpus(name string, cities []string) *corpus {
	data, err := corpusFS.ReadFile(name)
	if err != nil {
		panic(err) // embedded: cannot happen
	}
	c := &corpus{}
	for _, city := range cities {
		c.cities = append(c.cities, []byte(html.EscapeString(city)))
	}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		var s sentence
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
			case "city":
				s = append(s, segment{kind: slotCity})
			default:
				s = append(s, segment{text: []byte(html.EscapeString(line[i : j+1]))})
			}
			line = line[j+1:]
		}
		c.sentences = append(c.sentences, s)
	}
	return c
}

// appendSentence writes one random sentence, filling its slots.
func (c *corpus) appendSentence(buf []byte, rng *prng, keywords []string) []byte {
	s := c.sentences[rng.intn(len(c.sentences))]
	for _, seg := range s {
		switch seg.kind {
		case slotText:
			buf = append(buf, seg.text...)
		case slotNumber:
			buf = strconv.AppendInt(buf, int64(rng.between(2, 120)), 10)
		case slotKeyword:
			buf = append(buf, keywords[rng.intn(len(keywords))]...)
		case slotCity:
			if len(c.cities) > 0 {
				buf = append(buf, c.cities[rng.intn(len(c.cities))]...)
			}
		}
	}
	return buf
}

// appendParagraph writes a paragraph of 3 to 5 sentences; Chinese paragraphs also name
// a keyword, since the patent sentences have no slots.
func (c *corpus) appendParagraph(buf []byte, rng *prng, keywords []string, l lang) []byte {
	buf = append(buf, "<p>"...)
	n := rng.between(3, 5)
	for i := 0; i < n; i++ {
		if i > 0 && l != langZH {
			buf = append(buf, ' ')
		}
		buf = c.appendSentence(buf, rng, keywords)
	}
	if c.kwBefore != nil && rng.intn(2) == 0 {
		buf = append(buf, c.kwBefore...)
		buf = append(buf, keywords[rng.intn(len(keywords))]...)
		buf = append(buf, c.kwAfter...)
	}
	return append(buf, "</p>\n"...)
}

// appendTitle writes a short headline.
func (c *corpus) appendTitle(buf []byte, rng *prng, keywords []string, l lang) []byte {
	kw := keywords[rng.intn(len(keywords))]
	start := len(buf)
	buf = c.appendSentence(buf, rng, keywords)
	text := string(buf[start:])
	buf = buf[:start]
	if l == langZH {
		r := []rune(text)
		if len(r) > 18 {
			r = r[:18]
		}
		buf = append(buf, "「"...)
		buf = append(buf, kw...)
		buf = append(buf, "」"...)
		return append(buf, string(r)...)
	}
	buf = append(buf, strings.ToUpper(kw[:1])...)
	buf = append(buf, kw[1:]...)
	buf = append(buf, ": "...)
	words := strings.Fields(text)
	if len(words) > 7 {
		words = words[:7]
	}
	return append(buf, strings.TrimRight(strings.Join(words, " "), ".,;")...)
}
