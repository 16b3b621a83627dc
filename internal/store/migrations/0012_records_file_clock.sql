-- The start of a record's command by the clock the kernel stamps files
-- with (unix ns), which may lag started_at by up to a timer tick: a file
-- the command wrote in its first tick can carry a time before started_at.
-- The input scope's walk counts changes from it. 0 for records made
-- before it was kept: their walk counts from started_at.
ALTER TABLE records ADD COLUMN file_clock_start INTEGER NOT NULL DEFAULT 0;
