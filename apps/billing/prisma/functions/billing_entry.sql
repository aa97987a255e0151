-- A ledger entry as a value, for functions that collect entries and write them in one statement
-- (DIEM entries carry their epoch, USD ones none).
CREATE FUNCTION "billing_entry"(p_account uuid, p_currency "currency", p_kind "ledger_kind", p_amount bigint, p_epoch date, p_reservation uuid)
RETURNS "billing_entry" LANGUAGE sql IMMUTABLE AS $$
  SELECT ROW(p_account, p_currency, p_kind, p_amount, CASE WHEN p_currency = 'DIEM' THEN p_epoch END, p_reservation)::"billing_entry"
$$;
