// Package stories groups near-identical articles found under different URLs and
// on different sites into one story: a wire story syndicated to many outlets, a
// press release reprinted, one article under its AMP and print URLs. Pages are
// grouped by their story fingerprint (page.StoryFingerprint: a SimHash of the
// article body's long paragraphs, headline and boilerplate left out, numbers
// dropped, Chinese and Japanese read as character pairs) at Hamming distance
// MaxDistance or less, found through
// Manku's block tables (Index) in well under a microsecond at millions of pages.
// A story's first page is its earliest publisher; exact duplicates (the same
// bytes under another URL) are told apart, for WARC revisit records.
package stories
