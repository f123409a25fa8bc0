-- How many public listings were created on each day, in UTC (listings_publiclistingday), kept
-- by PostgreSQL itself as the public listing groups are (public_listing_groups.sql):
-- statement-level triggers on the listings table add every written statement's changes in
-- that statement, whichever way listings are written. listings/search/days.py starts a deep
-- page of the public listings by creation date at its day; docs/architecture.md says how
-- the kept tables stay correct.
--
-- A listing counts while it is public: its `public` column (listings.models.Property).
--
-- Run by migrations (listings.search.days.install; listings/triggers.py says which): every
-- statement can run again, and the last ones rebuild the days from the listings.

-- The day a listing was created on, in UTC: the same in every session, whatever its time
-- zone. listings.search.days reads a day's listings as those created from its midnight
-- (UTC) to the next.
CREATE OR REPLACE FUNCTION listings_creation_day(created timestamptz) RETURNS date
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT (created AT TIME ZONE 'UTC')::date
$$;

-- Add a statement's inserted (+1), deleted (-1) or updated (both) public listings to their
-- days. Days are written in order, so that concurrent writers lock shared days in the same
-- order.
CREATE OR REPLACE FUNCTION listings_public_days_follow() RETURNS trigger
LANGUAGE plpgsql AS $function$
DECLARE
  changes text := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT new_rows.*, 1 AS change FROM new_rows'
    WHEN 'DELETE' THEN 'SELECT old_rows.*, -1 AS change FROM old_rows'
    ELSE 'SELECT new_rows.*, 1 AS change FROM new_rows'
      || ' UNION ALL SELECT old_rows.*, -1 AS change FROM old_rows'
  END;
BEGIN
  -- The transition tables exist only for their operations: the statement is made for each.
  EXECUTE format($insert$
    INSERT INTO listings_publiclistingday AS counted (day, listings)
    SELECT listings_creation_day(changed.created_at), sum(changed.change)
    FROM (%s) AS changed
    WHERE changed.public
    GROUP BY 1
    HAVING sum(changed.change) <> 0
    ORDER BY 1
    ON CONFLICT (day) DO UPDATE SET listings = counted.listings + EXCLUDED.listings
  $insert$, changes);
  RETURN NULL;
END
$function$;

-- TRUNCATE of the listings empties the days.
CREATE OR REPLACE FUNCTION listings_public_days_clear() RETURNS trigger
LANGUAGE plpgsql AS $function$
BEGIN
  DELETE FROM listings_publiclistingday;
  RETURN NULL;
END
$function$;

DROP TRIGGER IF EXISTS listings_public_days_insert ON listings_property;
CREATE TRIGGER listings_public_days_insert AFTER INSERT ON listings_property
  REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION listings_public_days_follow();

DROP TRIGGER IF EXISTS listings_public_days_update ON listings_property;
CREATE TRIGGER listings_public_days_update AFTER UPDATE ON listings_property
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION listings_public_days_follow();

DROP TRIGGER IF EXISTS listings_public_days_delete ON listings_property;
CREATE TRIGGER listings_public_days_delete AFTER DELETE ON listings_property
  REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION listings_public_days_follow();

DROP TRIGGER IF EXISTS listings_public_days_truncate ON listings_property;
CREATE TRIGGER listings_public_days_truncate AFTER TRUNCATE ON listings_property
  FOR EACH STATEMENT EXECUTE FUNCTION listings_public_days_clear();

-- Rebuild the days from the listings. The triggers above already hold a lock that keeps
-- writers of listings out until this commits.
DELETE FROM listings_publiclistingday;
INSERT INTO listings_publiclistingday (day, listings)
SELECT listings_creation_day(listing.created_at), count(*)
FROM listings_property AS listing
WHERE listing.public
GROUP BY 1;
