package egress

import (
	"net/http"
	"strconv"
	"testing"
	"time"
)

// BenchmarkPickReport: the rotation's cost per fetch (one Pick and one Report) on a
// node with 4 egresses, 1,000 hosts and 5% refusals.
func BenchmarkPickReport(b *testing.B) {
	var specs []string
	for i := 1; i <= 4; i++ {
		specs = append(specs, "bind:10.0.0."+strconv.Itoa(i))
	}
	parsed, _ := ParseSpecs(specs)
	table, _ := OpenTable(nil, parsed)
	clk := &fakeClock{now: t0}
	r := NewRotation(RotationConfig{Now: clk.Now, PerNode: 4}, table)
	hosts := make([]string, 1000)
	for i := range hosts {
		hosts[i] = "h" + strconv.Itoa(i) + ".test"
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		clk.advance(time.Millisecond)
		h := hosts[i%len(hosts)]
		d := r.Pick(h)
		if d.Action != Fetch {
			continue
		}
		v := okVerdict
		if i%20 == 0 {
			v = ban("403")
		}
		r.Report(d.Egress, h, v)
	}
}

// BenchmarkClassify: classifying an ordinary 200 page (keyword scan of a 4 KiB
// prefix plus the size statistics).
func BenchmarkClassify(b *testing.B) {
	c := NewClassifier(nil)
	body := make([]byte, 4096)
	for i := range body {
		body[i] = "abcdefgh ijklmn <p>"[i%19]
	}
	resp := Response{Host: "news.test", Status: 200, Header: http.Header{"Content-Type": {"text/html"}}, Body: body, BodyLen: 20000}
	b.ReportAllocs()
	for b.Loop() {
		c.Classify(resp)
	}
}
