// Package textutil holds the small readers of tags and text that the page model
// (engine/page) and its metadata (engine/page/meta) share: a start tag's
// attributes, white space folded, strings clipped at a character boundary, and
// which runes belong to scripts written without spaces.
package textutil
