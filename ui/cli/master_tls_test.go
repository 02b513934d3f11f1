package cli

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster/clustertest"
	"github.com/crawlconsole/crawlconsole/ui/internal/uitest"
)

// A master serving TLS with a certificate from a private CA starts without --ca
// (its own connection trusts the certificate it serves; it exited 2 with "a
// certificate this machine does not trust"), and the join and attach lines it
// prints say the others need --ca.
func TestTLSMasterStartsWithoutItsCA(t *testing.T) {
	t.Parallel() // its own site, certificates, store and ports
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html>hi</html>`)
	}))
	defer site.Close()
	pki := clustertest.NewPKI(t)
	dir := t.TempDir()
	var stderr strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	code := runMaster(ctx, []string{"--headless", "--duration", "300ms", "--db", filepath.Join(dir, "m.db"),
		"--listen", uitest.FreeAddr(t), "--tls-cert", pki.CertFile, "--tls-key", pki.KeyFile,
		"--allow-private", "127.0.0.0/8", site.URL + "/"}, &strings.Builder{}, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, want := range []string{"worker --join tls://", "console --attach tls://", " --ca CA.pem; CA.pem: the CA that signed " + pki.CertFile} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
}
