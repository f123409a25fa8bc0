"""Vocabulary of the demo data: places, prices, titles and type-specific facts of listings.

Shared by the small demo set (`demo.seed`) and the bulk generator
(`demo.bulk`), so both look alike: Spanish municipalities with real
coordinates, prices that follow the kind, the size and the town, and titles and
descriptions written from the type-specific facts of each listing.
"""

import itertools
import math
import random
from dataclasses import dataclass
from decimal import Decimal

from listings.models import (
    KIND_FIELDS,
    RECORD_FIELDS,
    ActivityType,
    LandType,
    PropertyStatus,
    PropertyType,
    TransactionType,
)

DEFAULT_SEED = 20_240_601


def demo_random(*, seed: int) -> random.Random:
    """A seeded generator: the demo data is the same on every machine and every run."""
    # Not for secrets: reproducible sample data is the point (the admin password uses secrets).
    return random.Random(seed)  # noqa: S311


@dataclass(frozen=True, slots=True)
class Municipality:
    """A real town: centre coordinates, population in thousands and a local price level."""

    name: str
    latitude: float
    longitude: float
    population: int
    price_level: float

    @property
    def spread(self) -> float:
        """Standard deviation, in degrees, of listings around the centre: bigger towns sprawl."""
        return 0.008 + 0.004 * math.sqrt(self.population / 10)


