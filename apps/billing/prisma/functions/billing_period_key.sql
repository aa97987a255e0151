-- The key_usage window of a limit period on a UTC day: D:YYYY-MM-DD, M:YYYY-MM or L.
CREATE FUNCTION "billing_period_key"(p_period text, p_day date) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE p_period WHEN 'EPOCH' THEN 'D:' || to_char(p_day, 'YYYY-MM-DD') WHEN 'MONTH' THEN 'M:' || to_char(p_day, 'YYYY-MM') ELSE 'L' END
$$;
