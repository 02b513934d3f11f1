package cli

import (
	"fmt"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/egress"
)

// bindNotLocal says which bind: egress names an address this machine does not have
// (or a link-local one it cannot bind without a zone), before a crawl starts on it
// (egress.Spec.CheckBind). A master's egresses are its workers' and are not checked
// here.
func bindNotLocal(specs []string) error {
	list, err := egress.ParseSpecs(specs)
	if err != nil {
		return nil // the engine says what is wrong with the spec itself
	}
	for _, s := range list {
		if err := s.CheckBind(); err != nil {
			return err
		}
	}
	return nil
}

// proxyWarnings dials each proxy egress once (at most proxyCheckWait, all at once)
// and returns a warning for each that does not answer now: its lanes would fault and
// rotate to the other egresses until it does, and the operator would learn it only
// from the rotation's log. A proxy may come up later: a warning, not a refusal.
func proxyWarnings(specs []string) []string {
	list, err := egress.ParseSpecs(specs)
	if err != nil {
		return nil // the engine says what is wrong with the spec itself
	}
	warnings := make([]string, len(list))
	var wg sync.WaitGroup
	for i, s := range list {
		if s.Kind != egress.KindHTTP && s.Kind != egress.KindSOCKS5 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.DialTimeout("tcp", s.Address, proxyCheckWait)
			if err != nil {
				warnings[i] = fmt.Sprintf("egress %s (%s): the proxy does not answer now (%v): its lanes fault and the crawl rotates to the other egresses until it does", s.Name, s.Masked(), err)
				return
			}
			c.Close()
		}()
	}
	wg.Wait()
	return slices.DeleteFunc(warnings, func(w string) bool { return w == "" })
}

// proxyCheckWait bounds the start-up dial of a proxy egress.
const proxyCheckWait = 2 * time.Second
