package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"

	"github.com/miekg/dns"
)

// `crawlconsole sandbox --corpus DIR` serves the real-world corpus of feeds and
// sitemaps (engine/discover/testdata/realworld) the way the realfeeds bench does,
// for an operator to crawl by hand: each publishing host's home page linking its
// feeds, its robots.txt naming its sitemaps, the documents at their published URLs
// with their Content-Types, every other path a small article page. A DNS server
// answers every name with 127.0.0.1 (the documents' hosts are real names, and an
// off-site item's host is served too), so the crawl needs --dns-server and
// --allow-private 127.0.0.0/8, as the bench's resolver and options do.

// realInfo is the one JSON line the corpus mode prints.
type realInfo struct {
	HTTP      string   `json:"http"`
	DNS       string   `json:"dns"`
	Port      int      `json:"port"`
	Corpus    string   `json:"corpus"`
	Documents int      `json:"documents"`
	Feeds     int      `json:"feeds"`
	Sitemaps  int      `json:"sitemaps"`
	Homes     []string `json:"homes"` // the seeds: every publishing host's home page
	HomesFile string   `json:"homes_file,omitempty"`
	Crawl     string   `json:"crawl"` // the command line that crawls it
}

// runRealCommand serves dir until ctx ends. homes, when set, is written with the
// home pages, one a line, for crawl --seeds.
func runRealCommand(ctx context.Context, dir, httpAddr, dnsAddr, homes string, stdout, stderr io.Writer) int {
	docs, err := LoadRealCorpus(dir)
	if err != nil {
		fmt.Fprintf(stderr, "crawlconsole sandbox: --corpus %s: %v (the corpus is engine/discover/testdata/realworld in the repository)\n", dir, err)
		return 2
	}
	w, err := StartRealWebOn(httpAddr, dir, docs)
	if err != nil {
		return realListenFailed(err, stderr)
	}
	defer w.Close()
	pc, ln, err := listenDNS(dnsAddr)
	if err != nil {
		return realListenFailed(err, stderr)
	}
	udp := &dns.Server{PacketConn: pc, Handler: dns.HandlerFunc(answerLoopback)}
	tcp := &dns.Server{Listener: ln, Handler: dns.HandlerFunc(answerLoopback)}
	go udp.ActivateAndServe() //nolint:errcheck // returns on shutdown
	go tcp.ActivateAndServe() //nolint:errcheck // returns on shutdown
	defer func() {
		c, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		udp.ShutdownContext(c) //nolint:errcheck // best effort on close
		tcp.ShutdownContext(c) //nolint:errcheck // best effort on close
	}()
	info := realInfo{HTTP: w.Addr(), DNS: pc.LocalAddr().String(), Port: w.port, Corpus: dir,
		Documents: len(docs), Homes: w.Homes()}
	for _, d := range docs {
		if d.IsFeed() {
			info.Feeds++
		} else {
			info.Sitemaps++
		}
	}
	seeds := "FILE"
	if homes != "" {
		if err := os.WriteFile(homes, []byte(strings.Join(info.Homes, "\n")+"\n"), 0o644); err != nil {
			fmt.Fprintf(stderr, "crawlconsole sandbox: --homes: %v\n", err)
			return 1
		}
		info.HomesFile, seeds = homes, homes
	} else {
		// The crawl command below names a file the operator has not got yet.
		fmt.Fprintln(stderr, "crawlconsole sandbox: the crawl command's --seeds FILE is the home pages, one a line: "+
			"start the sandbox with --homes FILE to have them written there")
	}
	info.Crawl = fmt.Sprintf("crawlconsole crawl --seeds %s --dns-server %s --allow-private 127.0.0.0/8 --db real.db", seeds, info.DNS)
	line, err := json.Marshal(info)
	if err != nil {
		fmt.Fprintf(stderr, "crawlconsole sandbox: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, string(line))
	<-ctx.Done()
	return 0
}

func realListenFailed(err error, stderr io.Writer) int {
	var inUse *AddrInUseError
	if errors.As(err, &inUse) {
		flagName := map[string]string{"HTTP": "--http", "DNS (UDP)": "--dns", "DNS (TCP)": "--dns"}[inUse.Listener]
		fmt.Fprintf(stderr, "crawlconsole sandbox: %s %s: address already in use; choose another port, or port 0 for a free one\n", flagName, inUse.Addr)
		return 1
	}
	fmt.Fprintf(stderr, "crawlconsole sandbox: %v\n", err)
	return 1
}

// answerLoopback answers an A question with 127.0.0.1 whatever the name, and any
// other type with no records: every host of the corpus is served by the one server.
func answerLoopback(rw dns.ResponseWriter, req *dns.Msg) {
	m := new(dns.Msg)
	m.SetReply(req)
	m.Authoritative = true
	if len(req.Question) == 1 && req.Question[0].Qtype == dns.TypeA {
		q := req.Question[0]
		m.Answer = append(m.Answer, &dns.A{Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: 300},
			A: net.IPv4(127, 0, 0, 1)})
	}
	rw.WriteMsg(m) //nolint:errcheck // the client may be gone
}
