-- The ledger is append-only: corrections are new entries, never edits.
CREATE FUNCTION "ledger_entries_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger_entries is append-only: add a correcting entry instead';
END
$$;
