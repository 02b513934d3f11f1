package view

import "time"

// StoriesView is the Stories pane's data: the articles the crawl found under more
// than one URL, each a story (engine/stories).
type StoriesView struct {
	Pages   int        // articles grouped (pages with prose)
	Stories int        // stories they make
	Grouped int        // stories of two pages or more
	Rows    []StoryRow // stories of two pages or more, the latest joined first (the first StoryRows)
}

// StoryRows is how many stories the Stories view carries.
const StoryRows = 200

// StoryRow is one story: one article under every URL it was found at.
type StoryRow struct {
	ID    string
	Sites int         // distinct outlets
	Pages []StoryPage // earliest publisher first
}

// StoryPage is one URL a story was found at.
type StoryPage struct {
	URL       string
	Site      string    // its registered domain
	Published time.Time // the page's own publication date; zero when unknown
	Fetched   time.Time // when the crawl stored it
}
