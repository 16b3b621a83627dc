-- A registry's file count, kept by the triggers that count gen: a sync
-- says how many files the registry holds, and count(*) walked every page
-- of the table's smallest index (6 ms at 100,000 rows, more in a process
-- whose page cache is cold).
ALTER TABLE registry_gen ADD COLUMN files INTEGER NOT NULL DEFAULT 0;
INSERT INTO registry_gen (root, gen)
  SELECT DISTINCT root, 1 FROM registry_files WHERE root NOT IN (SELECT root FROM registry_gen);
UPDATE registry_gen SET files = (SELECT count(*) FROM registry_files f WHERE f.root = registry_gen.root);

DROP TRIGGER registry_files_gen_ins;
CREATE TRIGGER registry_files_gen_ins AFTER INSERT ON registry_files BEGIN
  INSERT INTO registry_gen (root, gen, files) VALUES (NEW.root, 1, 1)
    ON CONFLICT(root) DO UPDATE SET gen = gen + 1, files = files + 1;
  INSERT INTO registry_scan_delta (root, path, gen)
    SELECT NEW.root, NEW.path, gen FROM registry_gen WHERE root = NEW.root
      AND EXISTS (SELECT 1 FROM registry_scan WHERE root = NEW.root)
    ON CONFLICT(root, path) DO UPDATE SET gen = excluded.gen;
END;

DROP TRIGGER registry_files_gen_del;
CREATE TRIGGER registry_files_gen_del AFTER DELETE ON registry_files BEGIN
  INSERT INTO registry_gen (root, gen, files) VALUES (OLD.root, 1, 0)
    ON CONFLICT(root) DO UPDATE SET gen = gen + 1, files = files - 1;
  INSERT INTO registry_scan_delta (root, path, gen)
    SELECT OLD.root, OLD.path, gen FROM registry_gen WHERE root = OLD.root
      AND EXISTS (SELECT 1 FROM registry_scan WHERE root = OLD.root)
    ON CONFLICT(root, path) DO UPDATE SET gen = excluded.gen;
END;
