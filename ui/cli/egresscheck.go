package cli

import "github.com/crawlconsole/crawlconsole/engine/egress"

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
