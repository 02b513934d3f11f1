package revisit

import (
	"net/url"
	"testing"
	"time"
)

func TestClassifier(t *testing.T) {
	c := Classifier{
		Social:   map[string]bool{"weibo.com": true, "social.sandbox.test": true},
		Declared: map[string]string{"ministry.org": ClassGov},
	}
	cases := []struct{ url, want string }{
		{"https://weibo.com/u/123", ClassSocial},
		{"https://m.weibo.com/status/9", ClassSocial}, // subdomain of a declared site
		{"http://social.sandbox.test:8080/search?q=x", ClassSocial},
		{"https://www.ministry.org/notice", ClassGov}, // declared beats the suffix
		{"https://news.example.com/a", ClassCom},
		{"https://www.bbc.co.uk/news", ClassCom},
		{"https://www.example.net/", ClassNet},
		{"https://www.163.net.cn/", ClassNet},
		{"https://www.mit.edu/", ClassEdu},
		{"https://www.pku.edu.cn/", ClassEdu},
		{"https://www.ox.ac.uk/", ClassEdu},
		{"https://shop.ac/", ClassCom}, // .ac alone is a country code, not academia
		{"https://www.usa.gov/", ClassGov},
		{"https://www.gov.cn/", ClassGov},
		{"https://www.mhlw.go.jp/", ClassGov},
		{"https://www.service-public.gouv.fr/", ClassGov},
		{"https://www.army.mil/", ClassGov},
		{"https://www.wikipedia.org/", ClassCom}, // other TLDs: the general web class
		{"https://example.de/", ClassCom},
		{"http://127.0.0.1:8080/", ClassCom},
		{"http://[::1]/", ClassCom},
		{"http://localhost/", ClassCom},
		{"HTTPS://WWW.MIT.EDU./", ClassEdu}, // case and trailing dot
	}
	for _, tc := range cases {
		t.Run(tc.url, func(t *testing.T) {
			u, err := url.Parse(tc.url)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Class(u); got != tc.want {
				t.Errorf("Class = %s, want %s", got, tc.want)
			}
		})
	}
	if got := c.Class(nil); got != ClassCom {
		t.Errorf("Class(nil) = %s", got)
	}
}

// M2/M3: a page is revisited while inside its class window, and never after.
func TestClassWindows(t *testing.T) {
	day := 24 * time.Hour
	w := Windows{ClassSocial: 2 * day, ClassCom: 10 * day, ClassGov: 0}
	t0 := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		class string
		age   time.Duration
		want  bool
	}{
		{ClassSocial, 47 * time.Hour, true},
		{ClassSocial, 2 * day, false},
		{ClassCom, 9 * day, true},
		{ClassCom, 10 * day, false},
		{ClassNet, 9 * day, true}, // no window of its own: web_com's
		{ClassNet, 11 * day, false},
		{ClassGov, 10000 * day, true}, // 0: no limit
	}
	for _, c := range cases {
		if got := w.Active(c.class, t0, t0.Add(c.age)); got != c.want {
			t.Errorf("Active(%s, age %v) = %v, want %v", c.class, c.age, got, c.want)
		}
	}

	// Through the tracker: a social page stops being scheduled once its window closes,
	// including when its next fetch would fall beyond the window.
	tr, _ := NewTracker(Config{Initial: 12 * time.Hour, Windows: w}, nil)
	p := &Page{URL: "https://weibo.com/s/1", Class: ClassSocial}
	tr.Observe(p, t0, Outcome{Hash: 1, OK: true})
	if p.Next != t0.Add(12*time.Hour) {
		t.Fatalf("next = %v, want first+12h", p.Next)
	}
	tr.Observe(p, t0.Add(12*time.Hour), Outcome{Hash: 1, OK: true}) // next = 24h
	if p.Next != t0.Add(24*time.Hour) {
		t.Fatalf("next = %v, want +24h", p.Next)
	}
	tr.Observe(p, t0.Add(24*time.Hour), Outcome{Hash: 1, OK: true}) // next would be 48h: at the window's end
	if p.Next != Never {
		t.Errorf("next = %v; a fetch at the window's end must not be scheduled", p.Next)
	}
	q := &Page{URL: "https://www.gov.cn/a", Class: ClassGov}
	tr.Observe(q, t0, Outcome{Hash: 1, OK: true})
	tr.Observe(q, t0.Add(500*day), Outcome{Hash: 1, OK: true})
	if q.Next == Never {
		t.Error("a class with no window limit was retired")
	}
}
