-- A get reads every slice of its key and every input stamp of each slice:
-- for a 2,000-slice repo map, 4,000 rows through the driver, most of the
-- get. A pack keeps those rows of one (repo, type, key) in one compressed
-- value, valid only while its gen equals artifact_gens', which the
-- triggers below bump on every change to the key's artifacts rows or to
-- their inputs (artifact_deps), whatever writes them: a pack can be unused,
-- never stale. A bump also drops the key's pack, so none lingers.
CREATE TABLE artifact_gens (
  repo TEXT NOT NULL,
  type TEXT NOT NULL,
  key  TEXT NOT NULL,
  gen  INTEGER NOT NULL,
  PRIMARY KEY (repo, type, key)
) STRICT;
CREATE TABLE artifact_packs (
  repo   TEXT NOT NULL,
  type   TEXT NOT NULL,
  key    TEXT NOT NULL,
  gen    INTEGER NOT NULL,  -- the artifact_gens gen the rows were read at
  format INTEGER NOT NULL,  -- the encoding of data; another is not read
  data   BLOB NOT NULL,
  PRIMARY KEY (repo, type, key)
) STRICT;

-- Every key stored before has a gen, so a pack is only ever kept for a key
-- whose changes are counted.
INSERT INTO artifact_gens (repo, type, key, gen) SELECT DISTINCT repo, type, key, 1 FROM artifacts;

CREATE TRIGGER artifacts_gen_ins AFTER INSERT ON artifacts BEGIN
  INSERT INTO artifact_gens (repo, type, key, gen) VALUES (NEW.repo, NEW.type, NEW.key, 1)
    ON CONFLICT(repo, type, key) DO UPDATE SET gen = gen + 1;
  DELETE FROM artifact_packs WHERE repo = NEW.repo AND type = NEW.type AND key = NEW.key;
END;
CREATE TRIGGER artifacts_gen_upd AFTER UPDATE ON artifacts BEGIN
  INSERT INTO artifact_gens (repo, type, key, gen) VALUES (OLD.repo, OLD.type, OLD.key, 1)
    ON CONFLICT(repo, type, key) DO UPDATE SET gen = gen + 1;
  INSERT INTO artifact_gens (repo, type, key, gen) VALUES (NEW.repo, NEW.type, NEW.key, 1)
    ON CONFLICT(repo, type, key) DO UPDATE SET gen = gen + 1;
  DELETE FROM artifact_packs WHERE repo = OLD.repo AND type = OLD.type AND key = OLD.key;
  DELETE FROM artifact_packs WHERE repo = NEW.repo AND type = NEW.type AND key = NEW.key;
END;
CREATE TRIGGER artifacts_gen_del AFTER DELETE ON artifacts BEGIN
  INSERT INTO artifact_gens (repo, type, key, gen) VALUES (OLD.repo, OLD.type, OLD.key, 1)
    ON CONFLICT(repo, type, key) DO UPDATE SET gen = gen + 1;
  DELETE FROM artifact_packs WHERE repo = OLD.repo AND type = OLD.type AND key = OLD.key;
END;

-- An input row names its artifact by id. When the artifact row is already
-- gone (a cascade from its deletion), that deletion has bumped the key.
CREATE TRIGGER artifact_deps_gen_ins AFTER INSERT ON artifact_deps BEGIN
  INSERT INTO artifact_gens (repo, type, key, gen) SELECT repo, type, key, 1 FROM artifacts WHERE id = NEW.artifact_id
    ON CONFLICT(repo, type, key) DO UPDATE SET gen = gen + 1;
  DELETE FROM artifact_packs WHERE (repo, type, key) IN (SELECT repo, type, key FROM artifacts WHERE id = NEW.artifact_id);
END;
CREATE TRIGGER artifact_deps_gen_upd AFTER UPDATE ON artifact_deps BEGIN
  INSERT INTO artifact_gens (repo, type, key, gen) SELECT repo, type, key, 1 FROM artifacts WHERE id IN (OLD.artifact_id, NEW.artifact_id)
    ON CONFLICT(repo, type, key) DO UPDATE SET gen = gen + 1;
  DELETE FROM artifact_packs WHERE (repo, type, key) IN (SELECT repo, type, key FROM artifacts WHERE id IN (OLD.artifact_id, NEW.artifact_id));
END;
CREATE TRIGGER artifact_deps_gen_del AFTER DELETE ON artifact_deps BEGIN
  INSERT INTO artifact_gens (repo, type, key, gen) SELECT repo, type, key, 1 FROM artifacts WHERE id = OLD.artifact_id
    ON CONFLICT(repo, type, key) DO UPDATE SET gen = gen + 1;
  DELETE FROM artifact_packs WHERE (repo, type, key) IN (SELECT repo, type, key FROM artifacts WHERE id = OLD.artifact_id);
END;
