// Package page is the crawler's model of one fetched HTML page: the body decoded
// (charset from the header, a BOM or <meta charset>), tokenized once into a light
// element tree, and what every reader of the page takes from that one pass.
//
//   - Links: a TagSink is handed the start tags it asks for during the pass
//     (engine/fetch reads a/area hrefs, <base>, rel=canonical, <meta name=robots>
//     and <link rel=alternate> feed links, which discovery follows).
//   - Main text: [MainText] and [PageText], the article's headline and body scored
//     like Readability.js, or the visible text outside chrome when a page has no
//     article (Text.Fallback). The block-page judge (engine/blockpage) weighs it.
//   - Fingerprint and signature: [Sign] gives the SimHash of the main text and the
//     digests of the normalised headline, body and raw page that engine/revisit
//     compares between fetches to tell a change from churn.
//
// [Parse] runs the pass and returns a [Parsed] page; its Sign finishes the work
// from the tree, so a fetched page is tokenized once whatever reads it. The
// functions that take a body ([Sign], [MainText], [PageText], [Fingerprint]) parse
// it themselves, for a body read back from the store.
package page
