-- 0004_zstd_bodies: page bodies may now be zstd-compressed (pages.body_codec 2; 0 raw,
-- 1 zlib, still read). No table changes: the version bump is the point. A crawlconsole
-- that knows only versions up to 3 cannot decode codec 2 bodies, so it must refuse
-- this database with its "schema is newer" error instead of failing on every page read.
INSERT INTO meta(key, value) VALUES('store.body_codecs', '0 raw, 1 zlib, 2 zstd')
    ON CONFLICT(key) DO UPDATE SET value = excluded.value;
