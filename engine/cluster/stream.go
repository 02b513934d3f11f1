package cluster

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// EnsureStream creates the stream, or updates it to cfg if it exists; calling it again
// with the same cfg changes nothing. Fields a 2.9 server would not honour are refused
// (see the package doc).
func (c *Conn) EnsureStream(ctx context.Context, cfg jetstream.StreamConfig) (jetstream.Stream, error) {
	if err := streamCompat29(cfg); err != nil {
		return nil, err
	}
	s, err := c.JS.CreateOrUpdateStream(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("cluster: set up stream %s: %w", cfg.Name, jsHint(err))
	}
	return s, nil
}

// EnsureConsumer creates the durable (or named) pull consumer on stream, or updates it
// to cfg; only one FilterSubject, as 2.9 allows.
func (c *Conn) EnsureConsumer(ctx context.Context, stream string, cfg jetstream.ConsumerConfig) (jetstream.Consumer, error) {
	if err := consumerCompat29(cfg); err != nil {
		return nil, err
	}
	cons, err := c.JS.CreateOrUpdateConsumer(ctx, stream, cfg)
	if err != nil {
		name := cfg.Durable
		if name == "" {
			name = cfg.Name
		}
		return nil, fmt.Errorf("cluster: set up consumer %s on stream %s: %w", name, stream, jsHint(err))
	}
	return cons, nil
}

// jsHint adds what to do when the server has no JetStream at all.
func jsHint(err error) error {
	if errors.Is(err, jetstream.ErrJetStreamNotEnabled) || errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount) {
		return fmt.Errorf("%w (the master's NATS server must run with JetStream: nats-server -js -sd DIR)", err)
	}
	return err
}

// errNewer names a field that needs a newer server than 2.9.
func errNewer(kind, field, version string) error {
	return fmt.Errorf("cluster: %s field %s needs nats-server %s; crawlconsole keeps to 2.9 (see package cluster)", kind, field, version)
}

// streamCompat29 refuses stream fields that nats-server 2.9 lacks and would ignore.
func streamCompat29(cfg jetstream.StreamConfig) error {
	checks := []struct {
		set            bool
		field, version string
	}{
		{cfg.Compression != jetstream.NoCompression, "Compression", "2.10"},
		{cfg.FirstSeq != 0, "FirstSeq", "2.10"},
		{cfg.SubjectTransform != nil, "SubjectTransform", "2.10"},
		{len(cfg.Metadata) > 0, "Metadata", "2.10"},
		{cfg.ConsumerLimits != (jetstream.StreamConsumerLimits{}), "ConsumerLimits", "2.10"},
		{sourcesTransform(cfg), "Sources/Mirror SubjectTransforms", "2.10"},
		{cfg.AllowMsgTTL, "AllowMsgTTL", "2.11"},
		{cfg.SubjectDeleteMarkerTTL != 0, "SubjectDeleteMarkerTTL", "2.11"},
		{cfg.AllowMsgCounter, "AllowMsgCounter", "2.12"},
		{cfg.AllowAtomicPublish, "AllowAtomicPublish", "2.12"},
		{cfg.AllowMsgSchedules, "AllowMsgSchedules", "2.12"},
		{cfg.PersistMode != jetstream.DefaultPersistMode, "PersistMode", "2.12"},
		{cfg.AllowBatchPublish, "AllowBatchPublish", "2.12"},
	}
	for _, c := range checks {
		if c.set {
			return errNewer("stream "+cfg.Name, c.field, c.version)
		}
	}
	return nil
}

// sourcesTransform reports whether a mirror or source uses subject transforms (2.10).
func sourcesTransform(cfg jetstream.StreamConfig) bool {
	if cfg.Mirror != nil && len(cfg.Mirror.SubjectTransforms) > 0 {
		return true
	}
	for _, s := range cfg.Sources {
		if s != nil && len(s.SubjectTransforms) > 0 {
			return true
		}
	}
	return false
}

// consumerCompat29 refuses consumer fields that nats-server 2.9 lacks and would ignore.
func consumerCompat29(cfg jetstream.ConsumerConfig) error {
	checks := []struct {
		set            bool
		field, version string
	}{
		{len(cfg.FilterSubjects) > 0, "FilterSubjects (use one FilterSubject)", "2.10"},
		{len(cfg.Metadata) > 0, "Metadata", "2.10"},
		{cfg.PauseUntil != nil, "PauseUntil", "2.11"},
		{cfg.PriorityPolicy != jetstream.PriorityPolicyNone, "PriorityPolicy", "2.11"},
		{len(cfg.PriorityGroups) > 0, "PriorityGroups", "2.11"},
		{cfg.PinnedTTL != 0, "PinnedTTL", "2.11"},
	}
	for _, c := range checks {
		if c.set {
			return errNewer("consumer "+cfg.Durable+cfg.Name, c.field, c.version)
		}
	}
	return nil
}
