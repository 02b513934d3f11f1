package cli

import (
	"errors"
	"fmt"
	"net"
	"syscall"

	"github.com/crawlconsole/crawlconsole/engine/egress"
)

// bindNotLocal says which bind: egress names an address this machine does not have,
// before a crawl starts on it: every connection from it fails (bind: cannot assign
// requested address), so each site's robots.txt is unreachable and the crawl ends
// with "nothing was fetched: robots_unreachable", nothing saying why. A master's
// egresses are its workers' and are not checked here.
func bindNotLocal(specs []string) error {
	list, err := egress.ParseSpecs(specs)
	if err != nil {
		return nil // the engine says what is wrong with the spec itself
	}
	for _, s := range list {
		if s.Kind != egress.KindBind {
			continue
		}
		l, err := net.Listen("tcp", net.JoinHostPort(s.Address, "0"))
		if err == nil {
			l.Close()
			continue
		}
		if errors.Is(err, syscall.EADDRNOTAVAIL) {
			return fmt.Errorf("egress bind:%s: %s is not an address of this machine, so no request can leave from it; give one it has (ip -br addr lists them)", s.Address, s.Address)
		}
	}
	return nil
}
