"""What the OpenAPI schema promises clients, as the Schemathesis run (tests/fuzz) reads it."""

import pytest

SCHEMA_PATH = "/api/v1/schema/"
PUBLIC = [
    ("get", "/api/v1/properties/"),
    ("get", "/api/v1/properties/{id}/"),
    ("get", "/api/v1/categories/"),
    ("get", "/api/v1/places/"),
    ("get", "/api/v1/properties/clusters/"),
    ("get", "/api/v1/images/"),
    ("post", "/api/v1/users/register/"),
    ("post", "/api/v1/users/login/"),
]
SIGNED_IN = [
    ("post", "/api/v1/categories/"),
    ("get", "/api/v1/users/"),
    ("get", "/api/v1/favorites/"),
    ("post", "/api/v1/users/logout/"),
    ("post", "/api/v1/images/upload/"),
]


@pytest.fixture
def document(client) -> dict:
    return client.get(SCHEMA_PATH, {"format": "json"}).json()


@pytest.mark.parametrize(("method", "path"), PUBLIC)
def test_a_public_operation_says_credentials_are_optional(document, method, path):
    # then its security requirements include the empty one
    assert {} in document["paths"][path][method]["security"]


@pytest.mark.parametrize(("method", "path"), SIGNED_IN)
def test_an_operation_for_signed_in_users_requires_credentials(document, method, path):
    # then every one of its security requirements names a scheme
    assert {} not in document["paths"][path][method]["security"]


def test_list_filters_allow_an_empty_value_and_paging_does_not(document):
    # given the parameters of GET /properties
    parameters = {
        parameter["name"]: parameter
        for parameter in document["paths"]["/api/v1/properties/"]["get"]["parameters"]
    }

    # then a filter may be sent empty (it is then no filter); page and limit may not
    assert parameters["minPrice"]["allowEmptyValue"] is True
    assert parameters["municipality"]["allowEmptyValue"] is True
    assert "allowEmptyValue" not in parameters["page"]
    assert "allowEmptyValue" not in parameters["limit"]


def test_request_bodies_are_json_and_uploads_name_their_file_formats(document):
    # given every request body of the schema
    bodies = {
        (method, path): operation["requestBody"]["content"]
        for path, operations in document["paths"].items()
        for method, operation in operations.items()
        if "requestBody" in operation
    }

    # then uploads are multipart with the accepted formats of the file, the rest JSON
    uploads = {("post", "/api/v1/images/upload/"), ("post", "/api/v1/videos/upload/")}
    for operation, content in bodies.items():
        expected = {"multipart/form-data"} if operation in uploads else {"application/json"}
        assert set(content) == expected, operation
    image = bodies["post", "/api/v1/images/upload/"]["multipart/form-data"]
    assert image["encoding"] == {"image": {"contentType": "image/jpeg, image/png, image/webp"}}
    video = bodies["post", "/api/v1/videos/upload/"]["multipart/form-data"]
    assert video["encoding"] == {"video": {"contentType": "video/mp4, video/webm"}}


def test_a_list_that_may_not_be_empty_says_so(document):
    # then the recipients of a bulk notification are one or more
    properties = document["components"]["schemas"]["NotificationBulkCreateRequest"]["properties"]
    assert properties["userIds"]["minItems"] == 1


def test_decimal_bounds_are_the_largest_values_their_digits_hold(document):
    # then price and area are bounded as the database stores them
    properties = document["components"]["schemas"]["PropertyWriteRequest"]["properties"]
    assert (properties["price"]["minimum"], properties["price"]["maximum"]) == (0, 999999999999.99)
    assert (properties["area"]["minimum"], properties["area"]["maximum"]) == (0.01, 9999999999.99)


def test_path_ids_are_documented_as_cuid2_strings(document):
    # given every path parameter of the schema
    patterns = {
        parameter["schema"].get("pattern")
        for operations in document["paths"].values()
        for operation in operations.values()
        for parameter in operation.get("parameters", [])
        if parameter["in"] == "path"
    }

    # then each is an id as D2 writes it, which no route name (register, bulk, ...) can be
    assert patterns == {"^[a-z][a-z0-9]{24}$"}


def test_place_suggestions_are_one_object_holding_the_list(document):
    # given the answer GET /places promises
    answer = document["paths"]["/api/v1/places/"]["get"]["responses"]["200"]
    schema = answer["content"]["application/json"]["schema"]
    component = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]

    # then it is an object whose `places` is the array of towns, with the query's parameters
    assert component["properties"]["places"]["type"] == "array"
    parameters = document["paths"]["/api/v1/places/"]["get"]["parameters"]
    assert {parameter["name"] for parameter in parameters} == {"q", "limit"}


def test_clusters_are_one_object_with_the_search_parameters_and_a_required_zoom(document):
    # given what GET /properties/clusters promises
    operation = document["paths"]["/api/v1/properties/clusters/"]["get"]
    schema = operation["responses"]["200"]["content"]["application/json"]["schema"]
    component = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    list_parameters = document["paths"]["/api/v1/properties/"]["get"]["parameters"]

    # then it is an object holding the array of clusters, asked for with every search
    # parameter of the list (not its paging) and a zoom it cannot do without
    assert component["properties"]["clusters"]["type"] == "array"
    assert set(component["required"]) == {"zoom", "cellSize", "totalItems", "clusters"}
    parameters = {parameter["name"]: parameter for parameter in operation["parameters"]}
    searched = {parameter["name"] for parameter in list_parameters} - {"page", "limit"}
    assert set(parameters) == searched | {"zoom"}
    assert parameters["zoom"]["required"] is True
    assert parameters["zoom"]["schema"] == {"type": "integer", "minimum": 0, "maximum": 22}
