-- The public listings counted in the cells of four map grids (listings_mapcell), for map
-- clusters zoomed out (listings/search/clusters.py), kept by PostgreSQL itself as the places
-- are (places.sql): statement-level triggers on the listings table add every written
-- statement's changes in that statement, whichever way listings are written.
--
-- A cell is kept for each transaction and kind of its listings, and rolled up: for each
-- transaction whatever the kind (kind '*'), and for any transaction and kind (both '*'),
-- so that a view filtered on a transaction alone, or on nothing, reads one row a cell
-- (listings.search.cells.ANY).
--
-- A grid's level is a map zoom: its cells are 90 / 2^level degrees square, and a listing
-- lies in the cell (floor(latitude / size), floor(longitude / size)), as the clusters
-- compute it. The levels are listings.search.clusters.MAP_CELL_LEVELS (a test compares).
--
-- A listing counts while it is public: its `public` column (listings.models.Property), which
-- the public indexes hold too, so a cell's listings are read again through them.
--
-- Run by migrations (listings.search.cells.install; listings/triggers.py says which):
-- every statement can run again, and the last ones rebuild the cells from the listings.

CREATE OR REPLACE FUNCTION listings_map_cell_size(level integer) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT 90::double precision / (2::double precision ^ level)
$$;

-- The rows of a cell that a public listing of this transaction and kind counts in: its
-- transaction and kind's, its transaction's whatever the kind, and the cell's whole.
CREATE OR REPLACE FUNCTION listings_map_cell_keys(listing_transaction_type text,
  listing_kind text) RETURNS TABLE (transaction_type text, kind text)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  VALUES (listing_transaction_type, coalesce(listing_kind, '')),
    (listing_transaction_type, '*'), ('*', '*')
$$;

-- Add a statement's inserted (+1), deleted (-1) or updated (both) public listings to their
-- cells: counts and coordinate sums add up; the bounds and the lowest price widen with what
-- is added. What is removed cannot narrow them, so the cells whose bounds or lowest price a
-- removed listing was on are computed again: the finest grid's from the listings (the
-- statement's rows are already written when this runs), each coarser grid's from the cells
-- of the grid just finer, then their rolled-up rows from their rows of each transaction and
-- kind. Cells are added to in key order, so that concurrent writers lock shared cells in the
-- same order; those computed again are among them. A cell left with no listing stays, empty.
CREATE OR REPLACE FUNCTION listings_map_cells_follow() RETURNS trigger
LANGUAGE plpgsql AS $function$
DECLARE
  changes text := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT new_rows.*, 1 AS change FROM new_rows'
    WHEN 'DELETE' THEN 'SELECT old_rows.*, -1 AS change FROM old_rows'
    ELSE 'SELECT new_rows.*, 1 AS change FROM new_rows'
      || ' UNION ALL SELECT old_rows.*, -1 AS change FROM old_rows'
  END;
  stale_levels integer[];
  stale_rows integer[];
  stale_columns integer[];
  stale_transaction_types text[];
  stale_kinds text[];
  grid_level integer;
  finer_level integer;
  tiles integer;
