// Package bodytext reads a response body as text: whether it is text at all
// (its media type, NUL bytes), which encoding it is in (the Content-Type's
// charset, a BOM, a <meta charset>, UTF-8 validity, a guessed windows-1252 that
// must read like Western text) and whether the decoded text is something a
// person reads. The page model (engine/page) decodes every body through it.
package bodytext

import (
	"bytes"
	"mime"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
)

// maxBadRuneShare is the share of replacement or control characters above which a
// body's text is taken as mis-decoded (wrong encoding: GBK read as UTF-8 is mostly
// U+FFFD) and unusable. Below it, stray invalid bytes in a readable page are skipped
// (see featureSet.add), so they neither hide nor fake a change.
const maxBadRuneShare = 0.2

// Decode checks that a body is text and decodes it to UTF-8: the Content-Type's
// charset, a BOM or a <meta charset> (one past the first KiB too) select the
// decoder; isHTML tells markup from plain text, valid says the result is valid
// UTF-8, ok is false for empty, binary or mis-decoded bodies.
func Decode(body []byte, contentType string) (decoded []byte, isHTML, valid, ok bool) {
	if len(body) == 0 {
		return nil, false, false, false
	}
	media := ""
	switch contentType {
	case "":
	case "text/html", "text/html; charset=utf-8", "text/html; charset=UTF-8":
		media = "text/html" // what mime.ParseMediaType makes of the commonest, without its map
	default:
		if mt, _, err := mime.ParseMediaType(contentType); err == nil {
			media = mt
		}
	}
	if media == "" {
		media, _, _ = mime.ParseMediaType(http.DetectContentType(body))
	}
	isHTML = media == "text/html" || media == "application/xhtml+xml"
	if !isHTML && !isTextual(media) {
		return nil, false, false, false
	}
	if looksBinary(body) {
		return nil, false, false, false
	}
	decoded, guessed := ToUTF8(body, contentType)
	if guessed && !plausibleLatin(decoded) {
		// Undeclared, not UTF-8, and not Western text either: bytes in an encoding we
		// cannot tell (or no encoding at all). Unknown, not a fingerprint of mojibake.
		return nil, false, false, false
	}
	valid = utf8.Valid(decoded)
	if !valid && !Usable(string(decoded)) {
		// Checked on the whole body: a mis-decoded block has no letters left and would
		// silently drop out of the main text, leaving a fingerprint of the chrome.
		return nil, false, false, false
	}
	return decoded, isHTML, valid, true
}

// isTextual reports whether a media type is text a person reads (plain text, JSON,
// XML feeds), as opposed to images, archives, PDFs or octet streams.
func isTextual(media string) bool {
	switch {
	case strings.HasPrefix(media, "text/"):
		return true
	case media == "application/json", media == "application/xml",
		strings.HasSuffix(media, "+xml"), strings.HasSuffix(media, "+json"):
		return true
	}
	return false
}

// looksBinary reports a body that claims to be text but is not: NUL bytes in its
// first KiB (true of images, archives and UTF-16 without a BOM alike).
func looksBinary(body []byte) bool {
	head := body
	if len(head) > 1024 {
		head = head[:1024]
	}
	if bytes.HasPrefix(head, []byte{0xFF, 0xFE}) || bytes.HasPrefix(head, []byte{0xFE, 0xFF}) {
		return false // UTF-16 with a BOM: text, decoded below
	}
	return bytes.IndexByte(head, 0) >= 0
}

