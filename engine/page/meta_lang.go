package page

import (
	"strings"
	"unicode"
)

// The page's language: what its markup declares (<html lang>, Content-Language,
// og:locale, JSON-LD inLanguage), checked against the script of its main text; with
// no declaration, or one the text contradicts, the text's script decides, and for
// Latin and Cyrillic text its commonest function words. A site template that says
// lang="en" on every page in every language is the usual case this catches.

// scriptCounts are the letters of a text by script, and its function words by
// language.
type scriptCounts struct {
	letters                                        int
	latin, cyrillic, greek, arabic, hebrew, hangul int
	han, kana, thai, devanagari                    int
	words                                          map[string]int // language → function words seen
}

// knownWords are the languages functionWords can tell apart.
var knownWords = map[string]bool{"en": true, "de": true, "fr": true, "es": true, "it": true, "pt": true, "nl": true, "ru": true, "uk": true}

// functionWords are frequent short words of languages written in Latin or Cyrillic
// letters, each only in the list of one language.
var functionWords = map[string]string{}

func init() {
	for lang, list := range map[string]string{
		"en": "the and of to in is that for with was on are as this by be from have it has",
		"de": "der die das und ist nicht ein eine mit den dem auf für sich auch des im wird werden",
		"fr": "le la les et des du est une pour pas dans sur qui au avec sont ce ces",
		"es": "el los las y del es por una con para como más pero sus fue está son",
		"it": "il di che è della per sono gli una nel alla anche non più dei delle",
		"pt": "o os da do das dos não uma com para mais foi são pelo pela também",
		"nl": "het een van en niet dat zijn op te voor met ook maar bij wordt",
		"ru": "и в не на что с по это как из но он она они был для",
		"uk": "і та що не на це як від але він вона вони був для із",
	} {
		for _, w := range strings.Fields(list) {
			if _, dup := functionWords[w]; dup {
				functionWords[w] = "" // shared: tells nothing
				continue
			}
			functionWords[w] = lang
		}
	}
}

// countScripts counts a text's letters by script and its function words by language.
func countScripts(s string) scriptCounts {
	c := scriptCounts{words: map[string]int{}}
	word := 0
	nwords := 0
	for i, r := range s {
		if unicode.IsLetter(r) {
			c.letters++
			switch {
			case r < 0x250:
				c.latin++
			case unicode.Is(unicode.Cyrillic, r):
				c.cyrillic++
			case unicode.Is(unicode.Greek, r):
				c.greek++
			case unicode.Is(unicode.Arabic, r):
				c.arabic++
			case unicode.Is(unicode.Hebrew, r):
				c.hebrew++
			case unicode.Is(unicode.Hangul, r):
				c.hangul++
			case unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r):
				c.kana++
			case unicode.Is(unicode.Han, r):
				c.han++
			case unicode.Is(unicode.Thai, r):
				c.thai++
			case unicode.Is(unicode.Devanagari, r):
				c.devanagari++
			}
			continue
		}
		if i > word && nwords < 4000 {
			if lang := functionWords[strings.ToLower(s[word:i])]; lang != "" {
				c.words[lang]++
			}
			nwords++
		}
		word = i + len(string(r))
	}
	if word < len(s) {
		if lang := functionWords[strings.ToLower(s[word:])]; lang != "" {
			c.words[lang]++
		}
	}
	return c
}

// minLangLetters is the text below which the script statistics say nothing.
const minLangLetters = 40

// fromText is the language the text's script and words say, "" when they cannot
// tell (too little text, or a Latin text with no known function words).
func (c scriptCounts) fromText() string {
	if c.letters < minLangLetters {
		return ""
	}
	half := c.letters / 2
	switch {
	case c.kana*10 > c.letters && c.kana+c.han > half:
		return "ja"
	case c.hangul > half:
		return "ko"
	case c.han > half:
		return "zh"
	case c.arabic > half:
		return "ar"
	case c.hebrew > half:
		return "he"
	case c.greek > half:
		return "el"
	case c.thai > half:
		return "th"
	case c.devanagari > half:
		return "hi"
	case c.cyrillic > half:
		if c.words["uk"] > c.words["ru"] {
			return "uk"
		}
		return "ru"
	case c.latin > half:
		best, n, total := "", 0, 0
		for lang, k := range c.words {
			total += k
			if k > n {
				best, n = lang, k
			}
		}
		if n >= 3 && n*2 > total {
			return best
		}
	}
	return ""
}

// script is the script family a language is written in, for checking a declared
// language against the text ("" for languages this does not know).
func scriptOf(lang string) string {
	switch lang {
	case "ja":
		return "ja"
	case "ko":
		return "ko"
	case "zh":
		return "zh"
	case "ar", "fa", "ur":
		return "ar"
	case "he", "yi":
		return "he"
	case "el":
		return "el"
	case "th":
		return "th"
	case "hi", "mr", "ne":
		return "hi"
	case "ru", "uk", "bg", "sr", "mk", "be", "kk":
		return "cyrl"
	}
	if len(lang) == 2 || len(lang) == 3 {
		return "latn"
	}
	return ""
}

// language is the page's language (see the top of this file).
func (m *metaRaw) language(ld ldFacts) Field {
	text := m.scripts.fromText()
	declared := []Field{{m.htmlLang, "lang attribute"}}
	if v, k := m.metaValue(langKeys, nil); v != "" {
		declared = append(declared, Field{v, Source("meta " + k)})
	}
	declared = append(declared, Field{ld.lang, "json-ld inLanguage"})
	for _, d := range declared {
		lang := primaryTag(d.Value)
		if lang == "" {
			continue
		}
		if text != "" && text != lang && (scriptOf(text) != scriptOf(lang) ||
			scriptOf(text) == "latn" && knownWords[lang] && m.scripts.words[text] >= 3*m.scripts.words[lang]+3) {
			continue // the template's language, not the text's
		}
		return Field{lang, d.From}
	}
	if text != "" {
		return Field{text, "script statistics"}
	}
	return Field{}
}

// primaryTag is a language tag's primary subtag, lower case ("en-GB", "de_AT" → "en",
// "de"); "" when it is no language code.
func primaryTag(tag string) string {
	tag = strings.TrimSpace(tag)
	if i := strings.IndexAny(tag, "-_,; "); i >= 0 {
		tag = tag[:i]
	}
	tag = strings.ToLower(tag)
	if len(tag) < 2 || len(tag) > 3 {
		return ""
	}
	for _, r := range tag {
		if r < 'a' || r > 'z' {
			return ""
		}
	}
	return tag
}
