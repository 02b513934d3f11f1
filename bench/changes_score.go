package main

// The article extraction benchmark's metric (scrapinghub/article-extraction-benchmark,
// evaluate.py, MIT), re-implemented so that the "changes" bench scores extractors with
// the benchmark's own rule, not an approximation:
//
//   - tokens are runs of \w under Python's re.UNICODE: letters (L*), numbers (N*) and
//     '_' (str.isalnum() or '_'); case is kept, so "The" and "the" differ;
//   - a text's shingles are its token 4-grams (one shorter shingle when it has fewer
//     than 4 tokens), counted as a multiset;
//   - per page tp, fp, fn are the multiset intersection and the two differences,
//     divided by their sum so that a long article weighs no more than a short one;
//   - precision is the mean of tp/(tp+fp) over pages with tp+fp > 0, recall the mean
//     of tp/(tp+fn) over pages with tp+fn > 0 (1 for both when fp = fn = 0), and F1
//     the harmonic mean of those two means.
//
// TestShingleScoreMatchesPython checks this against evaluate.py when python3 is there.

import (
	"strings"
	"unicode"
)

// shingleN is evaluate.py's ngram_n.
const shingleN = 4

// pageScore is one page's normalised tp, fp, fn (string_shingle_matching).
type pageScore struct{ tp, fp, fn float64 }

// scoreTokens splits text like Python's re.findall(r'\w+', text, re.UNICODE).
func scoreTokens(text string) []string {
	return strings.FieldsFunc(text, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsNumber(r) || r == '_')
	})
}

// shingles counts a text's token 4-grams (evaluate.py _all_shingles).
func shingles(text string) map[string]int {
	toks := scoreTokens(text)
	out := map[string]int{}
	for i := 0; i < max(1, len(toks)-shingleN+1); i++ {
		end := min(i+shingleN, len(toks))
		if end <= i {
			continue
		}
		out[strings.Join(toks[i:end], "\x00")]++
	}
	return out
}

// scorePage is evaluate.py's string_shingle_matching(true, pred).
func scorePage(truth, pred string) pageScore {
	ts, ps := shingles(truth), shingles(pred)
	var s pageScore
	for k, tc := range ts {
		pc := ps[k]
		s.tp += float64(min(tc, pc))
		s.fn += float64(max(0, tc-pc))
		s.fp += float64(max(0, pc-tc))
	}
	for k, pc := range ps {
		if _, ok := ts[k]; !ok {
			s.fp += float64(pc)
		}
	}
	if sum := s.tp + s.fp + s.fn; sum > 0 {
		s.tp, s.fp, s.fn = s.tp/sum, s.fp/sum, s.fn/sum
	}
	return s
}

// corpusScore is evaluate.py's metrics_from_tp_fp_fns: mean precision, mean recall and
// the F1 of those means.
func corpusScore(pages []pageScore) (f1, precision, recall float64) {
	var np, nr int
	for _, s := range pages {
		if s.tp+s.fp > 0 {
			precision += scorePrecision(s)
			np++
		}
		if s.tp+s.fn > 0 {
			recall += scoreRecall(s)
			nr++
		}
	}
	if np > 0 {
		precision /= float64(np)
	}
	if nr > 0 {
		recall /= float64(nr)
	}
	if precision+recall > 0 {
		f1 = 2 * precision * recall / (precision + recall)
	}
	return f1, precision, recall
}

func scorePrecision(s pageScore) float64 {
	switch {
	case s.fp == 0 && s.fn == 0:
		return 1
	case s.tp == 0 && s.fp == 0:
		return 0
	}
	return s.tp / (s.tp + s.fp)
}

func scoreRecall(s pageScore) float64 {
	switch {
	case s.fp == 0 && s.fn == 0:
		return 1
	case s.tp == 0 && s.fn == 0:
		return 0
	}
	return s.tp / (s.tp + s.fn)
}
