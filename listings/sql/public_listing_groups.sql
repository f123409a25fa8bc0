-- How many public listings share a transaction, kind, town, category, bedroom count and price
-- band (listings_publiclistinggroup), kept by PostgreSQL itself: statement-level triggers on
-- the listings table add every written statement's changes in that statement, whichever way
-- listings are written (the services, the admin's bulk actions, cascades, the bulk seeder's
-- COPY, SQL run by hand). listings/search/groups.py counts public searches from these groups;
-- docs/architecture.md says how they stay correct.
--
-- Run by migrations (listings.search.groups.install; listings/triggers.py says which): every
-- statement can run again, and the last ones rebuild the groups from the listings.

-- The band of a price: twelve bands a decade (the E12 series) from 10 to 820,000,000,
-- numbered as width_bucket numbers them (0 below the first edge). The same edges as
-- listings.search.groups.PRICE_BAND_EDGES (a test compares them).
CREATE OR REPLACE FUNCTION listings_price_band(price numeric) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT width_bucket(price, '{10,12,15,18,22,27,33,39,47,56,68,82,
    100,120,150,180,220,270,330,390,470,560,680,820,
    1000,1200,1500,1800,2200,2700,3300,3900,4700,5600,6800,8200,
    10000,12000,15000,18000,22000,27000,33000,39000,47000,56000,68000,82000,
    100000,120000,150000,180000,220000,270000,330000,390000,470000,560000,680000,820000,
    1000000,1200000,1500000,1800000,2200000,2700000,3300000,3900000,4700000,5600000,6800000,8200000,
    10000000,12000000,15000000,18000000,22000000,27000000,33000000,39000000,47000000,56000000,68000000,82000000,
    100000000,120000000,150000000,180000000,220000000,270000000,330000000,390000000,470000000,560000000,680000000,820000000
  }'::numeric[])
$$;

-- The eight groups a listing counts in: its own town, category and bedrooms, and "any" of
-- each ('' for any town or category, -1 for any bedrooms; -2 for a listing without
-- bedrooms, '' for a kind not given yet).
CREATE OR REPLACE FUNCTION listings_public_group_keys(
  town text, category text, bedroom_count integer, transaction text, listing_kind text,
  price numeric
) RETURNS TABLE (
  municipality_key text, category_key text, bedrooms_key integer, transaction_type text,
  kind text, price_band integer
)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN any_town THEN '' ELSE lower(town) END,
         CASE WHEN any_category THEN '' ELSE category END,
         CASE WHEN any_bedrooms THEN -1 ELSE coalesce(bedroom_count, -2) END,
         transaction,
         coalesce(listing_kind, ''),
         listings_price_band(price)
  FROM (VALUES (false), (true)) AS towns (any_town),
       (VALUES (false), (true)) AS categories (any_category),
       (VALUES (false), (true)) AS bedroom_counts (any_bedrooms)
$$;

-- Add a statement's inserted (+1), deleted (-1) or updated (both) listings to their groups.
-- Only public listings count (their `public` column, listings.models.Property). Groups are
-- written in key order, so that concurrent writers lock shared groups in the same order.
CREATE OR REPLACE FUNCTION listings_public_groups_follow() RETURNS trigger
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
    INSERT INTO listings_publiclistinggroup AS grp
      (municipality_key, category_key, bedrooms_key, transaction_type, kind, price_band,
       listings)
    SELECT keys.*, sum(changed.change)
    FROM (%s) AS changed
    CROSS JOIN LATERAL listings_public_group_keys(
      changed.municipality, changed.category_id, changed.bedrooms, changed.transaction_type,
      changed.kind, changed.price
    ) AS keys
    WHERE changed.public
    GROUP BY 1, 2, 3, 4, 5, 6
    HAVING sum(changed.change) <> 0
    ORDER BY 1, 2, 3, 4, 5, 6
    ON CONFLICT (municipality_key, category_key, bedrooms_key, transaction_type, kind,
                 price_band)
    DO UPDATE SET listings = grp.listings + EXCLUDED.listings
  $insert$, changes);
  RETURN NULL;
END
$function$;

-- TRUNCATE of the listings empties the groups.
CREATE OR REPLACE FUNCTION listings_public_groups_clear() RETURNS trigger
LANGUAGE plpgsql AS $function$
BEGIN
  DELETE FROM listings_publiclistinggroup;
  RETURN NULL;
END
$function$;

DROP TRIGGER IF EXISTS listings_public_groups_insert ON listings_property;
CREATE TRIGGER listings_public_groups_insert AFTER INSERT ON listings_property
  REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION listings_public_groups_follow();

DROP TRIGGER IF EXISTS listings_public_groups_update ON listings_property;
CREATE TRIGGER listings_public_groups_update AFTER UPDATE ON listings_property
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION listings_public_groups_follow();

DROP TRIGGER IF EXISTS listings_public_groups_delete ON listings_property;
CREATE TRIGGER listings_public_groups_delete AFTER DELETE ON listings_property
  REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION listings_public_groups_follow();

DROP TRIGGER IF EXISTS listings_public_groups_truncate ON listings_property;
CREATE TRIGGER listings_public_groups_truncate AFTER TRUNCATE ON listings_property
  FOR EACH STATEMENT EXECUTE FUNCTION listings_public_groups_clear();

-- Rebuild the groups from the listings. The triggers above already hold a lock that keeps
-- writers of listings out until this commits.
DELETE FROM listings_publiclistinggroup;
INSERT INTO listings_publiclistinggroup
  (municipality_key, category_key, bedrooms_key, transaction_type, kind, price_band, listings)
SELECT keys.*, count(*)
FROM listings_property AS listing
CROSS JOIN LATERAL listings_public_group_keys(
  listing.municipality, listing.category_id, listing.bedrooms, listing.transaction_type,
  listing.kind, listing.price
) AS keys
WHERE listing.public
GROUP BY 1, 2, 3, 4, 5, 6;
