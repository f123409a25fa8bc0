-- The towns with public listings and how many each has (listings_place), for the search
-- box's suggestions (listings/places.py), kept by PostgreSQL itself as the public listing
-- groups are (public_listing_groups.sql): statement-level triggers on the listings table add
-- every written statement's changes in that statement, whichever way listings are written.
-- docs/architecture.md says how they stay correct.
--
-- A listing counts while it is public: its `public` column (listings.models.Property).
--
-- Run by migrations (listings.places.install; listings/triggers.py says which): every
-- statement can run again, and the last ones rebuild the places from the listings.

-- A town's name as typed text is compared with it: without accents, lowercased (unaccent
-- first: lower() of an accented capital depends on the database's locale, unaccent() does
-- not). listings.places.folded is the same in Python.
CREATE OR REPLACE FUNCTION listings_place_folded(town text) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT lower(unaccent(town))
$$;

-- Add a statement's inserted (+1), deleted (-1) or updated (both) public listings to their
-- towns. A new town takes the spelling of its first listing in the statement (oldest first);
-- a known town keeps its own. A town is LOWER(municipality), as the municipality filter
-- compares it. Towns are written in key order, so that concurrent writers
-- lock shared towns in the same order.
CREATE OR REPLACE FUNCTION listings_places_follow() RETURNS trigger
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
    INSERT INTO listings_place AS place (key, name, folded, listings)
    SELECT lower(changed.municipality),
           (array_agg(changed.municipality ORDER BY changed.created_at, changed.id))[1],
           listings_place_folded(
             (array_agg(changed.municipality ORDER BY changed.created_at, changed.id))[1]),
           sum(changed.change)
    FROM (%s) AS changed
    WHERE changed.public
    GROUP BY 1
    HAVING sum(changed.change) <> 0
    ORDER BY 1
    ON CONFLICT (key) DO UPDATE SET listings = place.listings + EXCLUDED.listings
  $insert$, changes);
  RETURN NULL;
END
$function$;

-- TRUNCATE of the listings empties the places.
CREATE OR REPLACE FUNCTION listings_places_clear() RETURNS trigger
LANGUAGE plpgsql AS $function$
BEGIN
  DELETE FROM listings_place;
  RETURN NULL;
END
$function$;

DROP TRIGGER IF EXISTS listings_places_insert ON listings_property;
CREATE TRIGGER listings_places_insert AFTER INSERT ON listings_property
  REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION listings_places_follow();

DROP TRIGGER IF EXISTS listings_places_update ON listings_property;
CREATE TRIGGER listings_places_update AFTER UPDATE ON listings_property
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION listings_places_follow();

DROP TRIGGER IF EXISTS listings_places_delete ON listings_property;
CREATE TRIGGER listings_places_delete AFTER DELETE ON listings_property
  REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION listings_places_follow();

DROP TRIGGER IF EXISTS listings_places_truncate ON listings_property;
CREATE TRIGGER listings_places_truncate AFTER TRUNCATE ON listings_property
  FOR EACH STATEMENT EXECUTE FUNCTION listings_places_clear();

-- Rebuild the places from the listings. The triggers above already hold a lock that keeps
-- writers of listings out until this commits.
DELETE FROM listings_place;
INSERT INTO listings_place (key, name, folded, listings)
SELECT lower(listing.municipality),
       (array_agg(listing.municipality ORDER BY listing.created_at, listing.id))[1],
       listings_place_folded(
         (array_agg(listing.municipality ORDER BY listing.created_at, listing.id))[1]),
       count(*)
FROM listings_property AS listing
WHERE listing.public
GROUP BY 1;
