// Package discover reads the documents a site publishes to announce its pages:
// sitemaps (sitemaps.org protocol 0.9 in XML or text, with sitemap indexes, Google's
// news, image and video extensions and hreflang alternates) and feeds (RSS 0.9x-2.0,
// RSS 1.0/RDF and Atom, also inside an XHTML page). It turns each into a list of
// Entries: a page URL with the dates the site gives for it.
//
// ParseFrom reads a document as real servers send it: by its content whatever its
// Content-Type says, in its declared encoding (or the HTTP charset's, or UTF-8; one
// that the bytes contradict is overruled with a warning), its relative links
// resolved against xml:base and the document's URL.
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
