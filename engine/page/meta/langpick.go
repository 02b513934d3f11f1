package meta

import (
	"strings"
)

// Which language a page is in: the script statistics and function words of its
// text (lang.go counts them) weighed against what its markup declares.

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
		if c.wordsOf("uk") > c.wordsOf("ru") {
			return "uk"
		}
		return "ru"
	case c.latin > half:
		best, n, total := "", 0, 0
		for lang, k := range c.words {
			total += k
			if k > n {
				best, n = wordLangs[lang], k
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
func (m *Raw) language(ld ldFacts) Field {
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
			scriptOf(text) == "latn" && wordLang(lang) >= 0 && m.scripts.wordsOf(text) >= 3*m.scripts.wordsOf(lang)+3) {
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
