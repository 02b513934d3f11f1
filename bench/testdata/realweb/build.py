#!/usr/bin/env python3
"""Builds the realweb corpus (labels.json, MANIFEST.tsv, pages/*.html.gz) from git
mirrors of the public test suites it is taken from:

    python3 build.py READABILITY_GIT NEWSPAPER4K_GIT GOOSE3_GIT TRAFILATURA_GIT HTMLDATE_GIT

Each argument is a git directory (a clone's .git, or a bare mirror) of
github.com/mozilla/readability, AndyTheFactory/newspaper4k, goose3/goose3,
adbar/trafilatura and adbar/htmldate; the pages are read at the commits below.
Only non-English pages are taken. Labels are the suites' own expectations; where a
suite has no language label, the language is written here by hand (HAND_LANG).
"""
import gzip, html.parser, json, os, re, subprocess, sys

COMMITS = {
    "mozilla/readability": "ab4027a8b37669745016869a37a504727992b2ba",
    "AndyTheFactory/newspaper4k": "540bff3e8344cb8291c4829fafd98860f30d9692",
    "goose3/goose3": "c5a8902eed0c4592a1ff5ec51a0277cf73a3aca7",
    "adbar/trafilatura": "e90b0ef51ab026fdb905fb6c5b3c84dd3d784fd5",
    "adbar/htmldate": "b8952828329abaeeb3be21387b526f2be614ce67",
}
LICENCE = {
    "mozilla/readability": "Apache-2.0",
    "AndyTheFactory/newspaper4k": "MIT",
    "goose3/goose3": "Apache-2.0",
    "adbar/trafilatura": "Apache-2.0",
    "adbar/htmldate": "Apache-2.0",
}

# readability's pages that are not English (a test page of a few hundred bytes
# written for one parser rule is no news page: left out).
READABILITY = ["aktualne", "cnet-svg-classes", "folha", "gmw", "heise", "hukumusume",
               "la-nacion", "lemonde-1", "liberation-1", "nytimes-5", "pixnet", "qq",
               "videos-2", "yahoo-4", "youth"]
# newspaper4k's pages with both the page and its text; its metadata where it has one.
NEWSPAPER = {"arabic_article": "ar", "burmese_article": "my", "chinese_article": "zh",
             "chinese_article_001": "zh", "chinese_article_002": "zh",
             "japanese_article": "ja", "japanese_article2": "ja", "latvian_article": "lv",
             "spanish_article": "es", "thai_article": "th"}
GOOSE = {"test_bbc_chinese": "zh", "test_cnn_arabic": "ar", "test_donga_korean": "ko",
         "test_elmondo1": "es", "test_elpais": "es", "test_lefigaro": "fr",
         "test_liberation": "fr", "test_wiwo": "de"}
TRAFILATURA = {"xinhuanet.com.c_1125597921.html": "zh",
               "banyuetan.org.1000200033136171577956287380194268_1.html": "zh",
               "baike.baidu.com.tanya.html": "zh", "nhk.or.jp.k100.html": "ja",
               "football.ua.podolski.html": "ru", "assabah.com.tn.article.html": "ar",
               "archive.org.he.xinhuanet.com.25340717.html": "zh"}
# htmldate's pages on Russian, Chinese, Japanese and Korean sites: dates only.
HTMLDATE_HOSTS = {".ru/": "ru", "unn.com.ua/ru/": "ru", "sohu.com": "zh", "sina.com.tw": "zh",
                  "ltn.com.tw": "zh", "yomiuri.co.jp": "ja", "auone.jp": "ja",
                  "nhk.or.jp": "ja", "biglobe.ne.jp": "ja", "prtimes.jp": "ja",
                  "goo.ne.jp": "ja"}
HAND_LANG = {"gmw": "zh", "qq": "zh", "youth": "zh", "hukumusume": "ja", "la-nacion": "es"}


def show(git, repo, path):
    return subprocess.run(["git", "--git-dir", git, "show", COMMITS[repo] + ":" + path],
                          check=True, capture_output=True).stdout


class TextOf(html.parser.HTMLParser):
    """The text of an expected.html, one line a block."""
    BLOCK = {"p", "div", "br", "li", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "pre",
             "blockquote", "figcaption", "section", "article", "table", "ul", "ol", "dd", "dt"}

    def __init__(self):
        super().__init__()
        self.out = []

    def handle_starttag(self, tag, attrs):
        if tag in self.BLOCK:
            self.out.append("\n")

    def handle_endtag(self, tag):
        if tag in self.BLOCK:
            self.out.append("\n")

    def handle_data(self, data):
        self.out.append(data)

    def text(self):
        lines = [" ".join(l.split()) for l in "".join(self.out).split("\n")]
        return "\n".join(l for l in lines if l)


def html_text(b):
    p = TextOf()
    p.feed(b.decode("utf-8"))
    return p.text()


def charset_for(body):
    """utf-8 when the saved file is UTF-8 but declares another charset (the suite
    re-encoded the page when it saved it, and reads it as UTF-8); else "" (the page's
    own declaration or sniffing decides, as in a crawl)."""
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return ""
    m = re.search(rb'charset\s*=\s*["\']?([A-Za-z0-9_-]+)', body[:4096], re.I)
    if m and m.group(1).lower().replace(b"_", b"-") not in (b"utf-8", b"utf8"):
        return "utf-8"
    return ""


