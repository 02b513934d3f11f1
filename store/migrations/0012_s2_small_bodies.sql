-- 0012_s2_small_bodies: page and capture bodies under 8 KiB may now be S2 blocks
-- behind their CRC-32C (body_codec 3). No table changes: the version bump is the
-- point. A crawlconsole that knows only versions up to 11 cannot decode codec 3
-- bodies, so it must refuse this database with its "schema is newer" error instead
-- of failing on every page read.
INSERT INTO meta(key, value) VALUES('store.body_codecs', '0 raw, 1 zlib, 2 zstd, 3 s2')
    ON CONFLICT(key) DO UPDATE SET value = excluded.value;
