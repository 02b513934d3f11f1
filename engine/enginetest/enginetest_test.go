package enginetest_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/enginetest"
)

// TestATestsBloomFilterSizeIsTheOneItSets: a test crawl's filter is sized for a
// test's web unless the test sets its own, the product's default included (a test
// measuring the default's filter gets it).
func TestATestsBloomFilterSizeIsTheOneItSets(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body>one page</body></html>")
	}))
	defer srv.Close()
	product := config.DefaultOptions().Dedupe.ExpectedURLs
	for _, tc := range []struct {
		name string
		set  func(*config.Options)
		want uint
	}{
		{"unset", func(*config.Options) {}, enginetest.TestWebURLs},
		{"the product's default", func(o *config.Options) { o.Dedupe.ExpectedURLs = product }, product},
		{"another", func(o *config.Options) { o.Dedupe.ExpectedURLs = 5000 }, 5000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := enginetest.DefaultOptions()
			o.Seeds = []string{srv.URL + "/"}
			o.DB = filepath.Join(t.TempDir(), "crawl.db")
			o.AllowPrivate = []string{"127.0.0.0/8"}
			tc.set(&o)
			e := enginetest.Start(t, o)
			d := e.Stats().Dedupe
			if d == nil {
				t.Fatal("the crawl's stats have no Bloom filter")
			}
			if d.ExpectedURLs != tc.want {
				t.Fatalf("the crawl's Bloom filter is sized for %d URLs; want %d", d.ExpectedURLs, tc.want)
			}
		})
	}
}
