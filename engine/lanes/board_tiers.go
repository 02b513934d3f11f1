package lanes

import "github.com/crawlconsole/crawlconsole/engine/frontier"

// The two ways a task comes to the board ahead of the ordinary ones: the
// operator's (AddFirst) and an article a feed or sitemap just listed (AddAhead).
// Both are Add with a mark that place, Next and repend read.

// AddFirst is Add for a task the operator asked for now (a keyword or site added
// while the crawl runs): when it joins a lane it goes to the head of the
// lane's queue, behind other such tasks, so it is that lane's next fetch; a lane
// waiting with an ordinary task in hand may trade it for this one (UrgentAhead,
// PutBack); when it finds no lane it waits in the pending queue's first tier, which
// new lanes take from before the rest. M1 is unchanged: the lane, its egress and its
// pause are the same as with Add.
func (b *Board) AddFirst(t frontier.Task) Placement {
	if b.first == nil {
		b.first = map[string]bool{}
	}
	b.first[t.URL] = true
	return b.Add(t)
}

// AddAhead is Add for a task a feed or sitemap has just listed as new (an article
// published since its last read): when it joins a lane it goes ahead of the lane's
// ordinary tasks (due reads, revisits, links of pages), behind the AddFirst tasks and
// the AddAhead tasks already there, so the articles a read finds are fetched in the
// order listed before the lane's next read; when it finds no lane it waits in the
// pending queue's tier for them, which new lanes take from before the ordinary
// tasks. M1 is unchanged, as with AddFirst.
func (b *Board) AddAhead(t frontier.Task) Placement {
	if b.ahead == nil {
		b.ahead = map[string]bool{}
	}
	b.ahead[t.URL] = true
	return b.Add(t)
}