def day(s):
    m = re.match(r"(\d{4}-\d{2}-\d{2})", s or "")
    return m.group(1) if m else ""


def main():
    rd, np_, gs, tf, hd = sys.argv[1:6]
    here = os.path.dirname(os.path.abspath(__file__))
    os.makedirs(os.path.join(here, "pages"), exist_ok=True)
    labels, manifest = [], []

    def add(id_, repo, path, body, **lab):
        lab = {"id": id_, **lab}
        lab["charset"] = charset_for(body)
        labels.append(lab)
        with gzip.GzipFile(os.path.join(here, "pages", id_ + ".html.gz"), "wb", mtime=0) as f:
            f.write(body)
        manifest.append((id_, lab["lang"], repo, COMMITS[repo], path, LICENCE[repo], lab["text_kind"]))

    for name in READABILITY:
        base = "test/test-pages/%s/" % name
        md = json.loads(show(rd, "mozilla/readability", base + "expected-metadata.json"))
        lang = (md.get("lang") or HAND_LANG[name]).split("-")[0].lower()
        byline = md.get("byline")
        add("readability-" + name, "mozilla/readability", base + "source.html",
            show(rd, "mozilla/readability", base + "source.html"),
            lang=lang, title=md.get("title") or "", authors=[byline] if byline else [],
            date=day(md.get("publishedTime")), text_kind="full",
            text=html_text(show(rd, "mozilla/readability", base + "expected.html")))

    for name, lang in NEWSPAPER.items():
        body = show(np_, "AndyTheFactory/newspaper4k", "tests/data/html/%s.html" % name)
        text = show(np_, "AndyTheFactory/newspaper4k", "tests/data/txt/%s.txt" % name).decode("utf-8")
        title, authors, date, url = "", [], "", ""
        try:
            md = json.loads(show(np_, "AndyTheFactory/newspaper4k", "tests/data/metadata/%s.json" % name))
            title, authors, date, url = md.get("title") or "", md.get("authors") or [], day(md.get("publish_date")), md.get("url") or ""
        except subprocess.CalledProcessError:
            pass
        add("newspaper4k-" + name, "AndyTheFactory/newspaper4k", "tests/data/html/%s.html" % name, body,
            url=url, lang=lang, title=title, authors=authors, date=date, text_kind="full", text=text.strip())

    for name, lang in GOOSE.items():
        body = show(gs, "goose3/goose3", "tests/data/content/%s.html" % name)
        js = json.loads(show(gs, "goose3/goose3", "tests/data/content/%s.json" % name))
        e = js["expected"]
        add("goose3-" + name[5:], "goose3/goose3", "tests/data/content/%s.html" % name, body,
            url=js.get("url", ""), lang=lang, title=e.get("title", ""), authors=e.get("authors") or [],
            date=day(e.get("publish_date")), text_kind="prefix", text=e["cleaned_text"])

    ev = json.loads(show(tf, "adbar/trafilatura", "tests/evaldata.json"))
    for url, e in ev.items():
        lang = TRAFILATURA.get(e["file"])
        if not lang:
            continue
        body = show(tf, "adbar/trafilatura", "tests/eval/" + e["file"])
        authors = [a.strip() for a in (e.get("author") or "").split(";") if a.strip()]
        add("trafilatura-" + e["file"][:-5][:40], "adbar/trafilatura", "tests/eval/" + e["file"], body,
            url=url, lang=lang, title=(e.get("title") or "").strip(), authors=authors,
            date=day(e.get("date")), text_kind="snippets", with_=e.get("with") or [],
            without=e.get("without") or [])

    seen = {l.get("url") for l in labels}
    for evname in ["eval_default.json", "eval_mediacloud_2020.json"]:
        raw = show(hd, "adbar/htmldate", "tests/" + evname).decode("utf-8").replace('"date": NaN', '"date": null')
        for url, e in sorted(json.loads(raw).items()):
            lang = next((l for h, l in HTMLDATE_HOSTS.items() if h in url), None)
            if not lang or not e.get("date") or url in seen:
                continue
            for sub in ["test_set", "cache", "eval"]:
                try:
                    body = show(hd, "adbar/htmldate", "tests/%s/%s" % (sub, e["file"]))
                    break
                except subprocess.CalledProcessError:
                    body = None
            if body is None:
                continue
            seen.add(url)
            host = re.sub(r"^https?://(www\d?\.)?", "", url).split("/")[0]
            add("htmldate-%s-%s" % (host, e["file"][:-5][:24]), "adbar/htmldate", "tests/%s/%s" % (sub, e["file"]), body,
                url=url, lang=lang, title="", authors=[], date=e["date"], text_kind="none")

    for l in labels:
        if "with_" in l:
            l["with"] = l.pop("with_")
    with open(os.path.join(here, "labels.json"), "w", encoding="utf-8") as f:
        json.dump(labels, f, ensure_ascii=False, indent=1)
        f.write("\n")
    with open(os.path.join(here, "MANIFEST.tsv"), "w", encoding="utf-8") as f:
        f.write("id\tlang\trepository\tcommit\tpath\tlicence\ttext label\n")
        for row in manifest:
            f.write("\t".join(row) + "\n")
    print(len(labels), "pages")


if __name__ == "__main__":
    main()
