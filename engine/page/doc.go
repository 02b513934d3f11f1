// Package page is the crawler's model of one fetched HTML page: the body decoded
// (charset from the header, a BOM or <meta charset>), tokenized once into a light
// element tree, and what every reader of the page takes from that one pass.
//
//   - Links: [Read] hands the pass's start tags to a [LinkReader]: a/area hrefs,
//     <base>, rel=canonical, <meta name=robots> directives and <link rel=alternate>
//     feed links, which discovery follows ([Links]). Any [TagSink] can ride along.
//   - Main text: [MainText] and [PageText], the article's headline and body scored
//     like Readability.js, or the visible text outside chrome when a page has no
//     article (Text.Fallback). The block-page judge (engine/blockpage) weighs it.
//   - Fingerprint and signature: [Sign] gives the SimHash of the main text and the
//     digests of the normalised headline, body and raw page that engine/revisit
//     compares between fetches to tell a change from churn; with them, the story
//     fingerprint ([StoryFingerprint]) of the article's long paragraphs, by which
//     engine/stories groups syndicated copies, from the same normalised text.
//   - Metadata: [Parsed.Meta], the publication date, headline, authors, language and
//     canonical URL, read by engine/page/meta from what the pass collected.
//
// [Read] (links and parse) and [Parse] (parse, any sink) run the pass and return a
// [Parsed] page; its PageText and Sign finish the work from the tree, so a fetched
// page is tokenized once whatever reads it ([TokenizerPasses] counts). [ScanLinks]
// is the pass for a page nothing else reads. The
// functions that take a body ([Sign], [MainText], [PageText], [Fingerprint]) parse
// it themselves, for a body read back from the store.
package page
