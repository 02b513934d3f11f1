package export

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/nlnwa/gowarc/v3"
)

// recordSink is where records go: rotated files in a directory, or one stream.
type recordSink interface {
	write(recs ...gowarc.WarcRecord) error
	close(failed bool) ([]string, error)
	infos() int // warcinfo records written
}

// fileSink writes rotated files through gowarc's WarcFileWriter: each file is
// written under a ".open" name and renamed when complete, starts with a warcinfo
// record, and every record is its own gzip member.
type fileSink struct {
	w      *gowarc.WarcFileWriter
	dir    string
	files  []string
	nInfos int
	last   string // the file the last write went to
}

func newFileSink(o WARCOptions, info func(gowarc.WarcRecordBuilder) error) (*fileSink, error) {
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, err
	}
	s := &fileSink{dir: o.Dir}
	s.w = gowarc.NewWarcFileWriter(
		gowarc.WithFileNameGenerator(&fileNames{dir: o.Dir, prefix: o.Prefix}),
		gowarc.WithMaxFileSize(o.MaxSize),
		gowarc.WithCompression(true),
		gowarc.WithAddWarcConcurrentToHeader(true),
		gowarc.WithWarcInfoFunc(info),
		gowarc.WithRecordOptions(recordOptions()...),
		gowarc.WithAfterFileCreationHook(func(name string, _ int64, _ string) error {
			s.files = append(s.files, name)
			s.nInfos++
			return nil
		}),
	)
	return s, nil
}

func (s *fileSink) write(recs ...gowarc.WarcRecord) error {
	for _, r := range s.w.Write(recs...) {
		s.last = filepath.Join(s.dir, r.FileName) // the hook below gets the same path
		if r.Err != nil {
			return fmt.Errorf("writing %s: %w", s.last, r.Err)
		}
	}
	return nil
}

func (s *fileSink) close(failed bool) ([]string, error) {
	err := s.w.Close()
	if failed && s.last != "" {
		// The file a write failed in may end in half a record: it goes. The files
		// rotated before it are whole.
		os.Remove(s.last)
		for i, f := range s.files {
			if f == s.last {
				s.files = append(s.files[:i], s.files[i+1:]...)
				break
			}
		}
	}
	return s.files, err
}

func (s *fileSink) infos() int { return s.nInfos }

// fileNames names files as WARC 1.1 annex C suggests, prefix-timestamp-serial, without
// the host name or address (gowarc's default pattern looks up the box's outbound
// address, and an export needs no network).
type fileNames struct {
	dir    string
	prefix string
	serial atomic.Int32
}

// NewWarcfileName implements gowarc.WarcFileNameGenerator.
// A name an earlier export in the same second took is passed over: a second export
// into the same directory (a --since export after a full one) replaced the first's
// file of the same serial.
func (g *fileNames) NewWarcfileName() (string, string) {
	for {
		n := g.serial.Add(1)
		ts := time.Now().UTC().Format("20060102150405")
		name := fmt.Sprintf("%s-%s-%05d.warc", g.prefix, ts, n)
		if !exists(filepath.Join(g.dir, name)) && !exists(filepath.Join(g.dir, name+".gz")) {
			return g.dir, name
		}
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// streamSink writes one stream (--out -): a warcinfo record, then the records, each
// its own gzip member, through gowarc's marshaler.
type streamSink struct {
	w      io.Writer
	m      gowarc.Marshaler
	gz     *gzip.Writer
	infoID string
}

func newStreamSink(w io.Writer, info func(gowarc.WarcRecordBuilder) error) (*streamSink, error) {
	s := &streamSink{w: w, m: gowarc.NewMarshaler(), gz: gzip.NewWriter(nil)}
	rb := gowarc.NewRecordBuilder(gowarc.Warcinfo, recordOptions()...)
	rb.AddWarcHeaderTime(gowarc.WarcDate, time.Now().UTC())
	rb.AddWarcHeader(gowarc.ContentType, gowarc.ApplicationWarcFields)
	if err := info(rb); err != nil {
		return nil, err
	}
	rec, err := build(rb)
	if err != nil {
		return nil, err
	}
	s.infoID = rec.WarcHeader().GetId(gowarc.WarcRecordID)
	return s, s.one(rec)
}

func (s *streamSink) one(r gowarc.WarcRecord) error {
	defer r.Close()
	s.gz.Reset(s.w)
	if _, _, err := s.m.Marshal(s.gz, r, 0); err != nil {
		return err
	}
	return s.gz.Close()
}

func (s *streamSink) write(recs ...gowarc.WarcRecord) error {
	for i, r := range recs {
		r.WarcHeader().SetId(gowarc.WarcWarcinfoID, s.infoID)
		for j, o := range recs {
			if i != j {
				r.WarcHeader().AddId(gowarc.WarcConcurrentTo, o.WarcHeader().GetId(gowarc.WarcRecordID))
			}
		}
	}
	for _, r := range recs {
		if err := s.one(r); err != nil {
			return err
		}
	}
	return nil
}

func (s *streamSink) close(bool) ([]string, error) { return nil, nil }
func (s *streamSink) infos() int                   { return 1 }