// ToUTF8 converts a body to UTF-8. charset.DetermineEncoding falls back to
// windows-1252 when the first KiB is plain ASCII; a body that is valid UTF-8 as a
// whole is UTF-8 (the common case of an undeclared UTF-8 page with an ASCII head).
// guessed reports the remaining case: no declaration, not UTF-8, read as windows-1252
// by the HTML standard's default.
func ToUTF8(body []byte, contentType string) (out []byte, guessed bool) {
	switch contentType {
	case "text/html; charset=utf-8", "text/html; charset=UTF-8":
		// What DetermineEncoding makes of the commonest header, without parsing it:
		// UTF-8, unless a UTF-16 byte order mark overrides it.
		if !bytes.HasPrefix(body, []byte{0xFE, 0xFF}) && !bytes.HasPrefix(body, []byte{0xFF, 0xFE}) {
			return body, false
		}
	}
	enc, name, certain := charset.DetermineEncoding(body, contentType)
	if !certain && name == "windows-1252" {
		if utf8.Valid(body) {
			return body, false
		}
		if e, n, ok := lateMetaCharset(body); ok {
			enc, name = e, n
		} else {
			guessed = true
		}
	}
	if enc == encoding.Nop || name == "utf-8" {
		return body, guessed
	}
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		return body, guessed
	}
	return out, guessed
}

// maxLateMeta bounds how far into a body a <meta> charset declaration is looked for
// once the first KiB had none: far enough for the scripts and banners an archive or a
// CMS puts before a page's own <head> declarations (the Wayback Machine's run to about
// 1.5 KiB), near enough to stay in the head.
const maxLateMeta = 16 << 10

// lateMetaCharset finds a <meta> charset declaration past the first KiB, where the
// HTML standard's prescan stops looking but a browser's parser still switches to it
// when it reaches the tag (the encoding is only tentative until then): a gb2312 page
// behind 1.5 KiB of an archive's scripts is read as gb2312, not as windows-1252.
func lateMetaCharset(body []byte) (encoding.Encoding, string, bool) {
	head := body
	if len(head) > maxLateMeta {
		head = head[:maxLateMeta]
	}
	for off := 0; ; {
		i := indexFold(head[off:], "<meta")
		if i < 0 {
			return nil, "", false
		}
		off += i
		end := bytes.IndexByte(head[off:], '>')
		if end < 0 {
			return nil, "", false
		}
		if indexFold(head[off:off+end], "charset") >= 0 {
			// The tag's own declaration, read from the tag alone (past it, the
			// prescan would take a later tag's, or sniff UTF-8 from the bytes
			// after it). The first declaration decides, as in a browser: one of
			// windows-1252 (or a name for it, iso-8859-1) keeps the default.
			e, n, _ := charset.DetermineEncoding(head[off:off+end+1], "")
			return e, n, n != "windows-1252" && e != nil
		}
		off += end
	}
}

// indexFold is bytes.Index for an ASCII lower-case needle, ignoring the case of s.
func indexFold(s []byte, needle string) int {
	for i := 0; i+len(needle) <= len(s); i++ {
		j := 0
		for j < len(needle) {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != needle[j] {
				break
			}
			j++
		}
		if j == len(needle) {
			return i
		}
	}
	return -1
}

// maxGuessedNonASCII is the share of non-ASCII letters above which text read with the
// guessed windows-1252 is taken as mojibake: Western European prose has a few
// accented letters in every hundred, while binary junk or an undeclared Cyrillic or
// Chinese page read as windows-1252 is mostly upper-half letters.
const maxGuessedNonASCII = 0.3

// plausibleLatin reports whether guessed-windows-1252 text reads like Western text.
func plausibleLatin(text []byte) bool {
	ascii, other := 0, 0
	for _, r := range string(text) {
		switch {
		case r < utf8.RuneSelf:
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
				ascii++
			}
		case unicode.IsLetter(r):
			other++
		}
	}
	return float64(other) <= maxGuessedNonASCII*float64(ascii+other)
}

// Usable reports whether text has letters and is not mostly replacement or
// control characters, the signature of a body read with the wrong encoding.
func Usable(text string) bool {
	letters, bad := 0, 0
	for _, r := range text {
		switch {
		case r == utf8.RuneError:
			bad++
		case r < 0x20 && r != '\n' && r != '\r' && r != '\t', r >= 0x7F && r < 0xA0:
			bad++
		case r < utf8.RuneSelf:
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
				letters++
			}
		case unicode.IsLetter(r) || unicode.IsNumber(r):
			letters++
		}
	}
	if letters == 0 {
		return false
	}
	return float64(bad) <= maxBadRuneShare*float64(letters+bad)
}