BEGIN
  -- The transition tables exist only for their operations: the statements are made for each.
  EXECUTE format($insert$
    INSERT INTO listings_mapcell AS cell (level, "row", "column", transaction_type, kind,
      listings, latitude_sum, longitude_sum, west, south, east, north, lowest_price)
    SELECT grid.level,
           floor(changed.latitude / listings_map_cell_size(grid.level))::integer,
           floor(changed.longitude / listings_map_cell_size(grid.level))::integer,
           rollup.transaction_type, rollup.kind,
           sum(changed.change), sum(changed.change * changed.latitude),
           sum(changed.change * changed.longitude),
           min(changed.longitude) FILTER (WHERE changed.change > 0),
           min(changed.latitude) FILTER (WHERE changed.change > 0),
           max(changed.longitude) FILTER (WHERE changed.change > 0),
           max(changed.latitude) FILTER (WHERE changed.change > 0),
           min(changed.price) FILTER (WHERE changed.change > 0)
    FROM (%s) AS changed CROSS JOIN (VALUES (9), (12), (13), (15)) AS grid (level)
    CROSS JOIN LATERAL listings_map_cell_keys(changed.transaction_type, changed.kind)
      AS rollup
    WHERE changed.public
    GROUP BY 1, 2, 3, 4, 5
    ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (level, "row", "column", transaction_type, kind) DO UPDATE SET
      listings = cell.listings + EXCLUDED.listings,
      latitude_sum = cell.latitude_sum + EXCLUDED.latitude_sum,
      longitude_sum = cell.longitude_sum + EXCLUDED.longitude_sum,
      west = least(cell.west, EXCLUDED.west),
      south = least(cell.south, EXCLUDED.south),
      east = greatest(cell.east, EXCLUDED.east),
      north = greatest(cell.north, EXCLUDED.north),
      lowest_price = least(cell.lowest_price, EXCLUDED.lowest_price)
  $insert$, changes);
  IF TG_OP = 'INSERT' THEN
    RETURN NULL;
  END IF;
  -- The cells that a removed listing was on the bounds or the lowest price of, or left
  -- empty, of every grid (each grid's cells as the statements above left them).
  SELECT coalesce(array_agg(stale.level), '{}'), array_agg(stale."row"),
         array_agg(stale."column"), array_agg(stale.transaction_type), array_agg(stale.kind)
  INTO stale_levels, stale_rows, stale_columns, stale_transaction_types, stale_kinds
  FROM (
    SELECT DISTINCT touched.level, touched."row", touched."column",
           touched.transaction_type, touched.kind
    FROM listings_mapcell AS touched
    JOIN (
      SELECT grid.level, old_rows.*,
             floor(old_rows.latitude / listings_map_cell_size(grid.level))::integer AS cell_row,
             floor(old_rows.longitude / listings_map_cell_size(grid.level))::integer
               AS cell_column
      FROM old_rows CROSS JOIN (VALUES (9), (12), (13), (15)) AS grid (level)
      WHERE old_rows.public
    ) AS removed
      ON touched.level = removed.level AND touched."row" = removed.cell_row
     AND touched."column" = removed.cell_column
     AND touched.transaction_type = removed.transaction_type
     AND touched.kind = coalesce(removed.kind, '')
    WHERE touched.listings = 0
       OR removed.longitude IN (touched.west, touched.east)
       OR removed.latitude IN (touched.south, touched.north)
       OR removed.price = touched.lowest_price
  ) AS stale;
  -- They are computed again grid by grid, from the finest: its cells from the listings in
  -- their boxes, and each coarser grid's from the cells of the grid just finer, which tile
  -- its own and are right by then. (A cell of zoom 9 is 8 by 8 cells of zoom 12; its
  -- listings would be read from a band of the box index across the whole map: at
  -- 1,000,000 listings, 37 to 40 ms against 3.5 to 3.9 for a price change of a dense
  -- cell's cheapest listing.) A coarser cell is stale only where one of its finer cells
  -- is: the grids end at the first with none.
  IF NOT 15 = ANY (stale_levels) THEN
    RETURN NULL;
  END IF;
  UPDATE listings_mapcell AS cell
  SET west = fresh.west, south = fresh.south, east = fresh.east, north = fresh.north,
      lowest_price = fresh.lowest_price,
      -- Sums of what is left, rather than of what was taken away: no rounding adds up.
      latitude_sum = fresh.latitude_sum, longitude_sum = fresh.longitude_sum
  FROM unnest(stale_levels, stale_rows, stale_columns, stale_transaction_types, stale_kinds)
    AS stale (level, "row", "column", transaction_type, kind)
  CROSS JOIN LATERAL (
    SELECT min(listing.longitude) AS west, min(listing.latitude) AS south,
           max(listing.longitude) AS east, max(listing.latitude) AS north,
           min(listing.price) AS lowest_price,
           coalesce(sum(listing.latitude), 0) AS latitude_sum,
           coalesce(sum(listing.longitude), 0) AS longitude_sum
    FROM listings_property AS listing
    WHERE listing.public
      AND listing.transaction_type = stale.transaction_type
      AND coalesce(listing.kind, '') = stale.kind
      -- The cell's box, a little wider (an index range), then the cell itself.
      AND listing.latitude >= (stale."row" - 1) * listings_map_cell_size(15)
      AND listing.latitude < (stale."row" + 2) * listings_map_cell_size(15)
      AND listing.longitude >= (stale."column" - 1) * listings_map_cell_size(15)
      AND listing.longitude < (stale."column" + 2) * listings_map_cell_size(15)
      AND floor(listing.latitude / listings_map_cell_size(15)) = stale."row"
      AND floor(listing.longitude / listings_map_cell_size(15)) = stale."column"
  ) AS fresh
  WHERE stale.level = 15
    AND cell.level = stale.level AND cell."row" = stale."row"
    AND cell."column" = stale."column" AND cell.transaction_type = stale.transaction_type
    AND cell.kind = stale.kind;
  FOR grid_level, finer_level IN VALUES (13, 15), (12, 13), (9, 12) LOOP
    EXIT WHEN NOT grid_level = ANY (stale_levels);
    -- Finer cells along a side of one of this grid's.
    tiles := 2 ^ (finer_level - grid_level);
    UPDATE listings_mapcell AS cell
    SET west = fresh.west, south = fresh.south, east = fresh.east, north = fresh.north,
        lowest_price = fresh.lowest_price,
        latitude_sum = fresh.latitude_sum, longitude_sum = fresh.longitude_sum
    FROM unnest(stale_levels, stale_rows, stale_columns, stale_transaction_types, stale_kinds)
      AS stale (level, "row", "column", transaction_type, kind)
    CROSS JOIN LATERAL (
      SELECT min(part.west) AS west, min(part.south) AS south,
             max(part.east) AS east, max(part.north) AS north,
             min(part.lowest_price) AS lowest_price,
             coalesce(sum(part.latitude_sum), 0) AS latitude_sum,
             coalesce(sum(part.longitude_sum), 0) AS longitude_sum
      -- A range of the cells' index for each row of finer cells.
      FROM generate_series(stale."row" * tiles, stale."row" * tiles + tiles - 1) AS part_row
      JOIN listings_mapcell AS part
        ON part.level = finer_level AND part."row" = part_row
       AND part."column" BETWEEN stale."column" * tiles AND stale."column" * tiles + tiles - 1
       AND part.transaction_type = stale.transaction_type AND part.kind = stale.kind
    ) AS fresh
    WHERE stale.level = grid_level
      AND cell.level = stale.level AND cell."row" = stale."row"
      AND cell."column" = stale."column" AND cell.transaction_type = stale.transaction_type
      AND cell.kind = stale.kind;
  END LOOP;
  -- The rolled-up rows of the stale cells, from the cell's rows of each transaction and
  -- kind, made right just above: a dozen rows, where the listings of a dense cell of zoom 9
  -- are 89,000 (read from them, the write of its cheapest took 0.46 s). A rolled-up row is
  -- stale only where one of its rows is.
  UPDATE listings_mapcell AS cell
  SET west = fresh.west, south = fresh.south, east = fresh.east, north = fresh.north,
      lowest_price = fresh.lowest_price,
      latitude_sum = fresh.latitude_sum, longitude_sum = fresh.longitude_sum
  FROM (
    SELECT DISTINCT stale.level, stale."row", stale."column", rollup.transaction_type,
           rollup.kind
    FROM unnest(stale_levels, stale_rows, stale_columns, stale_transaction_types, stale_kinds)
      AS stale (level, "row", "column", transaction_type, kind)
    CROSS JOIN LATERAL listings_map_cell_keys(stale.transaction_type, stale.kind) AS rollup
    WHERE rollup.kind = '*'
    ORDER BY 1, 2, 3, 4
  ) AS rolled
  CROSS JOIN LATERAL (
    SELECT min(part.west) AS west, min(part.south) AS south,
           max(part.east) AS east, max(part.north) AS north,
           min(part.lowest_price) AS lowest_price,
           coalesce(sum(part.latitude_sum), 0) AS latitude_sum,
           coalesce(sum(part.longitude_sum), 0) AS longitude_sum
    FROM listings_mapcell AS part
    WHERE part.level = rolled.level AND part."row" = rolled."row"
      AND part."column" = rolled."column" AND part.kind <> '*'
      AND part.transaction_type <> '*'
      AND rolled.transaction_type IN ('*', part.transaction_type)
  ) AS fresh
  WHERE cell.level = rolled.level AND cell."row" = rolled."row"
    AND cell."column" = rolled."column" AND cell.transaction_type = rolled.transaction_type
    AND cell.kind = rolled.kind;
  RETURN NULL;
END
$function$;

-- TRUNCATE of the listings empties the cells.
CREATE OR REPLACE FUNCTION listings_map_cells_clear() RETURNS trigger
LANGUAGE plpgsql AS $function$
BEGIN
  DELETE FROM listings_mapcell;
  RETURN NULL;
END
$function$;

DROP TRIGGER IF EXISTS listings_map_cells_insert ON listings_property;
CREATE TRIGGER listings_map_cells_insert AFTER INSERT ON listings_property
  REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION listings_map_cells_follow();

DROP TRIGGER IF EXISTS listings_map_cells_update ON listings_property;
CREATE TRIGGER listings_map_cells_update AFTER UPDATE ON listings_property
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION listings_map_cells_follow();

DROP TRIGGER IF EXISTS listings_map_cells_delete ON listings_property;
CREATE TRIGGER listings_map_cells_delete AFTER DELETE ON listings_property
  REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION listings_map_cells_follow();

DROP TRIGGER IF EXISTS listings_map_cells_truncate ON listings_property;
CREATE TRIGGER listings_map_cells_truncate AFTER TRUNCATE ON listings_property
  FOR EACH STATEMENT EXECUTE FUNCTION listings_map_cells_clear();

-- Rebuild the cells from the listings. The triggers above already hold a lock that keeps
-- writers of listings out until this commits.
DELETE FROM listings_mapcell;
INSERT INTO listings_mapcell (level, "row", "column", transaction_type, kind, listings,
  latitude_sum, longitude_sum, west, south, east, north, lowest_price)
SELECT grid.level,
       floor(listing.latitude / listings_map_cell_size(grid.level))::integer,
       floor(listing.longitude / listings_map_cell_size(grid.level))::integer,
       rollup.transaction_type, rollup.kind,
       count(*), sum(listing.latitude), sum(listing.longitude),
       min(listing.longitude), min(listing.latitude), max(listing.longitude),
       max(listing.latitude), min(listing.price)
FROM listings_property AS listing CROSS JOIN (VALUES (9), (12), (13), (15)) AS grid (level)
CROSS JOIN LATERAL listings_map_cell_keys(listing.transaction_type, listing.kind) AS rollup
WHERE listing.public
GROUP BY 1, 2, 3, 4, 5;
