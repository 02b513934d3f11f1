package sandbox

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// The search pages are a social site's search results, built by script a page
// of SearchPageSize results at a time, SearchPages pages in all:
//
//   - /search/more shows the first page and a "Load more" button that appends
//     the next page (/api/search?p=N) under it, until there is none.
//   - /search/scroll loads the next page when the reader scrolls to the bottom,
//     and, as the virtual lists of social sites do, keeps only the newest page
//     in the DOM: the results seen before are gone from it.
//
// Result i links to /r/i, a plain page. A render that takes no step sees only
// the first page; one that takes SearchPages-1 steps has seen every result.
const (
	SearchPages    = 4
	SearchPageSize = 5
)

// SearchTruth are the result links a reader who scrolled to the end has seen.
func SearchTruth() []string {
	var out []string
	for i := 0; i < SearchPages*SearchPageSize; i++ {
		out = append(out, "/r/"+strconv.Itoa(i))
	}
	return out
}

func searchPages(w http.ResponseWriter, r *http.Request) {
	switch p := r.URL.Path; {
	case p == "/api/search":
		n, _ := strconv.Atoi(r.URL.Query().Get("p"))
		var items []map[string]string
		if n >= 0 && n < SearchPages {
			for i := n * SearchPageSize; i < (n+1)*SearchPageSize; i++ {
				items = append(items, map[string]string{"url": "/r/" + strconv.Itoa(i), "title": fmt.Sprintf("Post %d", i)})
			}
		}
		writeJSON(w, map[string]any{"items": items, "more": n+1 < SearchPages})
	case p == "/search/more" || p == "/search/scroll":
		mode := strings.TrimPrefix(p, "/search/")
		spaPage(w, http.StatusOK, `<h1>Search results</h1><div id="root" style="min-height:120vh"></div><noscript>This site needs JavaScript.</noscript>
<script id="__INITIAL_STATE__" type="application/json">{"view":"search"}</script><script>`+searchJS(mode)+`</script>`)
	case strings.HasPrefix(p, "/r/"):
		spaPage(w, http.StatusOK, `<article><h1>Post `+strings.TrimPrefix(p, "/r/")+`</h1><p>A post found by search.</p></article>`)
	default:
		http.NotFound(w, r)
	}
}

func searchJS(mode string) string {
	return `(function(){
var mode = '` + mode + `', next = 0, busy = false, more = true, root = document.getElementById('root');
function load(){
  if (busy || !more) return; busy = true;
  fetch('/api/search?p=' + next).then(function(r){ return r.json(); }).then(function(d){
    var ul = document.createElement('ul'); ul.style.minHeight = '120vh';
    d.items.forEach(function(it){ var li = document.createElement('li'), a = document.createElement('a'); a.href = it.url; a.textContent = it.title; li.appendChild(a); ul.appendChild(li); });
    if (mode === 'scroll') { root.innerHTML = ''; }
    root.appendChild(ul);
    next++; more = d.more; busy = false;
    if (mode === 'more') {
      var b = document.getElementById('more'); if (b) b.remove();
      if (more) { b = document.createElement('button'); b.id = 'more'; b.textContent = 'Load more'; b.onclick = load; root.appendChild(b); }
    }
  });
}
if (mode === 'scroll') {
  window.addEventListener('scroll', function(){ if (window.innerHeight + window.scrollY >= document.body.scrollHeight - 50) load(); });
}
load();
})();`
}
