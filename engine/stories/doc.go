// Package stories groups near-identical articles found under different URLs and
// on different sites into one story: a wire story syndicated to many outlets, a
// press release reprinted, one article under its AMP and print URLs. Pages are
// grouped by the SimHash of their main text (engine/page: the headline and the
// article body, boilerplate left out, numbers masked, Chinese and Japanese read as
// character bigrams) at Hamming distance MaxDistance or less, found through
// Manku's block tables (Index) in well under a microsecond at millions of pages.
// A story's first page is its earliest publisher; exact duplicates (the same
// bytes under another URL) are told apart, for WARC revisit records.
package stories