MUNICIPALITIES: tuple[Municipality, ...] = (
    Municipality("Madrid", 40.4168, -3.7038, 3300, 1.6),
    Municipality("Barcelona", 41.3874, 2.1686, 1640, 1.65),
    Municipality("Valencia", 39.4699, -0.3763, 800, 1.1),
    Municipality("Sevilla", 37.3891, -5.9845, 685, 1.0),
    Municipality("Zaragoza", 41.6488, -0.8891, 675, 0.85),
    Municipality("Málaga", 36.7213, -4.4214, 580, 1.3),
    Municipality("Murcia", 37.9922, -1.1307, 460, 0.75),
    Municipality("Palma", 39.5696, 2.6502, 420, 1.45),
    Municipality("Las Palmas de Gran Canaria", 28.1235, -15.4363, 380, 0.95),
    Municipality("Bilbao", 43.2630, -2.9350, 345, 1.3),
    Municipality("Alicante", 38.3452, -0.4810, 340, 0.95),
    Municipality("Córdoba", 37.8882, -4.7794, 320, 0.75),
    Municipality("Valladolid", 41.6523, -4.7245, 298, 0.8),
    Municipality("Vigo", 42.2406, -8.7207, 293, 0.85),
    Municipality("Gijón", 43.5322, -5.6611, 268, 0.85),
    Municipality("L'Hospitalet de Llobregat", 41.3597, 2.0997, 265, 1.15),
    Municipality("Vitoria-Gasteiz", 42.8467, -2.6716, 255, 1.05),
    Municipality("A Coruña", 43.3623, -8.4115, 247, 0.95),
    Municipality("Elche", 38.2669, -0.6983, 235, 0.8),
    Municipality("Granada", 37.1773, -3.5986, 230, 0.9),
    Municipality("Terrassa", 41.5632, 2.0089, 224, 0.95),
    Municipality("Badalona", 41.4500, 2.2474, 223, 1.1),
    Municipality("Oviedo", 43.3614, -5.8494, 219, 0.85),
    Municipality("Cartagena", 37.6257, -0.9966, 216, 0.75),
    Municipality("Sabadell", 41.5463, 2.1086, 216, 0.95),
    Municipality("Jerez de la Frontera", 36.6850, -6.1261, 212, 0.75),
    Municipality("Móstoles", 40.3223, -3.8649, 210, 0.95),
    Municipality("Santa Cruz de Tenerife", 28.4636, -16.2518, 209, 0.95),
    Municipality("Pamplona", 42.8125, -1.6458, 203, 1.05),
    Municipality("Almería", 36.8340, -2.4637, 200, 0.7),
    Municipality("Alcalá de Henares", 40.4820, -3.3635, 196, 0.95),
    Municipality("Fuenlabrada", 40.2842, -3.7942, 193, 0.85),
    Municipality("Leganés", 40.3272, -3.7635, 189, 0.9),
    Municipality("San Sebastián", 43.3183, -1.9812, 188, 1.85),
    Municipality("Getafe", 40.3057, -3.7329, 185, 0.9),
    Municipality("Burgos", 42.3439, -3.6969, 175, 0.8),
    Municipality("Albacete", 38.9943, -1.8585, 173, 0.65),
    Municipality("Santander", 43.4623, -3.8100, 172, 1.05),
    Municipality("Castellón de la Plana", 39.9864, -0.0513, 171, 0.75),
    Municipality("Alcorcón", 40.3458, -3.8249, 170, 0.95),
    Municipality("Logroño", 42.4627, -2.4450, 151, 0.8),
    Municipality("Badajoz", 38.8794, -6.9707, 150, 0.65),
    Municipality("Salamanca", 40.9701, -5.6635, 144, 0.85),
    Municipality("Huelva", 37.2614, -6.9447, 143, 0.65),
    Municipality("Marbella", 36.5101, -4.8825, 147, 2.0),
    Municipality("Lleida", 41.6176, 0.6200, 140, 0.75),
    Municipality("Tarragona", 41.1189, 1.2445, 136, 0.9),
    Municipality("León", 42.5987, -5.5671, 122, 0.7),
    Municipality("Cádiz", 36.5271, -6.2886, 113, 0.95),
    Municipality("Jaén", 37.7796, -3.7849, 111, 0.6),
    Municipality("Ourense", 42.3358, -7.8639, 104, 0.65),
    Municipality("Girona", 41.9794, 2.8214, 103, 1.05),
    Municipality("Lugo", 43.0097, -7.5560, 98, 0.6),
    Municipality("Cáceres", 39.4753, -6.3724, 96, 0.65),
    Municipality("Santiago de Compostela", 42.8782, -8.5448, 98, 0.9),
    Municipality("Toledo", 39.8628, -4.0273, 86, 0.8),
    Municipality("Benidorm", 38.5411, -0.1225, 71, 1.2),
    Municipality("Torrevieja", 37.9787, -0.6822, 84, 0.85),
    Municipality("Ibiza", 38.9067, 1.4206, 50, 2.2),
    Municipality("Segovia", 40.9429, -4.1088, 51, 0.85),
    Municipality("Estepona", 36.4276, -5.1463, 72, 1.4),
    Municipality("Sitges", 41.2370, 1.8059, 30, 1.7),
    Municipality("Ronda", 36.7423, -5.1671, 34, 0.8),
    Municipality("Cuenca", 40.0704, -2.1374, 54, 0.6),
    Municipality("Huesca", 42.1401, -0.4089, 53, 0.65),
    Municipality("Teruel", 40.3456, -1.1065, 36, 0.55),
)
MUNICIPALITY_WEIGHTS: tuple[float, ...] = tuple(town.population for town in MUNICIPALITIES)

STREETS: tuple[str, ...] = (
    "Calle Mayor",
    "Calle Real",
    "Avenida de la Constitución",
    "Calle del Sol",
    "Paseo de la Castellana",
    "Calle de Alcalá",
    "Gran Vía",
    "Calle San Francisco",
    "Avenida de Andalucía",
    "Calle de la Paz",
    "Calle Nueva",
    "Plaza de España",
    "Calle del Carmen",
    "Avenida del Puerto",
    "Calle de las Flores",
    "Paseo Marítimo",
    "Calle del Olivo",
    "Ronda de Poniente",
    "Calle de Cervantes",
    "Avenida de Europa",
    "Calle Doctor Fleming",
    "Calle de la Iglesia",
    "Camino Viejo",
    "Calle de los Naranjos",
)
APARTMENT_DOORS = ("A", "B", "C", "D")

FIRST_NAMES: tuple[str, ...] = (
    "María",
    "Javier",
    "Lucía",
    "Carlos",
    "Ana",
    "David",
    "Elena",
    "Pablo",
    "Sara",
    "Miguel",
    "Carmen",
    "Jorge",
    "Laura",
    "Alberto",
    "Marta",
    "Raúl",
)
SURNAMES: tuple[str, ...] = (
    "García",
    "López",
    "Fernández",
    "Martín",
    "Torres",
    "Romero",
    "Navarro",
    "Ruiz",
    "Molina",
    "Ortega",
    "Serrano",
    "Castro",
    "Vidal",
    "Iglesias",
)

