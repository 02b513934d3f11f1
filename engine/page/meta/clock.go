package meta

import "time"

// Times of day and zones after a date: the clock, its zone and its offset.

// clockAt reads a time of day at token j ("10:20", "T10:20:30.5Z", ", 9:05 pm EST",
// "um 10:20 Uhr", "10時20分", "+01:00"): hour, minute, second, nanoseconds, its zone
// (UTC when none is named), whether one was, and the token after it.
func (sc *dateScanner) clockAt(j int) (hh, mm, ss, ns int, loc *time.Location, hasZone bool, next int, ok bool) {
	loc = time.UTC
	k := j
	for n := 0; n < 2 && k < len(sc.toks); n++ {
		if sc.isNum(k, 1, 2) {
			break
		}
		tk := sc.toks[k]
		if tk.kind == tokMark && (tk.r == ',' || tk.r == '-' || tk.r == '|' || tk.r == '@' || tk.r == '·' || tk.r == '/' || tk.r == '–') {
			k++
			continue
		}
		var buf [100]byte
		switch sc.word(k, buf[:]) {
		case "t", "at", "um", "à", "a", "las", "alle", "om", "kl", "às", "в", "о", "o":
			k++
			continue
		}
		break
	}
	if !sc.isNum(k, 1, 2) {
		return
	}
	hh = sc.toks[k].num
	switch {
	case sc.isMark(k+1, ':') && sc.isNum(k+2, 2, 2):
		mm = sc.toks[k+2].num
		k += 3
		if sc.isMark(k, ':') && sc.isNum(k+1, 2, 2) {
			ss = sc.toks[k+1].num
			k += 2
			if (sc.isMark(k, '.') || sc.isMark(k, ',')) && sc.isNum(k+1, 1, 9) && !sc.toks[k+1].space {
				f := sc.toks[k+1]
				ns = f.num
				for d := f.ndig; d < 9; d++ {
					ns *= 10
				}
				k += 2
			}
		}
	case (sc.isMark(k+1, '時') || sc.isMark(k+1, '时') || sc.isMark(k+1, '시')) && sc.isNum(k+2, 1, 2):
		mm = sc.toks[k+2].num
		k += 3
		if sc.isMark(k, '分') || sc.isMark(k, '분') {
			k++
		}
	default:
		return
	}
	var buf [100]byte
	switch w := sc.word(k, buf[:]); w {
	case "am", "pm":
		if hh < 1 || hh > 12 {
			return
		}
		hh %= 12
		if w == "pm" {
			hh += 12
		}
		k++
	case "a", "p":
		if sc.isMark(k+1, '.') && (sc.wordIs(k+2, "m")) {
			if hh < 1 || hh > 12 {
				return
			}
			hh %= 12
			if w == "p" {
				hh += 12
			}
			k += 3
			if sc.isMark(k, '.') {
				k++
			}
		}
	case "uhr", "h":
		k++
	}
	if hh > 23 || mm > 59 || ss > 60 {
		return
	}
	if ss == 60 {
		ss = 59
	}
	loc, hasZone, k = sc.zoneAt(k)
	return hh, mm, ss, ns, loc, hasZone, k, true
}

// zoneAt reads a zone at token k: Z, +01:00, +0100, -05, GMT+2, UTC, or a common
// abbreviation (EST, CEST, JST, ...).
func (sc *dateScanner) zoneAt(k int) (*time.Location, bool, int) {
	var buf [100]byte
	w := sc.word(k, buf[:])
	if w == "z" && k < len(sc.toks) && !sc.toks[k].space {
		return time.UTC, true, k + 1
	}
	if w == "gmt" || w == "utc" {
		if loc, ok, next := sc.offsetAt(k + 1); ok {
			return loc, true, next
		}
		return time.UTC, true, k + 1
	}
	if off, ok := zoneAbbrevs[w]; ok {
		return time.FixedZone(sc.s[sc.toks[k].start:sc.toks[k].end], off), true, k + 1
	}
	if loc, ok, next := sc.offsetAt(k); ok {
		return loc, true, next
	}
	return time.UTC, false, k
}

// offsetAt reads a numeric offset at token k: +01:00, +0100, +01, −05:30.
func (sc *dateScanner) offsetAt(k int) (*time.Location, bool, int) {
	sign := 0
	switch {
	case sc.isMark(k, '+'):
		sign = 1
	case sc.isMark(k, '-') || sc.isMark(k, '−'):
		sign = -1
	default:
		return nil, false, k
	}
	if !sc.isNum(k+1, 1, 4) || sc.toks[k+1].space {
		return nil, false, k
	}
	n := sc.toks[k+1]
	var h, m int
	next := k + 2
	switch n.ndig {
	case 1, 2:
		h = n.num
		if sc.isMark(next, ':') && sc.isNum(next+1, 2, 2) {
			m = sc.toks[next+1].num
			next += 2
		}
	case 4:
		h, m = n.num/100, n.num%100
	default:
		return nil, false, k
	}
	if h > 14 || m > 59 {
		return nil, false, k
	}
	off := sign * (h*3600 + m*60)
	if off == 0 {
		return time.UTC, true, next
	}
	return time.FixedZone("", off), true, next
}

