package plural

import "testing"

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n         int
		one, many string
		want      string
	}{
		{1, "site", "", "1 site"},
		{2, "site", "", "2 sites"},
		{0, "lane", "", "0 lanes"},
		{1, "try", "", "1 try"},
		{3, "try", "", "3 tries"},
		{2, "day", "", "2 days"},
		{2, "egress", "", "2 egresses"},
		{2, "match", "", "2 matches"},
		{1, "site/keyword shard", "sites/keyword shards", "1 site/keyword shard"},
		{4, "site/keyword shard", "sites/keyword shards", "4 sites/keyword shards"},
	} {
		var got string
		if c.many != "" {
			got = Count(c.n, c.one, c.many)
		} else {
			got = Count(c.n, c.one)
		}
		if got != c.want {
			t.Errorf("Count(%d, %q, %q) = %q; want %q", c.n, c.one, c.many, got, c.want)
		}
	}
}