# The demo categories, and the one each kind of listing is filed under.
CATEGORIES: dict[str, str] = {
    "Residential": "Houses and apartments to live in.",
    "Commercial": "Offices, shops and other premises for a business.",
    "Land": "Plots, buildable or rural.",
    "Hospitality": "Hotels and other accommodation businesses.",
    "New developments": "Projects of new homes or premises, sold off-plan or under construction.",
}
KIND_CATEGORY: dict[str, str] = {
    PropertyType.HOUSE: "Residential",
    PropertyType.APARTMENT: "Residential",
    PropertyType.LAND: "Land",
    PropertyType.OFFICE: "Commercial",
    PropertyType.COMMERCIAL: "Commercial",
    PropertyType.HOTEL: "Hospitality",
    PropertyType.DEVELOPMENT: "New developments",
}


@dataclass(frozen=True, slots=True)
class KindProfile:
    """How listings of one kind look: their share, how often rented, usual price and size."""

    share: float
    rent_share: float
    sale_price: int
    monthly_rent: int
    area: int
    area_sigma: float
    # How strongly the price follows the area (1 would be a fixed price per square metre).
    area_elasticity: float


KIND_PROFILES: dict[str, KindProfile] = {
    PropertyType.APARTMENT: KindProfile(0.40, 0.45, 240_000, 1_100, 85, 0.35, 0.85),
    PropertyType.HOUSE: KindProfile(0.24, 0.25, 380_000, 1_900, 190, 0.35, 0.8),
    PropertyType.LAND: KindProfile(0.08, 0.08, 150_000, 700, 2_000, 1.0, 0.6),
    PropertyType.OFFICE: KindProfile(0.08, 0.55, 450_000, 2_600, 220, 0.6, 0.85),
    PropertyType.COMMERCIAL: KindProfile(0.11, 0.55, 320_000, 2_100, 140, 0.6, 0.85),
    PropertyType.HOTEL: KindProfile(0.02, 0.15, 5_500_000, 45_000, 3_500, 0.6, 0.8),
    PropertyType.DEVELOPMENT: KindProfile(0.07, 0.05, 9_000_000, 60_000, 9_000, 0.7, 0.8),
}
KINDS: tuple[str, ...] = tuple(PropertyType.values)
KIND_WEIGHTS: tuple[float, ...] = tuple(KIND_PROFILES[kind].share for kind in KINDS)
PRICE_SIGMA = 0.3
CENT = Decimal("0.01")

# Bulk listings: mostly on the market. CLOSED stands for SOLD or RENTED, whichever the
# listing's transaction allows.
CLOSED = "CLOSED"
STATUS_WEIGHTS: dict[str, float] = {
    PropertyStatus.AVAILABLE: 0.85,
    PropertyStatus.PENDING: 0.06,
    CLOSED: 0.06,
    PropertyStatus.SUSPENDED: 0.03,
}
STATUS_CHOICES: tuple[str, ...] = tuple(STATUS_WEIGHTS)
STATUS_CUMULATIVE_WEIGHTS: tuple[float, ...] = tuple(itertools.accumulate(STATUS_WEIGHTS.values()))


def pick_status(*, rng: random.Random, transaction_type: str) -> str:
    """A status for a bulk listing: SOLD or RENTED only as its transaction allows."""
    status = rng.choices(STATUS_CHOICES, cum_weights=STATUS_CUMULATIVE_WEIGHTS)[0]
    if status != CLOSED:
        return status
    if transaction_type == TransactionType.SALE:
        return PropertyStatus.SOLD
    return PropertyStatus.RENTED


def pick_transaction(*, rng: random.Random, kind: str) -> str:
    """Rent or sale, in the proportion usual for the kind (hotels and plots are mostly sold)."""
    rented = rng.random() < KIND_PROFILES[kind].rent_share
    return TransactionType.RENT if rented else TransactionType.SALE


