package cluster

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"

	"github.com/nats-io/nats.go"
)

// Unreachable tells whether err says the master is not there (yet): nothing accepts
// the connection, or nothing answers on the crawl's subjects. A worker waits for
// such a master; a refused credential, an untrusted certificate or an old server is
// no matter of waiting.
func Unreachable(err error) bool {
	var unknownCA x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalid x509.CertificateInvalidError
	var verify *tls.CertificateVerificationError
	if err == nil || errors.Is(err, ErrAuth) || errors.Is(err, nats.ErrSecureConnWanted) ||
		errors.As(err, &unknownCA) || errors.As(err, &hostErr) || errors.As(err, &invalid) || errors.As(err, &verify) {
		return false
	}
	var ne net.Error
	return errors.Is(err, nats.ErrNoServers) || errors.Is(err, nats.ErrNoResponders) || errors.Is(err, nats.ErrTimeout) ||
		errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne)
}
