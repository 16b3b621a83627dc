-- What a client that keeps its own conversation tree (pi) calls the point
-- of it a read-cache entry stands for: the tool call whose result carried
-- the entry's answer. The client names its position by this key, which
-- stays right when the store is made anew (the ids start again), and
-- freshctx follows it (readcache.Follow).
CREATE TABLE rc_client_keys (
	session TEXT NOT NULL,
	key     TEXT NOT NULL,
	entry   INTEGER NOT NULL,
	PRIMARY KEY (session, key)
) WITHOUT ROWID;