def pick_area(*, rng: random.Random, kind: str) -> Decimal:
    """A surface in square metres, log-normally spread around the usual size of the kind."""
    profile = KIND_PROFILES[kind]
    area = profile.area * rng.lognormvariate(0, profile.area_sigma)
    return Decimal(f"{max(area, 15):.2f}")


def pick_price(
    *, rng: random.Random, kind: str, transaction_type: str, area: Decimal, town: Municipality
) -> Decimal:
    """A price in euros (per month when rented) that follows the kind, the size and the town."""
    profile = KIND_PROFILES[kind]
    base = profile.monthly_rent if transaction_type == TransactionType.RENT else profile.sale_price
    size_factor = (float(area) / profile.area) ** profile.area_elasticity
    price = base * town.price_level * size_factor * rng.lognormvariate(0, PRICE_SIGMA)
    # Asking prices are round: to 10 euros for rents, to 1,000 euros for sales.
    step = 10 if transaction_type == TransactionType.RENT else 1_000
    return Decimal(max(step, round(price / step) * step)).quantize(CENT)


def pick_point(*, rng: random.Random, town: Municipality) -> tuple[float, float]:
    """Coordinates around the centre of the town, rounded to about a metre."""
    latitude = rng.gauss(town.latitude, town.spread)
    longitude = rng.gauss(town.longitude, town.spread * 1.3)
    return round(latitude, 6), round(longitude, 6)


def pick_address(*, rng: random.Random, kind: str, values: dict[str, object]) -> str:
    """A street address; plots are named by their land-registry polygon and parcel."""
    if kind == PropertyType.LAND:
        return f"Polígono {rng.randint(1, 40)}, parcela {rng.randint(1, 300)}"
    street = f"{rng.choice(STREETS)}, {rng.randint(1, 180)}"
    if kind == PropertyType.APARTMENT:
        return f"{street}, {rng.randint(1, 9)}º {rng.choice(APARTMENT_DOORS)}"
    return street


def pick_person_name(*, rng: random.Random) -> str:
    """A first name and two surnames, as usual in Spain."""
    return f"{rng.choice(FIRST_NAMES)} {rng.choice(SURNAMES)} {rng.choice(SURNAMES)}"


def pick_phone(*, rng: random.Random) -> str:
    """A Spanish mobile number."""
    return f"+34 6{rng.randint(10, 99)} {rng.randint(100, 999)} {rng.randint(100, 999)}"


def _chance(rng: random.Random, probability: float) -> bool:
    return rng.random() < probability


