package sandbox

// Made-up names for the cast of a story (see corpus.go): syllable-built surnames,
// organisations and places, so that each content version talks about people nobody
// else mentions. Every name is a pure function of its key.

var (
	enFirst   = []string{"Maren", "Tobias", "Ines", "Colm", "Priya", "Jonah", "Elif", "Rafael", "Greta", "Nuno", "Aisha", "Linus", "Odile", "Bram", "Keiko", "Dario"}
	enOnsets  = []string{"b", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "br", "dr", "kr", "st", "tr", "gr", "th", "w"}
	enVowels  = []string{"a", "e", "i", "o", "u", "ae", "ei", "ou", "y"}
	enCodas   = []string{"", "n", "r", "l", "s", "th", "nd", "rk", "lm", "v", "ck", "sk"}
	enOrgs    = []string{"Foundation", "Institute", "Transit Authority", "Water Board", "Group", "Trust", "Council", "Cooperative", "Holdings", "Commission"}
	enPlaces  = []string{"by", "ford", "mouth", "wick", "ton", "field", "stead", "haven", "more"}
	ruFirst   = []string{"Анна", "Иван", "Ольга", "Пётр", "Мария", "Глеб", "Вера", "Олег", "Нина", "Лев", "Зоя", "Кирилл"}
	ruOnsets  = []string{"б", "в", "г", "д", "ж", "з", "к", "л", "м", "н", "п", "р", "с", "т", "ф", "х", "ч", "ш", "бр", "гр", "ст", "тр"}
	ruVowels  = []string{"а", "е", "и", "о", "у", "я", "ю"}
	ruCodas   = []string{"", "н", "р", "л", "с", "в", "к", "м"}
	ruSurname = []string{"ов", "ин", "ский", "енко", "ич"}
	ruOrgs    = []string{"фонд", "институт", "комитет", "концерн", "совет", "кооператив"}
	ruPlaces  = []string{"ск", "ово", "град", "поль", "инск"}
	zhFamily  = []string{"王", "李", "張", "劉", "陳", "楊", "黃", "趙", "吳", "周", "徐", "孫", "馬", "朱", "胡", "郭", "何", "高", "林", "羅"}
	zhGiven   = []string{"偉", "芳", "娜", "敏", "靜", "麗", "強", "磊", "軍", "洋", "勇", "艷", "傑", "娟", "濤", "明", "超", "秀", "霞", "平", "剛", "桂", "華", "建", "文", "輝", "玲", "斌", "宇", "浩"}
	zhSyll    = []string{"東", "南", "西", "北", "江", "河", "山", "海", "青", "白", "金", "永", "安", "平", "寧", "嘉", "興", "祥", "瑞", "豐", "新", "長", "天", "龍", "鳳", "雲", "星", "光", "華", "盛"}
	zhOrgs    = []string{"科技公司", "研究院", "委員會", "基金會", "集團", "協會", "管理局"}
	zhPlaces  = []string{"市", "縣", "鎮", "港", "灣"}
)

// appendWord writes a made-up word of 2 or 3 syllables, capitalised.
func appendWord(buf []byte, rng *prng, onsets, vowels, codas []string) []byte {
	start := len(buf)
	n := 2 + rng.intn(2)
	for i := 0; i < n; i++ {
		buf = append(buf, onsets[rng.intn(len(onsets))]...)
		buf = append(buf, vowels[rng.intn(len(vowels))]...)
		if i == n-1 || rng.intn(3) == 0 {
			buf = append(buf, codas[rng.intn(len(codas))]...)
		}
	}
	return capitalize(buf, start)
}

// capitalize upper-cases the letter at buf[start] (ASCII or Cyrillic).
func capitalize(buf []byte, start int) []byte {
	if start >= len(buf) {
		return buf
	}
	c := buf[start]
	switch {
	case c >= 'a' && c <= 'z':
		buf[start] = c - 'a' + 'A'
	case c == 0xd0 && start+1 < len(buf) && buf[start+1] >= 0xb0 && buf[start+1] <= 0xbf: // а..п
		buf[start+1] -= 0x20
	case c == 0xd1 && start+1 < len(buf) && buf[start+1] >= 0x80 && buf[start+1] <= 0x8f: // р..я
		buf[start], buf[start+1] = 0xd0, buf[start+1]+0x20
	}
	return buf
}

func appendPerson(buf []byte, l lang, key uint64) []byte {
	rng := newPRNG(key)
	switch l {
	case langZH:
		buf = append(buf, zhFamily[rng.intn(len(zhFamily))]...)
		for i := 1 + rng.intn(2); i > 0; i-- {
			buf = append(buf, zhGiven[rng.intn(len(zhGiven))]...)
		}
		return buf
	case langRU:
		buf = append(buf, ruFirst[rng.intn(len(ruFirst))]...)
		buf = append(buf, ' ')
		buf = appendWord(buf, &rng, ruOnsets, ruVowels, ruCodas)
		return append(buf, ruSurname[rng.intn(len(ruSurname))]...)
	}
	buf = append(buf, enFirst[rng.intn(len(enFirst))]...)
	buf = append(buf, ' ')
	return appendWord(buf, &rng, enOnsets, enVowels, enCodas)
}

func appendOrg(buf []byte, l lang, key uint64) []byte {
	rng := newPRNG(key)
	switch l {
	case langZH:
		buf = append(buf, zhSyll[rng.intn(len(zhSyll))]...)
		buf = append(buf, zhSyll[rng.intn(len(zhSyll))]...)
		return append(buf, zhOrgs[rng.intn(len(zhOrgs))]...)
	case langRU:
		buf = append(buf, ruOrgs[rng.intn(len(ruOrgs))]...)
		buf = append(buf, " «"...)
		buf = appendWord(buf, &rng, ruOnsets, ruVowels, ruCodas)
		return append(buf, "»"...)
	}
	buf = appendWord(buf, &rng, enOnsets, enVowels, enCodas)
	buf = append(buf, ' ')
	return append(buf, enOrgs[rng.intn(len(enOrgs))]...)
}

func appendPlace(buf []byte, l lang, key uint64) []byte {
	rng := newPRNG(key)
	switch l {
	case langZH:
		buf = append(buf, zhSyll[rng.intn(len(zhSyll))]...)
		buf = append(buf, zhSyll[rng.intn(len(zhSyll))]...)
		return append(buf, zhPlaces[rng.intn(len(zhPlaces))]...)
	case langRU:
		buf = appendWord(buf, &rng, ruOnsets, ruVowels, ruCodas)
		return append(buf, ruPlaces[rng.intn(len(ruPlaces))]...)
	}
	buf = appendWord(buf, &rng, enOnsets, enVowels, enCodas)
	return append(buf, enPlaces[rng.intn(len(enPlaces))]...)
}
