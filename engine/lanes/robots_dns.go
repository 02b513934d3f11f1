package lanes

// dnsGivesUp reports whether a site whose robots.txt got no answer because its
// name did not resolve fails as dns now: at once for a final answer (NXDOMAIN,
// no address: asking again gives the same), after fetch.retries more tries with
// robots.txt's back-off for a failure that may pass (SERVFAIL, REFUSED, timeout).
// Without this its URLs would wait for robots.txt forever.
func (r *Runner) dnsGivesUp(final bool, origin string) bool {
	return final || r.Robots.Failures(origin) > r.Opts.Fetch.Retries
}