def record_values(*, rng: random.Random, kind: str, area: Decimal) -> dict[str, object]:
    """The type-specific facts of a listing: exactly the columns KIND_FIELDS gives its kind."""
    size = float(area)
    match kind:
        case PropertyType.HOUSE:
            bedrooms = max(1, min(8, round(size / 45) + rng.randint(-1, 1)))
            values = {
                "rooms": bedrooms + rng.randint(2, 4),
                "bedrooms": bedrooms,
                "bathrooms": max(1, min(bedrooms, rng.randint(1, 4))),
                "swimming_pool": _chance(rng, 0.35),
                "parking_space": _chance(rng, 0.7),
            }
        case PropertyType.APARTMENT:
            bedrooms = max(0, min(5, round(size / 30) + rng.randint(-1, 0)))
            values = {
                "rooms": bedrooms + rng.randint(1, 3),
                "bedrooms": bedrooms,
                "bathrooms": max(1, min(3, bedrooms // 2 + rng.randint(0, 1))),
                "parking_space": _chance(rng, 0.35),
                "swimming_pool": _chance(rng, 0.2),
                # Storeys of the home itself: a duplex has two.
                "floors": 2 if _chance(rng, 0.08) else 1,
                "balcony": _chance(rng, 0.6),
                "elevator": _chance(rng, 0.75),
            }
        case PropertyType.LAND:
            values = {
                "serviced": _chance(rng, 0.45),
                "land_type": rng.choices(
                    (
                        LandType.BUILDABLE,
                        LandType.AGRICULTURAL,
                        LandType.FOREST,
                        LandType.INDUSTRIAL,
                        LandType.RECREATIONAL,
                        LandType.OTHER,
                    ),
                    weights=(0.45, 0.25, 0.08, 0.12, 0.06, 0.04),
                )[0],
            }
        case PropertyType.OFFICE:
            values = {
                "floors": max(1, min(12, round(size / 400) + rng.randint(0, 1))),
                "parking_space": _chance(rng, 0.6),
                "elevators": _chance(rng, 0.8),
                "type_of_activity": rng.choices(
                    (ActivityType.OFFICE, ActivityType.COMMERCIAL, ActivityType.MIXED_USE),
                    weights=(0.8, 0.12, 0.08),
                )[0],
            }
        case PropertyType.COMMERCIAL:
            values = {
                "floors": 2 if _chance(rng, 0.2) else 1,
                "elevators": _chance(rng, 0.25),
                "parking_space": _chance(rng, 0.4),
                "type_of_activity": rng.choices(
                    (
                        ActivityType.RETAIL,
                        ActivityType.COMMERCIAL,
                        ActivityType.HOSPITALITY,
                        ActivityType.INDUSTRIAL,
                        ActivityType.OTHER,
                    ),
                    weights=(0.5, 0.2, 0.15, 0.1, 0.05),
                )[0],
            }
        case PropertyType.HOTEL:
            values = {
                "rooms": max(6, round(size / 35)),
                "floors": max(2, min(20, round(size / 900) + rng.randint(0, 2))),
                "parking_space": _chance(rng, 0.7),
                "swimming_pool": _chance(rng, 0.5),
            }
        case PropertyType.DEVELOPMENT:
            activity = rng.choices(
                (ActivityType.RESIDENTIAL, ActivityType.MIXED_USE, ActivityType.COMMERCIAL),
                weights=(0.75, 0.15, 0.1),
            )[0]
            values = {"number_of_units": max(4, round(size / 110)), "type_of_activity": activity}
        case _:
            raise ValueError(f"Unknown kind of property: {kind!r}")
    return values


def record_row(*, kind: str, values: dict[str, object]) -> tuple[object, ...]:
    """All type-specific columns in RECORD_FIELDS order; the ones of other kinds are None."""
    return tuple(
        values.get(field) if field in KIND_FIELDS[kind] else None for field in RECORD_FIELDS
    )


LAND_LABELS: dict[str, str] = {
    LandType.BUILDABLE: "Buildable plot",
    LandType.AGRICULTURAL: "Farmland",
    LandType.FOREST: "Woodland",
    LandType.INDUSTRIAL: "Industrial plot",
    LandType.RECREATIONAL: "Recreational plot",
    LandType.OTHER: "Plot",
}
ACTIVITY_LABELS: dict[str, str] = {
    ActivityType.RESIDENTIAL: "residential",
    ActivityType.COMMERCIAL: "commercial",
    ActivityType.RETAIL: "retail",
    ActivityType.OFFICE: "office",
    ActivityType.INDUSTRIAL: "industrial",
    ActivityType.HOSPITALITY: "hospitality",
    ActivityType.MIXED_USE: "mixed-use",
    ActivityType.OTHER: "general",
}
ADJECTIVES: tuple[str, ...] = (
    "Bright",
    "Sunny",
    "Spacious",
    "Renovated",
    "Charming",
    "Modern",
    "Quiet",
    "Elegant",
)
CLOSINGS: tuple[str, ...] = (
    "Visits can be arranged through the platform.",
    "Ask the owner for a visit this week.",
    "Ready to move in.",
    "Energy certificate available on request.",
    "Close to schools, shops and public transport.",
    "A rare opportunity in this part of town.",
)


def _square_metres(area: Decimal) -> str:
    return f"{round(area):,} m²"


def listing_title(
    *, rng: random.Random, kind: str, town: Municipality, values: dict[str, object], area: Decimal
) -> str:
    """A headline like the ones on property portals, built from the facts of the listing."""
    adjective = rng.choice(ADJECTIVES)
    place = town.name
    match kind:
        case PropertyType.HOUSE:
            extra = " with pool" if values["swimming_pool"] else " with garden"
            return f"{adjective} {values['bedrooms']}-bedroom house{extra} in {place}"
        case PropertyType.APARTMENT:
            if values["bedrooms"] == 0:
                return f"{adjective} studio in {place}"
            extra = " with balcony" if values["balcony"] else ""
            return f"{adjective} {values['bedrooms']}-bedroom apartment{extra} in {place}"
        case PropertyType.LAND:
            return f"{LAND_LABELS[values['land_type']]} of {_square_metres(area)} in {place}"
        case PropertyType.OFFICE:
            return f"{adjective} office space of {_square_metres(area)} in {place}"
        case PropertyType.COMMERCIAL:
            activity = ACTIVITY_LABELS[values["type_of_activity"]]
            return f"{activity.capitalize()} premises of {_square_metres(area)} in {place}"
        case PropertyType.HOTEL:
            return f"{values['rooms']}-room hotel in {place}"
        case _:
            activity = ACTIVITY_LABELS[values["type_of_activity"]]
            return f"New {activity} development of {values['number_of_units']} units in {place}"


def _yes(flag: object, text: str) -> list[str]:
    return [text] if flag else []


def listing_description(
    *,
    rng: random.Random,
    kind: str,
    town: Municipality,
    values: dict[str, object],
    area: Decimal,
    transaction_type: str,
) -> str:
    """Two to five sentences describing the listing, consistent with its facts."""
    size = _square_metres(area)
    match kind:
        case PropertyType.HOUSE:
            sentences = [
                f"Family house of {size} in a quiet street of {town.name}.",
                f"{values['rooms']} rooms, {values['bedrooms']} bedrooms and "
                f"{values['bathrooms']} bathrooms.",
                *_yes(values["swimming_pool"], "Private swimming pool in the garden."),
                *_yes(values["parking_space"], "Garage for one car."),
            ]
        case PropertyType.APARTMENT:
            sentences = [
                f"Apartment of {size} close to the centre of {town.name}.",
                f"{values['rooms']} rooms, of which {values['bedrooms']} bedrooms, and "
                f"{values['bathrooms']} bathroom{'s' if values['bathrooms'] != 1 else ''}.",
                *_yes(values["floors"] == 2, "A duplex over two floors."),
                *_yes(values["balcony"], "Balcony facing the street."),
                *_yes(values["elevator"], "Building with a lift."),
                *_yes(values["parking_space"], "Parking space included."),
                *_yes(values["swimming_pool"], "Shared swimming pool."),
            ]
        case PropertyType.LAND:
            sentences = [
                f"{LAND_LABELS[values['land_type']]} of {size} on the outskirts of {town.name}.",
                "Water, power and road access are connected."
                if values["serviced"]
                else "Not yet connected to water and power.",
            ]
        case PropertyType.OFFICE:
            sentences = [
                f"Office space of {size} over {values['floors']} "
                f"floor{'s' if values['floors'] != 1 else ''} in {town.name}.",
                f"Suited to {ACTIVITY_LABELS[values['type_of_activity']]} use.",
                *_yes(values["elevators"], "Served by lifts."),
                *_yes(values["parking_space"], "Parking in the building."),
            ]
        case PropertyType.COMMERCIAL:
            sentences = [
                f"Street-level premises of {size} in a busy part of {town.name}.",
                f"Licensed for {ACTIVITY_LABELS[values['type_of_activity']]} activity.",
                *_yes(values["elevators"], "Goods lift to the upper floor."),
                *_yes(values["parking_space"], "Loading bay and parking."),
            ]
        case PropertyType.HOTEL:
            sentences = [
                f"Running hotel of {values['rooms']} rooms over {values['floors']} floors "
                f"in {town.name}.",
                f"{size} built, with reception, breakfast room and laundry.",
                *_yes(values["swimming_pool"], "Outdoor swimming pool and terrace."),
                *_yes(values["parking_space"], "Guest car park."),
            ]
        case _:
            sentences = [
                f"New {ACTIVITY_LABELS[values['type_of_activity']]} development in {town.name}: "
                f"{values['number_of_units']} units on a site of {size}.",
                "Building licence granted; completion planned within two years.",
            ]
    if transaction_type == TransactionType.RENT:
        sentences.append("Monthly rent; deposit of two months.")
    sentences.append(rng.choice(CLOSINGS))
    return " ".join(sentences)
