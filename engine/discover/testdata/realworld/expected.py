#!/usr/bin/python3
"""Write expected/ for the real-world discovery corpus from MANIFEST.tsv.

Independent of the crawler's Go code: feeds are read by Debian's
python3-feedparser (apt-get install python3-feedparser; run with
/usr/bin/python3 so Debian's package is found), sitemaps by xml.etree and
text sitemaps line by line.

  expected/<file>.urls      page URLs the document lists (absolute, http(s),
                            de-duplicated, in document order)
  expected/<file>.children  for a sitemap index: the child sitemap URLs

Sitemap <loc> entries and index children on another host than the sitemap's
own are left out (sitemaps protocol); xhtml:link rel=alternate hrefs of a
sitemap entry are page URLs too; image/video/news extension URLs are not.
Feed entries keep whatever host they point to; an entry link that resolves to
the document itself (an empty href) is not a page URL.

Re-run: /usr/bin/python3 expected.py   (prints one line per document)
"""
import csv
import gzip
import os
import re
import sys
import xml.etree.ElementTree as ET
from urllib.parse import quote, urljoin, urlsplit

import feedparser

# The corpus directory: the first argument (the held-out set: ../heldout), else
# this script's own.
HERE = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
FEED_KINDS = {'rss090', 'rss091', 'rss092', 'rss10', 'rss20', 'atom03', 'atom10', 'xhtml_feed'}
XHTML = '{http://www.w3.org/1999/xhtml}'


def html_serialised_rss(data, url):
    """Item links of an RSS feed that an HTML serialiser rewrote.

    blog.harduex.com's static export passed its Ghost RSS through an HTML
    serialiser: the feed sits in <html><body>, CDATA became comments and
    <link> became a void element, so each item's URL is the text right after
    <link>. feedparser reads no entry from it (mismatched tags); this reads
    the text after the first <link> of each <item> instead.
    """
    text = data.decode('utf-8')
    links = []
    for item in re.findall(r'<item>(.*?)</item>', text, re.S):
        m = re.search(r'<link>\s*(https?://[^<\s]+)', item)
        if m:
            links.append(urljoin(url, m.group(1)))
    return http_only(links)


# Feeds whose page URLs feedparser cannot read (see README.md): file -> reader.
MANUAL = {
    'feeds/harduex-rss-index.html': html_serialised_rss,
}


def body(path):
    data = open(path, 'rb').read()
    if data[:2] == b'\x1f\x8b':
        data = gzip.decompress(data)
    return data


def http_only(urls, host=None):
    out, seen = [], set()
    for u in urls:
        # An IRI (raw non-ASCII, as one EUC-KR feed has) is written as the URI
        # a browser requests: UTF-8, percent-encoded (RFC 3987 section 3.1).
        u = quote(u.strip(), safe=":/?#[]@!$&'()*+,;=%~")
        p = urlsplit(u)
        if p.scheme not in ('http', 'https') or not p.netloc:
            continue
        if host is not None and (p.hostname or '').lower() != host:
            continue
        if u not in seen:
            seen.add(u)
            out.append(u)
    return out


def has_declaration(data):
    head = data[:200].lstrip(b'\xef\xbb\xbf').lstrip()
    return head.startswith(b'<?xml') and b'encoding' in head.split(b'?>', 1)[0]


def feed_urls(data, url, content_type):
    headers = {'content-location': url, 'content-type': 'application/xml'}
    # A document without an encoding declaration is read with the charset the
    # server states for it (the manifest's content_type), as a browser would.
    if not has_declaration(data) and 'charset=' in content_type:
        headers['content-type'] = 'application/xml; charset=' + content_type.split('charset=')[1].strip()
    d = feedparser.parse(data, response_headers=headers)
    links = []
    bases = {url} | {d.feed[k]['base'] for k in ('title_detail', 'subtitle_detail')
                     if k in d.feed and d.feed[k].get('base')}
    for e in d.entries:
        link = e.get('link')
        if not link:
            continue
        link = urljoin(url, link)
        # An empty href resolves to the document itself (its url or the feed's
        # xml:base): that is the feed, not a page it lists.
        if link in bases:
            continue
        links.append(link)
    return http_only(links), d


def local(tag):
    return tag.rsplit('}', 1)[-1]


def sitemap_urls(data, url, kind):
    host = (urlsplit(url).hostname or '').lower()
    if kind == 'text_sitemap':
        text = data.decode('utf-8', errors='replace')
        return http_only([l for l in text.splitlines() if l.strip()], host), None
    root = ET.fromstring(data)
    if local(root.tag) == 'sitemapindex':
        locs = [urljoin(url, (c.text or '').strip()) for s in root if local(s.tag) == 'sitemap'
                for c in s if local(c.tag) == 'loc']
        return None, http_only(locs, host)
    pages = []
    for u in root:
        if local(u.tag) != 'url':
            continue
        for c in u:
            if local(c.tag) == 'loc':
                pages.append(urljoin(url, (c.text or '').strip()))
            elif c.tag == XHTML + 'link' and c.get('rel') == 'alternate' and c.get('href'):
                pages.append(urljoin(url, c.get('href').strip()))
    return http_only(pages, host), None


def main():
    rows = list(csv.DictReader(open(os.path.join(HERE, 'MANIFEST.tsv'), newline=''), delimiter='\t'))
    outdir = os.path.join(HERE, 'expected')
    total = 0
    for r in rows:
        f, kind, url = r['file'], r['kind'], r['url']
        data = body(os.path.join(HERE, f))
        note = ''
        children = None
        if f in MANUAL:
            urls, note = MANUAL[f](data, url), 'manual'
        elif kind in FEED_KINDS:
            urls, d = feed_urls(data, url, r['content_type'])
            if d.bozo:
                note = 'bozo: %s' % str(d.bozo_exception)[:80]
        else:
            urls, children = sitemap_urls(data, url, kind)
        os.makedirs(os.path.dirname(os.path.join(outdir, f)), exist_ok=True)
        for ext, lst in (('.urls', urls), ('.children', children)):
            p = os.path.join(outdir, f + ext)
            if lst is None:
                if os.path.exists(p):
                    os.remove(p)
                continue
            with open(p, 'w') as out:
                out.write(''.join(u + '\n' for u in lst))
        n = len(urls or []) if urls is not None else len(children)
        total += len(urls or [])
        print('%5d %s %s %s' % (n, 'children' if children is not None else 'urls    ', f, note))
    print('%d documents, %d page URLs' % (len(rows), total), file=sys.stderr)


if __name__ == '__main__':
    main()
