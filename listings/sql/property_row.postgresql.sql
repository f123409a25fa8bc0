-- listings_property_row: every listing as its reads show it, one row each (the model
-- listings.models.PropertyRow; docs/architecture.md). The listing's own columns, its
-- type-specific record's (record_*), its category's, its owner's contact (owner_user_*),
-- and its photos and videos in gallery order (media_app.models.GALLERY_ORDER: position,
-- upload time, id) as JSON arrays of entries, NULL for none.
--
-- Every join is LEFT on a unique key, so a read that selects none of a joined table's
-- columns does not join it, and a gallery that is not selected is not read: a list row
-- (listings.selectors.property_list_rows) costs no category, owner or video lookup.
DROP VIEW IF EXISTS listings_property_row;
CREATE VIEW listings_property_row AS
SELECT
    listing.id,
    listing.title,
    listing.description,
    listing.price,
    listing.latitude,
    listing.longitude,
    listing.transaction_type,
    listing.municipality,
    listing.address,
    listing.area,
    listing.status,
    listing.owner_id,
    listing.category_id,
    listing.created_at,
    listing.updated_at,
    record.id AS record_id,
    record.kind AS record_kind,
    record.rooms AS record_rooms,
    record.bedrooms AS record_bedrooms,
    record.bathrooms AS record_bathrooms,
    record.swimming_pool AS record_swimming_pool,
    record.parking_space AS record_parking_space,
    record.floors AS record_floors,
    record.balcony AS record_balcony,
    record.elevator AS record_elevator,
    record.serviced AS record_serviced,
    record.land_type AS record_land_type,
    record.elevators AS record_elevators,
    record.type_of_activity AS record_type_of_activity,
    record.number_of_units AS record_number_of_units,
    category.name AS category_name,
    category.description AS category_description,
    owner.user_id AS owner_user_id,
    account.name AS owner_user_name,
    account.email AS owner_user_email,
    account.phone AS owner_user_phone,
    (
        SELECT jsonb_agg(
            jsonb_build_array(photo.id, photo.file, photo.title)
            ORDER BY photo.position, photo.created_at, photo.id
        )
        FROM media_app_image AS photo
        WHERE photo.property_id = listing.id
    ) AS photo_entries,
    (
        SELECT jsonb_agg(
            jsonb_build_array(video.id, video.file, video.title, video.created_at)
            ORDER BY video.position, video.created_at, video.id
        )
        FROM media_app_video AS video
        WHERE video.property_id = listing.id
    ) AS video_entries
FROM listings_property AS listing
LEFT JOIN listings_type_specific_record AS record ON record.property_id = listing.id
LEFT JOIN listings_propertycategory AS category ON category.id = listing.category_id
LEFT JOIN accounts_owner AS owner ON owner.id = listing.owner_id
LEFT JOIN accounts_user AS account ON account.id = owner.user_id;
