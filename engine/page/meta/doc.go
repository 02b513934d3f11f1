// Package meta reads a news page's metadata: when it was published and last
// modified, its headline, authors, language and canonical URL, each with the place
// it was read from (Metadata, Source). It reads no page itself: the page's one
// tokenizer pass (engine/page) hands a Raw the tags and script text it needs while
// it runs (<meta> tags, JSON-LD, microdata, <time datetime>, rel=author, <html
// lang>, <link rel=canonical>), then the element tree it built (FromTree: date and
// byline elements, the headline, the dates of the visible text, the scripts of the
// main text), and Raw.Build weighs them (engine/page Parsed.Meta). The dates are
// scored on htmldate's evaluation pages: `go run ./bench metadata`.
package meta
