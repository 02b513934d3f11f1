package notice

import "testing"

func TestStamp(t *testing.T) {
	for line, want := range map[string]bool{
		"Submitted on Mon, 2019-01-21 13:49":  true,
		"آخر تحديث: 2024-03-05 09:30":         true,
		"2024年3月5日 11:30":                     true,
		"The meeting ended at 13:49 in 2019.": false, // a sentence
		"Mon, 2019-01-21":                     false, // no time of day
		"13:49 updated":                       false, // no year
		"Flight 12019 leaves at 9:30":         false, // no year standing alone
		"Updated 2024-03-05 9:305":            false, // no h:mm
		"Posted 1899-12-31 10:00":             false, // not 19xx or 20xx
	} {
		if got := Stamp([]byte(line)); got != want {
			t.Errorf("Stamp(%q) = %v, want %v", line, got, want)
		}
	}
}

func TestPaywall(t *testing.T) {
	var scratch []byte
	for line, want := range map[string]bool{
		"この記事は会員限定です":                                                       true,
		"Subscribe to continue reading.":                                    true,
		"SUBSCRIBERS ONLY":                                                  true,
		"Réservé aux abonnés":                                               true,
		"Доступно только для подписчиков":                                   true,
		"She told subscribers about the new route.":                         false,
		"For subscribers":                                                   true,
		"The company said it would raise prices for subscribers in the US.": false,
		"A new tier is available to subscribers only, the company said.":    false,
	} {
		var got bool
		got, scratch = Paywall([]byte(line), scratch)
		if got != want {
			t.Errorf("Paywall(%q) = %v, want %v", line, got, want)
		}
	}
}
