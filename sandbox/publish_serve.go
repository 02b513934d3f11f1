package sandbox

import (
	"bytes"
	"fmt"
	"html"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Serving the publishing model (Config.Publishing): feeds and sitemaps on each
// publishing site's www host, /story/ articles on every host (404 until published),
// the latest articles on entry pages with a <link rel="alternate"> to the feed, and
// Sitemap lines in robots.txt for the sites that declare theirs — on every host of the
// site, a cross-submission (sitemaps.org) that lets the www sitemap list section
// hosts' articles.

// servePublishing answers a request for a feed, sitemap or story; false when the
// request is for something else.
func (s *Sandbox) servePublishing(w http.ResponseWriter, r *http.Request, start time.Time) bool {
	path := r.URL.Path
	isDoc := strings.HasSuffix(path, ".xml")
	if !isDoc && !strings.HasPrefix(path, "/story/") {
		return false
	}
	h := s.web.hostOf(r.Host)
	if h == nil || s.web.publishers()[h.site.Domain] == nil {
		return false
	}
	now := s.clock.now()
	var body []byte
	var ctype string
	if isDoc {
		// Decided before the exchange begins: a path the site does not publish is the
		// classic model's (a 404), judged once by the anti-bot rule, not twice.
		var ok bool
		if body, ctype, ok = s.web.RenderDiscovery("http://"+h.name+s.web.portSuffix+path, now); !ok {
			return false
		}
	}
	x := &exchange{s: s, h: h, rec: Request{Start: start, IP: clientIP(r.RemoteAddr), Host: h.name,
		URL: "http://" + r.Host + r.URL.RequestURI()}}
	defer x.finish(0)
	if s.bot != nil {
		// The anti-bot rule judges these requests like any other. They have no
		// parent in the link tree (a story is listed by entry pages, feeds and
		// sitemaps alike), so each is its own: only the same-host rule binds them.
		x.pk = strKey(h.name+path) | 1
		v := s.bot.begin(x.rec.IP, h, x.pk, false, start)
		if v.newBan != nil {
			s.truth.recordBan(*v.newBan)
		}
		x.rec.Violation, x.rec.Banned, x.rec.Limited = v.violation, v.banned, v.limited
		switch {
		case v.banned:
			s.serveBan(w, x, v.until)
			return true
		case v.limited:
			serveLimited(w, x, v.retryAfter)
			return true
		}
	}
	if isDoc {
		x.rec.Kind = KindDiscovery
		// A document changes with every article: its ETag is the newest article's
		// publish time, so a conditional GET costs no body between articles.
		etag := `"` + strconv.FormatInt(s.web.newestAt(h.site.Domain, now).UnixNano(), 36) + `"`
		w.Header().Set("ETag", etag)
		w.Header().Set("Content-Type", ctype)
		// The Date is the web clock's, written as the web writes its dates
		// (Config.RealDates): a lying lastmod equals the Date it is served with, as on
		// a real site; net/http would stamp real time.
		w.Header().Set("Date", s.web.date(now).UTC().Format(http.TimeFormat))
		lying := s.web.publishers()[h.site.Domain].announce == AnnounceLyingLM // new on every request
		if r.Header.Get("If-None-Match") == etag && !lying {
			x.finish(http.StatusNotModified)
			w.WriteHeader(http.StatusNotModified)
			return true
		}
		x.finish(http.StatusOK)
		w.Write(body) //nolint:errcheck // the client may be gone
		return true
	}
	x.rec.Kind = KindArticle
	u := "http://" + h.name + s.web.portSuffix + path
	for _, a := range s.web.latest(h.site.Domain, h.name, now, 1<<30, time.Time{}) {
		if a.URL != u {
			continue
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		x.finish(http.StatusOK)
		fmt.Fprintf(w, "<!DOCTYPE html><html><head><title>%s</title></head><body><nav><a href=\"/\">%s</a></nav><article><h1>%s</h1><p>Published %s. %s reports on %s.</p>%s</article></body></html>\n",
			html.EscapeString(path), h.site.Name, html.EscapeString(path), s.web.date(a.Published).UTC().Format(time.RFC3339), h.site.Name,
			strings.Join(h.site.keywords, ", "), storyText(path))
		return true
	}
	x.finish(http.StatusNotFound)
	http.NotFound(w, r)
	return true
}

// newestAt is the publish time of the site's newest article at web time at.
func (w *Web) newestAt(domain string, at time.Time) time.Time {
	if l := w.latest(domain, "", at, 1, time.Time{}); len(l) > 0 {
		return l[0].Published
	}
	return w.cfg.Epoch
}

// injectLatest adds the host's latest articles (and the site's feed link) to an
// entry page body.
func (w *Web) injectLatest(body []byte, h *vhost, at time.Time) []byte {
	p := w.publishers()[h.site.Domain]
	if p == nil {
		return body
	}
	var b bytes.Buffer
	www := "http://" + h.site.hosts[0].name + w.portSuffix
	switch p.announce {
	case AnnounceRSS:
		fmt.Fprintf(&b, `<link rel="alternate" type="application/rss+xml" href="%s/feed.xml">`, www)
	case AnnounceAtom:
		fmt.Fprintf(&b, `<link rel="alternate" type="application/atom+xml" href="%s/atom.xml">`, www)
	}
	b.WriteString(`<ul class="latest">`)
	for _, u := range w.PublishingEntryLinks(h.name, at) {
		fmt.Fprintf(&b, `<li><a href="%s">%s</a></li>`, u, u)
	}
	b.WriteString(`</ul>`)
	if i := bytes.LastIndex(body, []byte("</body>")); i >= 0 {
		out := make([]byte, 0, len(body)+b.Len())
		out = append(out, body[:i]...)
		out = append(out, b.Bytes()...)
		return append(out, body[i:]...)
	}
	return append(body, b.Bytes()...)
}

// appendSitemapLines adds the robots.txt Sitemap lines of a publishing site that
// declares its sitemap (every host of the site names the www one).
func (w *Web) appendSitemapLines(buf []byte, h *vhost) []byte {
	p := w.publishers()[h.site.Domain]
	if p == nil {
		return buf
	}
	www := "http://" + h.site.hosts[0].name + w.portSuffix
	switch p.announce {
	case AnnounceSitemap:
		buf = append(buf, "Sitemap: "+www+"/sitemap.xml\n"...)
	case AnnounceNewsSitemap:
		buf = append(buf, "Sitemap: "+www+"/sitemap-news.xml\n"...)
	case AnnounceIndex:
		buf = append(buf, "Sitemap: "+www+"/sitemap_index.xml\n"...)
	}
	return buf
}

// storyText is a story's body: a few KiB of text, the size of the model's other
// articles, so that a crawler's block-page check (a page far smaller than the
// host's usual ones) sees an ordinary page.
func storyText(path string) string {
	words := [...]string{"the", "council", "said", "on", "harbor", "residents", "flood", "budget", "school", "river",
		"after", "a", "vote", "storm", "market", "officials", "rail", "week", "plan", "report"}
	rng := newPRNG(strKey(path))
	var b strings.Builder
	for p := 0; p < 6; p++ {
		b.WriteString("<p>")
		for s := 0; s < 6; s++ {
			for i, n := 0, 8+rng.intn(10); i < n; i++ {
				if i > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(words[rng.intn(len(words))])
			}
			b.WriteString(". ")
		}
		b.WriteString("</p>")
	}
	return b.String()
}
