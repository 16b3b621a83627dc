-- The scan index is patched after a write, not rebuilt: while a root has
-- one, every change to its rows and watched paths names the path here
-- with the gen the change made (the same triggers that count gen). A
-- reader takes the index and reads again only the rows of the paths named
-- since its gen; an index is saved only when no write came between the
-- rows it was read from and its saving, and saving it drops the names it
-- already holds.
CREATE TABLE registry_scan_delta (
  root TEXT NOT NULL,
  path TEXT NOT NULL,
  gen  INTEGER NOT NULL,
  PRIMARY KEY (root, path)
) STRICT, WITHOUT ROWID;
DROP TRIGGER registry_files_gen_ins;
CREATE TRIGGER registry_files_gen_ins AFTER INSERT ON registry_files BEGIN
  INSERT INTO registry_gen (root, gen) VALUES (NEW.root, 1) ON CONFLICT(root) DO UPDATE SET gen = gen + 1;
  INSERT INTO registry_scan_delta (root, path, gen)
    SELECT NEW.root, NEW.path, gen FROM registry_gen WHERE root = NEW.root
      AND EXISTS (SELECT 1 FROM registry_scan WHERE root = NEW.root)
    ON CONFLICT(root, path) DO UPDATE SET gen = excluded.gen;
END;

DROP TRIGGER registry_files_gen_upd;
CREATE TRIGGER registry_files_gen_upd AFTER UPDATE ON registry_files BEGIN
  INSERT INTO registry_gen (root, gen) VALUES (NEW.root, 1) ON CONFLICT(root) DO UPDATE SET gen = gen + 1;
  INSERT INTO registry_scan_delta (root, path, gen)
    SELECT OLD.root, OLD.path, gen FROM registry_gen WHERE root = OLD.root
      AND EXISTS (SELECT 1 FROM registry_scan WHERE root = OLD.root)
    ON CONFLICT(root, path) DO UPDATE SET gen = excluded.gen;
  INSERT INTO registry_scan_delta (root, path, gen)
    SELECT NEW.root, NEW.path, gen FROM registry_gen WHERE root = NEW.root
      AND EXISTS (SELECT 1 FROM registry_scan WHERE root = NEW.root)
    ON CONFLICT(root, path) DO UPDATE SET gen = excluded.gen;
END;

DROP TRIGGER registry_files_gen_del;
CREATE TRIGGER registry_files_gen_del AFTER DELETE ON registry_files BEGIN
  INSERT INTO registry_gen (root, gen) VALUES (OLD.root, 1) ON CONFLICT(root) DO UPDATE SET gen = gen + 1;
  INSERT INTO registry_scan_delta (root, path, gen)
    SELECT OLD.root, OLD.path, gen FROM registry_gen WHERE root = OLD.root
      AND EXISTS (SELECT 1 FROM registry_scan WHERE root = OLD.root)
    ON CONFLICT(root, path) DO UPDATE SET gen = excluded.gen;
END;

DROP TRIGGER registry_gone_gen_ins;
CREATE TRIGGER registry_gone_gen_ins AFTER INSERT ON registry_gone BEGIN
  INSERT INTO registry_gen (root, gen) VALUES (NEW.root, 1) ON CONFLICT(root) DO UPDATE SET gen = gen + 1;
  INSERT INTO registry_scan_delta (root, path, gen)
    SELECT NEW.root, NEW.path, gen FROM registry_gen WHERE root = NEW.root
      AND EXISTS (SELECT 1 FROM registry_scan WHERE root = NEW.root)
    ON CONFLICT(root, path) DO UPDATE SET gen = excluded.gen;
END;

DROP TRIGGER registry_gone_gen_upd;
CREATE TRIGGER registry_gone_gen_upd AFTER UPDATE ON registry_gone BEGIN
  INSERT INTO registry_gen (root, gen) VALUES (NEW.root, 1) ON CONFLICT(root) DO UPDATE SET gen = gen + 1;
  INSERT INTO registry_scan_delta (root, path, gen)
    SELECT OLD.root, OLD.path, gen FROM registry_gen WHERE root = OLD.root
      AND EXISTS (SELECT 1 FROM registry_scan WHERE root = OLD.root)
    ON CONFLICT(root, path) DO UPDATE SET gen = excluded.gen;
  INSERT INTO registry_scan_delta (root, path, gen)
    SELECT NEW.root, NEW.path, gen FROM registry_gen WHERE root = NEW.root
      AND EXISTS (SELECT 1 FROM registry_scan WHERE root = NEW.root)
    ON CONFLICT(root, path) DO UPDATE SET gen = excluded.gen;
END;

DROP TRIGGER registry_gone_gen_del;
CREATE TRIGGER registry_gone_gen_del AFTER DELETE ON registry_gone BEGIN
  INSERT INTO registry_gen (root, gen) VALUES (OLD.root, 1) ON CONFLICT(root) DO UPDATE SET gen = gen + 1;
  INSERT INTO registry_scan_delta (root, path, gen)
    SELECT OLD.root, OLD.path, gen FROM registry_gen WHERE root = OLD.root
      AND EXISTS (SELECT 1 FROM registry_scan WHERE root = OLD.root)
    ON CONFLICT(root, path) DO UPDATE SET gen = excluded.gen;
END;
