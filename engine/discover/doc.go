// Package discover reads the documents a site publishes to announce its pages:
// sitemaps (sitemaps.org protocol 0.9, with sitemap indexes and Google's news
// extension) and feeds (RSS 2.0, RSS 1.0/RDF and Atom, RFC 4287). It turns each into
// a list of Entries: a page URL with the dates the site gives for it.
//
// Everything here is bounded by the caller's Limits, because these documents come
// from servers we do not control:
//
//   - A gzip sitemap (.xml.gz) is inflated streaming, under the same decoded-size cap
//     as pages (Limits.MaxBytes): a small file cannot inflate into a huge one.
//   - Sitemaps are read token by token with encoding/xml's Decoder, never loaded
//     whole; a sitemap stops at Limits.MaxURLs entries (the protocol's 50,000).
//   - encoding/xml does not expand entities declared in a DTD and never fetches
//     external ones, so "billion laughs" and XXE documents cost one pass over their
//     bytes and leave the entity reference as an error or as literal text.
//   - Feeds are parsed by github.com/mmcdole/gofeed, which streams RSS and Atom with
//     encoding/xml underneath (same entity behaviour) and keeps only the items.
//
// Problems that do not stop a document (a bad date, an off-site URL, too many
// entries) are counted as Warnings; what stops one is an error naming what was wrong.
// Deciding what to do with the entries — which URLs to queue, whether a site's dates
// can be trusted (Trust) — is the engine's.
package discover
