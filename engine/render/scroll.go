package render

import (
	"context"
	"fmt"

	"github.com/chromedp/chromedp"
)

// The scroll steps of a render (Job.Scroll): search results and feeds of social
// sites show a first page of results and add more when the reader scrolls to the
// bottom or presses "load more". A render with steps takes up to that many, each
// one click on a "load more" control when the page has one, else a scroll to the
// bottom, and waits for the page to settle after each; it stops early when a step
// added nothing. The links the page showed after each step are kept, also those a
// virtual list removed later: they are added to the DOM read, in a hidden element
// (scrollKeptAttr), so that the page's one parse finds them.

// scrollKeptAttr marks the hidden element holding the links a page showed during
// its scroll steps and removed since.
const scrollKeptAttr = "data-crawlconsole-scrolled"

// scrollStep notes the page's links and takes one step; it answers scrollNote's
// figures before the step, and 1 when it clicked a "load more" control.
const scrollStep = `(function(){
var size = ` + scrollNote + `;
var re = /^\s*(load|show|see|view)\s+more\b|^\s*more\s+(results|posts|items)\b|^\s*(mehr|plus)\b/i;
var cs = document.querySelectorAll('button, a[role=button], [role=button], input[type=button], input[type=submit], [data-load-more]');
for (var j = 0; j < cs.length; j++) {
  var c = cs[j], t = c.innerText || c.value || '';
  if ((c.hasAttribute('data-load-more') || re.test(t)) && !c.disabled && c.offsetParent !== null) {
    c.scrollIntoView(); c.click(); return size.concat([1]);
  }
}
window.scrollTo(0, document.documentElement.scrollHeight || document.body.scrollHeight);
window.dispatchEvent(new Event('scroll'));
return size.concat([0]);
})()`

// scrollNote notes the links (a[href]) the page shows now among those seen during
// the steps, and answers how many distinct links were seen and how many elements
// the page has.
const scrollNote = `(function(){
var seen = window.__ccLinks || (window.__ccLinks = {}), order = window.__ccOrder || (window.__ccOrder = []);
var as = document.querySelectorAll('a[href]');
for (var i = 0; i < as.length; i++) { var h = as[i].href; if (!seen[h]) { seen[h] = 1; order.push(h); } }
return [order.length, document.getElementsByTagName('*').length];
})()`

// scrollKeep notes the links the page has now and adds those it showed before
// and has no more, in one hidden element; it answers how many it added.
const scrollKeep = `(function(){
var seen = window.__ccLinks || {}, order = window.__ccOrder || [], now = {};
var as = document.querySelectorAll('a[href]');
for (var i = 0; i < as.length; i++) { now[as[i].href] = 1; }
var box = null, n = 0;
for (var j = 0; j < order.length; j++) {
  if (now[order[j]]) continue;
  if (!box) { box = document.createElement('div'); box.hidden = true; box.setAttribute('` + scrollKeptAttr + `', ''); document.body.appendChild(box); }
  var a = document.createElement('a'); a.href = order[j]; box.appendChild(a); n++;
}
return n;
})()`

// scroll takes up to steps scroll steps in the settled page, each followed by a
// settle. It returns the steps taken and why it stopped early: "" when it took
// them all or a step added nothing; an error from the settle (the render's cap)
// when the page was still busy.
func (t *tab) scroll(ctx context.Context, r *run, steps int, settle func(context.Context) error) (taken int, err error) {
	for taken < steps {
		before, err := chromedp.Run(ctx, chromedp.Evaluate[[]int64](scrollStep))
		if err != nil {
			return taken, err
		}
		taken++
		if err := settle(ctx); err != nil {
			return taken, err
		}
		after, err := chromedp.Run(ctx, chromedp.Evaluate[[]int64](scrollNote))
		if err != nil {
			return taken, err
		}
		if len(before) < 2 || len(after) < 2 || (after[0] == before[0] && after[1] == before[1]) {
			break // the step showed no new link nor element: the end of the results
		}
	}
	return taken, nil
}

// keepScrolled adds to the page the links its steps saw and it removed since.
func keepScrolled(ctx context.Context) (int, error) {
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](scrollKeep))
	if err != nil {
		return 0, fmt.Errorf("render: keeping the links seen while scrolling: %w", err)
	}
	return n, nil
}