// daysIn is the number of days of a month.
func daysIn(y, m int) int {
	return time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// zoneAbbrevs are the zone abbreviations news pages print, as offsets in seconds.
var zoneAbbrevs = map[string]int{
	"est": -5 * 3600, "edt": -4 * 3600, "cst": -6 * 3600, "cdt": -5 * 3600, "mst": -7 * 3600,
	"mdt": -6 * 3600, "pst": -8 * 3600, "pdt": -7 * 3600, "akst": -9 * 3600, "hst": -10 * 3600,
	"bst": 3600, "cet": 3600, "cest": 2 * 3600, "mez": 3600, "mesz": 2 * 3600, "eet": 2 * 3600,
	"eest": 3 * 3600, "msk": 3 * 3600, "jst": 9 * 3600, "kst": 9 * 3600, "hkt": 8 * 3600,
	"sgt": 8 * 3600, "aest": 10 * 3600, "aedt": 11 * 3600, "nzst": 12 * 3600, "nzdt": 13 * 3600,
	"wib": 7 * 3600, "ist": 5*3600 + 1800,
}

// monthWords maps month names and their abbreviations, lower case, to months:
// English, German, French, Spanish, Italian, Portuguese, Dutch, Polish, Turkish,
// Russian and Ukrainian (nominative and genitive), and Arabic (the Egyptian and Gulf
// names and the Levantine ones, alef written with or without its hamza; the
// Levantine two-word months are in arabicMonthPairs). Where languages share a word
// they agree on its month.
var monthWords = func() map[string]int {
	m := map[string]int{}
	for _, names := range [][12]string{
		{"january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"},
		{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"},
		{"januar", "februar", "märz", "april", "mai", "juni", "juli", "august", "september", "oktober", "november", "dezember"},
		{"jänner", "feber", "mrz", "apr", "mai", "jun", "jul", "aug", "sept", "okt", "nov", "dez"},
		{"janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre"},
		{"janv", "fevrier", "mars", "avr", "mai", "juin", "juil", "aout", "sept", "oct", "nov", "decembre"},
		{"jan", "févr", "mär", "avr", "mai", "juin", "juil", "aug", "sept", "okt", "nov", "déc"},
		{"enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"},
		{"ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "setiembre", "oct", "nov", "dic"},
		{"gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio", "agosto", "settembre", "ottobre", "novembre", "dicembre"},
		{"gen", "feb", "mar", "apr", "mag", "giu", "lug", "ago", "set", "ott", "nov", "dic"},
		{"janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro", "outubro", "novembro", "dezembro"},
		{"jan", "fev", "mar", "abr", "mai", "jun", "jul", "ago", "set", "out", "nov", "dez"},
		{"januari", "februari", "maart", "april", "mei", "juni", "juli", "augustus", "september", "oktober", "november", "december"},
		{"jan", "feb", "mrt", "apr", "mei", "jun", "jul", "aug", "sep", "okt", "nov", "dec"},
		{"stycznia", "lutego", "marca", "kwietnia", "maja", "czerwca", "lipca", "sierpnia", "września", "października", "listopada", "grudnia"},
		{"styczeń", "luty", "marzec", "kwiecień", "maj", "czerwiec", "lipiec", "sierpień", "wrzesień", "październik", "listopad", "grudzień"},
		{"ocak", "şubat", "mart", "nisan", "mayıs", "haziran", "temmuz", "ağustos", "eylül", "ekim", "kasım", "aralık"},
		{"января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа", "сентября", "октября", "ноября", "декабря"},
		{"январь", "февраль", "март", "апрель", "май", "июнь", "июль", "август", "сентябрь", "октябрь", "ноябрь", "декабрь"},
		{"січня", "лютого", "березня", "квітня", "травня", "червня", "липня", "серпня", "вересня", "жовтня", "листопада", "грудня"},
		{"січень", "лютий", "березень", "квітень", "травень", "червень", "липень", "серпень", "вересень", "жовтень", "листопад", "грудень"},
		{"يناير", "فبراير", "مارس", "أبريل", "مايو", "يونيو", "يوليو", "أغسطس", "سبتمبر", "أكتوبر", "نوفمبر", "ديسمبر"},
		{"", "", "", "ابريل", "", "يونية", "يولية", "اغسطس", "", "اكتوبر", "", ""},
		{"", "", "", "إبريل", "", "", "", "", "", "", "", ""},
		{"", "شباط", "آذار", "نيسان", "أيار", "حزيران", "تموز", "آب", "أيلول", "", "", ""},
		{"", "", "اذار", "", "ايار", "", "", "اب", "ايلول", "", "", ""},
	} {
		for i, n := range names {
			if n != "" {
				m[n] = i + 1
			}
		}
	}
	return m
}()

// arabicMonthPairs are the Levantine months written in two words, by their first
// word: كانون الثاني is January, كانون الأول December, تشرين الأول October, تشرين
// الثاني November.
var arabicMonthPairs = map[string]map[string]int{
	"كانون": {"الثاني": 1, "الأول": 12, "الاول": 12},
	"تشرين": {"الأول": 10, "الاول": 10, "الثاني": 11},
}
