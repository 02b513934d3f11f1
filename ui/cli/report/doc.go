// Package report holds the commands that read a crawl's store without crawling:
// stats (what the store holds, per host, egress and node), show (what the crawl
// knows of one URL) and export (WARC or JSONL out of the store). Each opens the
// store read-only, so it runs beside a live crawl.
package report
