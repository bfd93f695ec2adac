"""The rule path: the update a narration's own words imply, decided before any LLM call.

Most narrations say exactly what happened ("take knife", "put salt in cupboard", "pour oil into
pan"): a verb the vocabulary knows, an object named, maybe a place. :func:`decide` turns that into
an update: the object is the node of that name (held first for putting down or changing, not held
for taking, the one at the named place, else the newest), or a new node named as the narration names
it; the movement is the verb's. When the words leave a doubt (an unknown verb, several nodes of the
name, no object at all) the decision is *uncertain*: the LLM is asked, and the uncertain update is
what the fallback applies after the last rejected answer (flagged low-confidence). A narration
about no object ("wash hands") is never pinned on one: it has no update and a reason.
"""

from __future__ import annotations

from collections.abc import Sequence

from treebrain.kg.models import (
    Confidence,
    Destination,
    Extraction,
    FoodView,
    Frozen,
    Interaction,
    KgUpdate,
    Narration,
    NewFood,
    OutcomeKind,
    UpdateType,
)
from treebrain.kg.names import head_noun, normalise_phrase, singular_phrase, words
from treebrain.kg.retrieval import Retrieval
from treebrain.kg.vocabulary import Vocabulary


class RuleDecision(Frozen):
    """The update the rules would make (None: no object to attribute the narration to), whether
    they are sure of it, and what left them unsure."""

    update: KgUpdate | None = None
    certain: bool = False
    reason: str = ""


def decide(
    narration: Narration, extraction: Extraction, retrieval: Retrieval, vocabulary: Vocabulary
) -> RuleDecision:
    """What the narration's words imply, and whether that is certain enough to apply without an LLM."""
    held = _held_object(extraction, retrieval, vocabulary)
    members = _group_in_hand(extraction, retrieval, vocabulary)
    if members:
        # "put cutlery into drawer" with the knife and the fork in hand: both go in
        held = members[0]
        others = tuple(food.name for food in members[1:])
        extraction = extraction.model_copy(update={"food": None, "food_phrase": None, "also": others})
    elif held is None and _names_what_is_held(extraction, retrieval, vocabulary):
        # "put down ingredients" with the onion and the cheese in hand: both are put down
        held = max(retrieval.held, key=lambda food: food.last_seen)
        others = tuple(food.name for food in retrieval.held if food.food_id != held.food_id)
        extraction = extraction.model_copy(update={"food": None, "food_phrase": None, "also": others})
    extraction = _portion_put(extraction, held, retrieval, vocabulary)
    if held is not None and extraction.food is None and _names(vocabulary, held, extraction.location):
        # "put in oil" (EPIC's "put the oil in"): the oil held is poured, it stays in hand
        extraction = extraction.model_copy(
            update={"verb_type": UpdateType.MODIFY_STATE, "location": None, "location_role": None}
        )
    if extraction.target_kind == "none" or (extraction.food is None and held is None):
        reason = extraction.not_object or "the narration names no object the rules can read"
        return RuleDecision(reason=reason)
    doubts: list[str] = []
    if extraction.verb_type is None:
        doubts.append(f"the verb {extraction.verb or '?'!r} is not in the vocabulary")
    target = (
        _portion_there(extraction, retrieval, vocabulary)
        if adds_portion(extraction, retrieval, vocabulary)
        else held or _target(extraction, retrieval, vocabulary, doubts)
    )
    update = _update(narration, extraction, target, vocabulary, "normal" if not doubts else "low", doubts)
    return RuleDecision(update=update, certain=not doubts, reason="; ".join(doubts))


def _portion_put(
    extraction: Extraction, held: FoodView | None, retrieval: Retrieval, vocabulary: Vocabulary
) -> Extraction:
    """A narration that adds a portion of a thing used a portion at a time (``portions``) without
    naming where, read as that portion put where it goes: the held bottle put into a container ("put
    into the plate" with the washing liquid in hand; "put into the rack" puts the bottle away); such
    a thing named as the place of a put while another is held ("put on soap": EPIC's "put soap on"),
    onto the thing the narration before was about; and the held bottle "put in" ("put on detergent")
    or such a thing poured with no place ("take sponge, pour washing up liquid"), into the container
    or onto the sponge held (``containers``, ``scrubbers``; not the knife spreading it)."""
    portion, receiver = _portion_and_receiver(extraction, held, retrieval, vocabulary)
    if portion is None or receiver is None:
        return extraction
    return extraction.model_copy(
        update={
            "food": portion,
            "food_phrase": portion,
            "target_kind": "food",
            "location": receiver,
            "location_role": "destination",
        }
    )


def _portion_and_receiver(
    extraction: Extraction, held: FoodView | None, retrieval: Retrieval, vocabulary: Vocabulary
) -> tuple[str | None, str | None]:
    """The portion a narration adds unsaid and the name of what receives it, else (None, None)."""
    place = extraction.location
    if extraction.food is not None:
        if place is None and extraction.pours and vocabulary.is_portion(extraction.food):
            into = _receiver_held(retrieval, vocabulary, extraction.food)
            return extraction.food, into or _worked_in(retrieval, vocabulary, extraction.food)
        return None, None
    if held is None or place is None or vocabulary.zone_for(place) is not None:
        return None, None
    if _names(vocabulary, held, place):
        portion = held.name if vocabulary.is_portion(held.name) else None
        return portion, _receiver_held(retrieval, vocabulary, held.name) if portion else None
    if vocabulary.is_portion(held.name) and head_noun(place) in vocabulary.containers:
        return held.name, place
    if vocabulary.is_portion(place):
        last = retrieval.last
        receiver = last if last is not None and not _names(vocabulary, last, place) else held
        return place, receiver.name
    return None, None


def _receiver_held(retrieval: Retrieval, vocabulary: Vocabulary, portion: str) -> str | None:
    """The container or sponge held, handled last, other than the portion's own bottle."""
    receivers = vocabulary.containers | vocabulary.scrubbers
    held = [
        food
        for food in retrieval.held
        if not _names(vocabulary, food, portion) and head_noun(food.name) in receivers
    ]
    return max(held, key=lambda food: food.last_seen).name if held else None


def adds_portion(extraction: Extraction, retrieval: Retrieval, vocabulary: Vocabulary) -> bool:
    """Whether the narration adds a portion of something used a portion at a time (``portions``):
    put onto or into an object ("put salt on chicken breasts"), or poured, tipped or spooned into a
    named place from its pack ("pour flour into pan", "spoon sugar into pan"). That portion is a thing
    of its own there; the pack, bottle or shaker does not move. A portion already moved into a spoon
    or bowl is poured on as itself ("tip salt into pan"). Another thing when poured, spread or
    scraped out of its pack (_poured_from_its_pack) or put from its pack just opened (_from_its_pack)."""
    named = _named_place(extraction)
    if extraction.food is None or named is None:
        return False
    if not vocabulary.is_portion(extraction.food):
        return _poured_from_its_pack(extraction, named, retrieval, vocabulary) or _from_its_pack(
            extraction, named, retrieval, vocabulary
        )
    if extraction.verb_type is UpdateType.PLACE:
        return vocabulary.zone_for(named) is None
    if not extraction.pours or extraction.location_role != "destination":
        return False
    return not retrieval.matching() or _pack(retrieval) is not None


def _poured_from_its_pack(
    extraction: Extraction, named: str, retrieval: Retrieval, vocabulary: Vocabulary
) -> bool:
    """Whether any food is poured, spread, scraped or sprinkled into or onto a named object out of its
    pack, jar, bottle or box ("take cereal, pour cereal into bowl", "spread butter on bread"): the
    thing of that name is held or lies directly at a place, the narrations show it kept in a pack
    (_kept_in_pack), so what goes is some of it, a thing of its own (as EPIC's labels keep it), and
    the pack stays. Food lying in another object, or cut, cracked or stirred, is poured whole ("pour
    eggs into pan" from the bowl); a container, tool or pack poured ("pour kettle into pan") is no food."""
    pack = _pack(retrieval)
    if not extraction.pours or extraction.location_role != "destination" or pack is None:
        return False
    if vocabulary.works_food_only(extraction.verb or "") or _in_a_vessel(retrieval, vocabulary):
        # "spoon rice onto plate", "pour pasta into colander": the food cooked, not its pack
        return False
    if vocabulary.zone_for(named) is not None or _holds_or_handles(pack.name, vocabulary):
        return False
    if head_noun(pack.name) in vocabulary.containers or _names(vocabulary, pack, named):
        return False
    return _kept_in_pack(pack, vocabulary) and not any(_loosens(i, vocabulary) for i in pack.recent)


def _in_a_vessel(retrieval: Retrieval, vocabulary: Vocabulary) -> bool:
    """Whether a thing of the name lies in a vessel food is worked in (the pasta poured into the pot)."""
    return any(
        food.hand is None and head_noun(food.location_name) in vocabulary.vessels
        for food in retrieval.matching()
    )


def _kept_in_pack(food: FoodView, vocabulary: Vocabulary) -> bool:
    """Whether the narrations show the thing kept in a pack (``sold_in``): foods.yaml names its kind
    by one ("butter tub", "pasta packet"), or it or a narration about it was named with one ("take
    mustard jar", "open package of pasta")."""
    if vocabulary.names.canonical(food.name) in vocabulary.packed_foods or vocabulary.names_pack(food.said):
        return True
    return any(vocabulary.names_pack(normalise_phrase(i.narration)) for i in food.recent)


def _loosens(interaction: Interaction, vocabulary: Vocabulary) -> bool:
    """Whether the narration left the food out of any pack: cut up, cracked, torn or scooped, stirred
    or mixed, or poured out of its pack as a portion (the rice poured into a cup, picked up again)."""
    entry = vocabulary.verb_entry(interaction.action)
    if entry is None:
        return False
    poured_out = entry.pours and interaction.outcome is OutcomeKind.CREATE_NEW
    return entry.cuts_up or entry.carries or entry.food_only or poured_out


def _from_its_pack(extraction: Extraction, named: str, retrieval: Retrieval, vocabulary: Vocabulary) -> bool:
    """Whether a thing not listed as used a portion at a time is put from its pack just opened into or
    onto a named object ("open package of pasta, put pasta on plate"): what goes is some of it, a
    thing of its own, and the pack stays where it is. Not a lid, pack or container opened and put,
    nor a thing put back into a pack or bag."""
    pack = _pack(retrieval)
    if extraction.verb_type is not UpdateType.PLACE or pack is None or not _pack_opened(pack, vocabulary):
        return False
    if vocabulary.zone_for(named) is not None or _holds_or_handles(pack.name, vocabulary):
        return False
    # "put egg in package" puts it back: a pack or bag is no dish
    packed = _holds_or_handles(named, vocabulary) or head_noun(named) in vocabulary.bags
    return not packed and head_noun(pack.name) not in vocabulary.containers


def _pack_opened(food: FoodView, vocabulary: Vocabulary) -> bool:
    """Whether the thing is open and the narration that opened it named its pack ("open package of
    pasta", "open bread package"; not "open spinach")."""
    if food.state != "open":
        return False
    for interaction in reversed(food.recent):
        entry = vocabulary.verb_entry(interaction.action)
        if entry is not None and entry.state == food.state:
            packs = {*vocabulary.packs, *vocabulary.bags}
            return any(singular_phrase(word) in packs for word in words(interaction.narration))
    return False


def _pack(retrieval: Retrieval) -> FoodView | None:
    """The pack, bottle or shaker a portion comes from: the thing of that name found first when it
    is held or lies directly at a place (not already poured into a spoon or bowl); else None."""
    found = retrieval.matching()[:1]
    if not found or (found[0].hand is None and found[0].location_id != found[0].zone_id):
        return None
    return found[0]


def _portion_there(extraction: Extraction, retrieval: Retrieval, vocabulary: Vocabulary) -> FoodView | None:
    """The portion of that name already at the named place (a second spoonful of sugar joins the first),
    else None: a new portion. The pack itself is none ("put down flour, pour flour onto counter")."""
    place = vocabulary.names.canonical(_named_place(extraction) or "")
    pack = _pack(retrieval)
    there = [
        food
        for food in retrieval.matching()
        if food.hand is None
        and (pack is None or food.food_id != pack.food_id)
        and vocabulary.names.canonical(food.location_name or "") == place
    ]
    return there[0] if there else None


def _held_object(extraction: Extraction, retrieval: Retrieval, vocabulary: Vocabulary) -> FoodView | None:
    """The object a put without one is about: the held one its place names when it is used a portion
    at a time ("put in oil"), else the one handled last of the others held ("put in dishwasher"; "put
    into the plate" with the plate and the washing liquid in hand: the liquid), else the thing handled
    last when it is at no known place; None when the narration names its object or is no put."""
    if extraction.food is not None or extraction.verb_type is not UpdateType.PLACE or extraction.not_object:
        # "put water in mug": the thing put is no object; what is held stays held
        return None
    if not retrieval.held:
        return retrieval.loose
    if _just_worked_on(retrieval, extraction, vocabulary):
        return retrieval.last
    named = [food for food in retrieval.held if _names(vocabulary, food, extraction.location)]
    poured = [food for food in named if vocabulary.is_portion(food.name)]
    others = [food for food in retrieval.held if food not in named]
    return (poured or sorted(others or named, key=lambda food: -food.last_seen))[0]


def _group_in_hand(extraction: Extraction, retrieval: Retrieval, vocabulary: Vocabulary) -> list[FoodView]:
    """What a put of a group noun ("put cutlery into drawer", ``groups`` in nouns.yaml) puts: the
    things of that group in hand, and those just taken and set down unsaid to free a hand for the
    next ("take knife, take fork, take cutlery": the knife), with a node of the group's own name held
    first. Empty when there are none: the group noun is then a thing of its own."""
    if extraction.verb_type is not UpdateType.PLACE or not extraction.group:
        return []
    held = [food for food in retrieval.held if _of_group(food, extraction)]
    set_down = [
        food
        for food in retrieval.recent
        if food.hand is None and _of_group(food, extraction) and _set_down_unsaid(food, vocabulary)
    ]
    if not held and not set_down:
        return []
    own = [food for food in retrieval.held if _names(vocabulary, food, extraction.food)]
    return [*own, *held, *set_down]


def _of_group(food: FoodView, extraction: Extraction) -> bool:
    return singular_phrase(head_noun(food.name)) in extraction.group


def _set_down_unsaid(food: FoodView, vocabulary: Vocabulary) -> bool:
    """Whether the thing's latest narration took it and it is out of hand at a guessed place: it
    was set down unsaid to free a hand."""
    if not food.recent or food.place_certainty != "likely":
        return False
    entry = vocabulary.verb_entry(food.recent[-1].action)
    return entry is not None and entry.type is UpdateType.TAKE


def _names_what_is_held(extraction: Extraction, retrieval: Retrieval, vocabulary: Vocabulary) -> bool:
    """Whether a bare put names what is held by a general noun ("put down ingredients",
    ``general_foods``) that names no node and no food worked on lately: the things in hand, not a
    new thing. With a place named ("put food in plate" with the pan held) the food is another thing."""
    return (
        extraction.verb_type is UpdateType.PLACE
        and extraction.location is None
        and extraction.general
        and bool(retrieval.held)
        and not retrieval.matching()
        and _worked_food(retrieval, vocabulary) is None
    )


def _just_worked_on(retrieval: Retrieval, extraction: Extraction, vocabulary: Vocabulary) -> bool:
    """Whether the narration before changed a thing not held ("rinse sharpening stand", "cut onion")
    that this put's place does not name: "put on drying rack" then puts that thing, not the one
    picked up earlier and still held."""
    last = retrieval.last
    if last is None or last.hand is not None or not last.recent:
        return False
    if last.zone_id in retrieval.closed_zones or _names(vocabulary, last, extraction.location):
        return False
    return last.recent[-1].outcome is OutcomeKind.MODIFY_STATE


def _names(vocabulary: Vocabulary, food: FoodView, phrase: str | None) -> bool:
    """Whether `phrase` is a name of `food` (synonyms folded: "oil" names the olive oil)."""
    return phrase is not None and vocabulary.names.canonical(phrase) == vocabulary.names.canonical(food.name)


def fallback_update(decision: RuleDecision, reason: str) -> KgUpdate | None:
    """The decision's update flagged low-confidence, for after the LLM was not asked or not believed."""
    if decision.update is None:
        return None
    note = f"rule-based fallback: {reason}"
    return decision.update.model_copy(update={"confidence": "low", "notes": (*decision.update.notes, note)})


def _target(
    extraction: Extraction, retrieval: Retrieval, vocabulary: Vocabulary, doubts: list[str]
) -> FoodView | None:
    """The node the narration is about: None for a first sighting (or "another one"); a thing thrown
    away is not the one taken next ("throw away plate ... take plate" takes another plate)."""
    if extraction.new_instance:
        return None
    if extraction.general and not retrieval.matching():
        return _worked_food(retrieval, vocabulary)
    matching = retrieval.matching()
    if extraction.verb_type is UpdateType.TAKE:
        matching = tuple(food for food in matching if _may_be_taken(food, extraction, retrieval, vocabulary))
    elif extraction.verb_type is UpdateType.MODIFY_STATE and _prepares(extraction, vocabulary):
        # slicing celery just put into the pan slices the rest; opening a stock cube just put into
        # the jug opens the next one
        matching = tuple(food for food in matching if not _just_put_in_container(food, vocabulary))
    elif vocabulary.works_food_only(extraction.verb or ""):
        # "stir the pasta" just poured into the pot from its packet: the portion, not the packet held
        matching = tuple(_narrowed(list(matching), lambda food: _poured_out(food, vocabulary)))
    elif _discards(extraction, vocabulary):
        matching = tuple(
            food
            for food in matching
            if not (_stored(food, vocabulary) or _thrown_away_before(food, retrieval, vocabulary))
        )
    if extraction.verb_type is UpdateType.PLACE:
        rest_goes = _rest_goes(extraction, vocabulary)
        matching = tuple(
            food
            for food in matching
            if not (_poured_in(food, vocabulary) or (rest_goes and _cut_up(food, vocabulary)))
        )
    if vocabulary.puts_away(extraction.verb or "") and extraction.location is None:
        # "put away bowl" once more while the first bowl lies in the cupboard: another bowl
        matching = tuple(food for food in matching if not _stowed(food, vocabulary))
    if extraction.verb_type is UpdateType.PLACE and _named_place(extraction) is not None:
        matching = tuple(
            food
            for food in matching
            if not (
                _put_away(food, extraction, vocabulary)
                or _put_there_before(food, extraction, retrieval, vocabulary)
            )
        )
    if not matching:
        return None
    options = _preferred(matching, extraction, retrieval.closed_zones)
    if len(options) > 1:
        ids = ", ".join(food.food_id for food in options)
        doubts.append(
            f"{len(options)} nodes could be the {extraction.food} ({ids}); chose {options[0].food_id}"
        )
    return options[0]


def _worked_food(retrieval: Retrieval, vocabulary: Vocabulary) -> FoodView | None:
    """The food a general noun names ("stir rice ... scoop food"): the one seen last that a verb done
    to food alone (``food_only``: stir, spoon, knead) was done to lately; None when there is none
    (the general noun is then a thing of its own, as "put food in plate" with nothing cooked said)."""
    for food in retrieval.recent:
        if any(vocabulary.works_food_only(interaction.action) for interaction in food.recent):
            return food
    return None


def _worked_in(retrieval: Retrieval, vocabulary: Vocabulary, portion: str) -> str | None:
    """With no container held, what a portion poured or sprinkled with no place goes into: the
    object holding the food worked on lately ("grind spices" in the mortar, then "sprinkle chilli
    flakes"), else the one a food was put into lately (the toast just topped with garlic, the pan
    the tomato paste went into), else None (no portion: the pack is only said to be poured)."""
    worked = _worked_food(retrieval, vocabulary) or _food_put_in(retrieval, vocabulary)
    if worked is None or _names(vocabulary, worked, portion) or worked.location_id == worked.zone_id:
        return None
    return worked.location_name


def _food_put_in(retrieval: Retrieval, vocabulary: Vocabulary) -> FoodView | None:
    """The food seen last that its latest narration put or poured into or onto another object: the
    dish being made. Not a container or tool put somewhere (a spoon left in the pan), nor a thing put
    into a pack or onto a tool (cans into a bag, cheese back into its packet)."""
    for food in retrieval.recent:
        holder = food.location_name or ""
        if food.location_id == food.zone_id or not holder or not food.recent:
            continue
        latest = food.recent[-1]
        entry = vocabulary.verb_entry(latest.action)
        put = entry is not None and (entry.type is UpdateType.PLACE or entry.pours)
        tool = _holds_or_handles(food.name, vocabulary) or head_noun(food.name) in vocabulary.containers
        if put and latest.location_context and not tool and not _holds_or_handles(holder, vocabulary):
            return food
    return None


def _holds_or_handles(name: str, vocabulary: Vocabulary) -> bool:
    """Whether a thing of this name is a pack, utensil, lid or sponge: it holds or handles food."""
    return head_noun(name) in vocabulary.handlers


def _named_place(extraction: Extraction) -> str | None:
    """The place the narration sends its object to (not where it came from), if it names one."""
    return extraction.location if extraction.location_role in ("destination", "place") else None


def _discards(extraction: Extraction, vocabulary: Vocabulary) -> bool:
    """Whether the narration throws its object away (a place it names, or its verb implies, discards)."""
    entry = vocabulary.verb_entry(extraction.verb or "")
    named = _named_place(extraction)
    place = named or (entry.to if entry is not None else None)
    zone = vocabulary.zone_for(place) if place is not None else None
    return zone is not None and zone[0] in vocabulary.discard_zones


def _thrown_away_before(food: FoodView, retrieval: Retrieval, vocabulary: Vocabulary) -> bool:
    """Whether the thing lies in the bin from an earlier narration than the one before ("throw away
    garbage" once more, later on: other garbage). Said twice in a row, it is the same throw."""
    return (
        food.hand is None
        and food.zone_name in vocabulary.discard_zones
        and food.food_id != retrieval.last_handled
    )


def _put_there_before(
    food: FoodView, extraction: Extraction, retrieval: Retrieval, vocabulary: Vocabulary
) -> bool:
    """Whether the thing's latest narration, not the one just before, put it where this put sends an
    X ("put spoon in dishwasher, put knife in dishwasher, put spoon in dishwasher"): nothing took it
    out, so the second put is about another X. Said twice in a row, it is the same put (also when the
    first named two things: "put plate and spoon in dishwasher" twice), and when the first put never
    named it; more of a food put into the pan it cooks in joins it."""
    in_vessel = food.location_id != food.zone_id and head_noun(food.location_name) in vocabulary.vessels
    return (
        food.hand is None
        and not in_vessel
        and food.place_certainty == "sure"
        and not _in_latest_narration(food, retrieval)
        and _put_last(food, vocabulary)
        and _said_in_latest(food, vocabulary)
        and _where_named(food, extraction, vocabulary)
    )


def _said_in_latest(food: FoodView, vocabulary: Vocabulary) -> bool:
    """Whether the thing's latest narration said its name ("put knife in dishwasher"), not only found
    it in hand ("put in dishwasher" with the knife held: which thing went in was a guess)."""
    if not food.recent:
        return False
    head = vocabulary.names.head(food.name)
    return any(vocabulary.names.head(word) == head for word in words(food.recent[-1].narration))


def _in_latest_narration(food: FoodView, retrieval: Retrieval) -> bool:
    """Whether the narration just before was about the thing (alone or with others it named)."""
    return food.food_id == retrieval.last_handled or food.last_seen == retrieval.last_handled_seen


def _where_named(food: FoodView, extraction: Extraction, vocabulary: Vocabulary) -> bool:
    """Whether the place the narration names is where the thing is (its zone or the object it is in)."""
    named = _named_place(extraction)
    here = {normalise_phrase(food.location_name or ""), normalise_phrase(food.zone_name or "")}
    zone = vocabulary.zone_for(named) if named is not None else None
    return normalise_phrase(named or "") in here or (zone is not None and zone[0] in here)


def _put_away(food: FoodView, extraction: Extraction, vocabulary: Vocabulary) -> bool:
    """Whether the thing's latest narration put it away somewhere else, not where one works nor into a
    vessel food is worked in ("put yeast in bin", then "put yeast in cupboard"; the lid set on the
    drying rack, then "put lid on bin"; food served onto a plate, then "put food in container"): a put
    naming another place, with no take between, is about another one of that name."""
    if food.location_id is None or food.place_certainty != "sure" or not _put_last(food, vocabulary):
        return False
    if _where_named(food, extraction, vocabulary):
        return False
    if food.location_id != food.zone_id:
        return head_noun(food.location_name) not in vocabulary.vessels
    return food.zone_name not in vocabulary.work_zones


def _cut_up(food: FoodView, vocabulary: Vocabulary) -> bool:
    """Whether the thing's latest narration cut it up (``cuts_up``: "dice onion"): put into the bin
    or away right after ("put onion in bin", "put pepper into fridge"), what goes is the rest of it,
    a thing of its own, and the pieces stay to be used. What a cut made ("chop ends off celery, put
    ends in bin") is what goes."""
    if not food.recent:
        return False
    latest = food.recent[-1]
    entry = vocabulary.verb_entry(latest.action)
    return entry is not None and entry.cuts_up and latest.outcome is OutcomeKind.MODIFY_STATE


def _rest_goes(extraction: Extraction, vocabulary: Vocabulary) -> bool:
    """Whether the put bins its object or puts it where things are kept: of a thing just cut up,
    that is the rest of it (a bare "throw away" with the chopped leek in hand stays the leek: made
    the rest, it cost a duplicate and won no place)."""
    return _discards(extraction, vocabulary) or _stores_away(extraction, vocabulary)


def _stores_away(extraction: Extraction, vocabulary: Vocabulary) -> bool:
    """Whether the put sends its object where things are kept (``keeps``: the fridge, a cupboard),
    named or implied ("put away")."""
    named = _named_place(extraction)
    zone = vocabulary.zone_for(named) if named is not None else None
    return (zone is not None and zone[0] in vocabulary.storage_zones) or (
        named is None and vocabulary.puts_away(extraction.verb or "")
    )


def _poured_in(food: FoodView, vocabulary: Vocabulary) -> bool:
    """Whether the thing's latest narration poured it into another object ("pour yeast into pan") or
    put a portion of it there ("put on detergent" onto the sponge): it is mixed in or used there, and
    a put ("put yeast in cupboard", "put detergent") is about its pack."""
    if food.hand is not None or food.location_id == food.zone_id or not food.recent:
        return False
    entry = vocabulary.verb_entry(food.recent[-1].action)
    portion = vocabulary.is_portion(food.name) and _put_last(food, vocabulary)
    return (entry is not None and entry.pours) or portion


def _may_be_taken(
    food: FoodView, extraction: Extraction, retrieval: Retrieval, vocabulary: Vocabulary
) -> bool:
    """Whether a bare "take X" can take this X. Not one thrown away; and, when no place is named, not
    one shut in a closed receptacle, nor the one the narration before put into a receptacle ("put down
    spoon, pick up spoon" while sorting cutlery into an open drawer: the next spoon), nor one its
    latest narration put into a container (pan, bowl, plate): "put chicken breast in pan, pick up
    chicken breast" picks up the next one, not the one cooking; a utensil left in a pan ("put spoon into
    pan, take spoon") is the one taken again, and so is a thing a bare put only guessed back into the
    receptacle it came out of. Put down anywhere else, it is the same thing picked up again ("put
    saucepan, grab saucepan")."""
    if food.zone_name in vocabulary.discard_zones:
        return False
    if extraction.location is not None:
        return True
    if food.zone_id in retrieval.closed_zones or _loaded_to_wash(food, retrieval, vocabulary):
        return False
    just_stored = (
        food.food_id == retrieval.last_handled
        and _put_last(food, vocabulary)
        and _in_receptacle(food, vocabulary)
        and not _guessed_back(food, retrieval)
    )
    left_in_use = _just_put_in_container(food, vocabulary) and not _stirring(food, vocabulary)
    return not (just_stored or left_in_use or _poured_portion(food, vocabulary))


def _poured_portion(food: FoodView, vocabulary: Vocabulary) -> bool:
    """Whether the thing is a portion its latest narration poured or sprinkled into or onto another
    object ("apply spice" into the pan being cooked): it is used there, and a bare "take spice" after
    takes the jar again."""
    return _poured_out(food, vocabulary) and vocabulary.is_portion(food.name)


def _poured_out(food: FoodView, vocabulary: Vocabulary) -> bool:
    """Whether the thing's latest narration poured it out of its pack into or onto another object, a
    thing of its own there (the pasta poured into the pot): what a verb done to food alone is done to."""
    if food.hand is not None or food.location_id == food.zone_id or not food.recent:
        return False
    latest = food.recent[-1]
    entry = vocabulary.verb_entry(latest.action)
    return latest.outcome is OutcomeKind.CREATE_NEW and entry is not None and entry.pours


def _loaded_to_wash(food: FoodView, retrieval: Retrieval, vocabulary: Vocabulary) -> bool:
    """Whether a narration before the one just before said the thing was put into the dishwasher
    (``washes`` in locations.yaml): it is there to be washed, so a bare "take spoon" later takes
    another spoon; "take spoon from dishwasher" names the place and takes it."""
    return (
        food.zone_name in vocabulary.washing_zones
        and food.location_id == food.zone_id
        and food.place_certainty == "sure"
        and food.food_id != retrieval.last_handled
    )


def _guessed_back(food: FoodView, retrieval: Retrieval) -> bool:
    """Whether only a bare put guessed the thing into the open receptacle it was taken (or first
    seen) after opening ("open cupboard, take oil, put down oil, pick up oil"): it came out of
    there, was set down outside, and is the one taken again; a spoon carried before the drawer
    opened, put down while sorting cutlery into it, stays in."""
    opened = retrieval.opened_at.get(food.zone_id or "")
    return food.place_certainty == "likely" and opened is not None and _taken_at(food) >= opened


def _taken_at(food: FoodView) -> float:
    """When the thing was last taken, as far as its recent history shows, else first seen."""
    takes = [
        interaction.start
        for interaction in food.recent
        if interaction.outcome in (OutcomeKind.TAKE, OutcomeKind.CREATE_NEW)
    ]
    return max(takes, default=food.first_seen)


def _stirring(food: FoodView, vocabulary: Vocabulary) -> bool:
    """Whether the thing is a utensil (spoon, spatula, ladle) resting in a vessel food is worked in (a
    pan, pot): it is in use there. A knife laid on a plate is cleared away with it, not in use."""
    utensil = (
        normalise_phrase(food.name) in vocabulary.utensils or head_noun(food.name) in vocabulary.utensils
    )
    return utensil and head_noun(food.location_name) in vocabulary.vessels


def _stored(food: FoodView, vocabulary: Vocabulary) -> bool:
    """Whether the thing was said to be put away in a receptacle (the bag of celery into the freezer;
    not a guess): a thing thrown away without being taken out first is another one of that name."""
    return food.place_certainty == "sure" and _stowed(food, vocabulary)


def _stowed(food: FoodView, vocabulary: Vocabulary) -> bool:
    """Whether the thing's latest narration put it into a receptacle (a cupboard, drawer, fridge;
    said or guessed) and nothing took it out: a put away said again is about another one."""
    return _in_receptacle(food, vocabulary) and _put_last(food, vocabulary)


def _in_receptacle(food: FoodView, vocabulary: Vocabulary) -> bool:
    """Whether the thing lies directly in a receptacle one opens (a drawer, the fridge; not the hob
    one works at), not on a surface or in another object."""
    return (
        food.hand is None
        and food.location_id == food.zone_id
        and food.zone_name in vocabulary.receptacles - vocabulary.work_zones
    )


def _put_last(food: FoodView, vocabulary: Vocabulary) -> bool:
    """Whether the thing's latest narration put it where it is: a put, also when it names the thing
    for the first time ("put food in plate"; not "chop ends off celery")."""
    if not food.recent:
        return False
    latest = food.recent[-1]
    entry = vocabulary.verb_entry(latest.action)
    put_first = (
        latest.outcome is OutcomeKind.CREATE_NEW and entry is not None and entry.type is UpdateType.PLACE
    )
    return latest.outcome is OutcomeKind.PLACE or put_first


def _just_put_in_container(food: FoodView, vocabulary: Vocabulary) -> bool:
    """Whether the thing's latest narration put it into a container (a pan, bowl, jug, plate)."""
    in_container = food.hand is None and head_noun(food.location_name) in vocabulary.containers
    return in_container and _put_last(food, vocabulary)


def _prepares(extraction: Extraction, vocabulary: Vocabulary) -> bool:
    """Whether the verb prepares a thing for use (``prepares: true``: cut, slice, open)."""
    entry = vocabulary.verb_entry(extraction.verb or "")
    return entry is not None and entry.prepares


def _preferred(
    matching: Sequence[FoodView], extraction: Extraction, closed_zones: frozenset[str] = frozenset()
) -> list[FoodView]:
    """The candidates the narration fits best, best first: the named hand, the held one for putting
    down or changing (else one not shut in a closed receptacle: "turn chicken" is the one cooking,
    not the rest in the closed fridge), the one not held for taking (at the named place if any)."""
    options = list(matching)
    if extraction.hand is not None:
        options = _narrowed(options, lambda food: food.hand == extraction.hand)
    if extraction.verb_type is UpdateType.TAKE:
        options = _narrowed(options, lambda food: food.hand is None)
        if extraction.location is not None:
            place = normalise_phrase(extraction.location)
            options = _narrowed(options, lambda food: normalise_phrase(food.place_name) == place)
    else:
        options = _narrowed(options, lambda food: food.zone_id not in closed_zones)
        options = _narrowed(options, lambda food: food.hand is not None)
    return options


def _narrowed(options: list[FoodView], keep: object) -> list[FoodView]:
    kept = [food for food in options if keep(food)]  # type: ignore[operator]
    return kept or options


def _update(
    narration: Narration,
    extraction: Extraction,
    target: FoodView | None,
    vocabulary: Vocabulary,
    confidence: Confidence,
    doubts: list[str],
) -> KgUpdate:
    verb_type = extraction.verb_type or UpdateType.MODIFY_STATE
    destination = _destination(verb_type, extraction, vocabulary, target)
    moves = verb_type is UpdateType.MODIFY_STATE and destination is not None
    kind = UpdateType.PLACE if moves else verb_type
    new_food = None
    if target is None:
        kind = UpdateType.CREATE_NEW
        new_food = NewFood(
            name=extraction.food or "",
            said=extraction.food_phrase,
            quantity=extraction.quantity or "unknown",
        )
    return KgUpdate(
        update_type=kind,
        target_food_id=target.food_id if target else None,
        new_food=new_food,
        destination=destination,
        state=extraction.state_after,
        quantity=extraction.quantity if target is not None else None,
        action=extraction.verb or "handle",
        narration_text=narration.text,
        location_context=_context(verb_type, extraction, destination),
        source="rules",
        confidence=confidence,
        notes=tuple(f"rules unsure: {doubt}" for doubt in doubts),
        also=extraction.also,
    )


def _destination(
    verb_type: UpdateType, extraction: Extraction, vocabulary: Vocabulary, target: FoodView | None
) -> Destination | None:
    """Where the verb takes the object: a hand, the place named (not where it came from), back, or
    an unknown place; a state verb moves it only when it carries it ("tear lettuce into bowl"), or
    pours what is not held ("pour eggs into pan" from the bowl, "pour rice into pan"; not "pour milk"
    from the carton in hand)."""
    named = _named_place(extraction)
    if verb_type is UpdateType.TAKE:
        return Destination(kind="hand", hand=extraction.hand)
    if verb_type is UpdateType.PLACE:
        entry = vocabulary.verb_entry(extraction.verb or "")
        implied = entry.to if entry is not None else None
        if named is not None or implied is not None:
            return Destination(kind="zone", zone=named or implied)
        return Destination(kind="back" if entry is not None and entry.back else "unknown")
    poured = extraction.pours and (target is None or target.hand is None)
    if (extraction.carries or poured) and named is not None and extraction.location_role == "destination":
        return Destination(kind="zone", zone=named)
    return None


def _context(verb_type: UpdateType, extraction: Extraction, destination: Destination | None) -> str:
    """Where the action happened, for the history: where a taken object came from, where a placed
    one went, where a changed one is; never where something that stays behind is poured *into*."""
    if extraction.location is None:
        return ""
    if (
        extraction.location_role == "destination"
        and verb_type is UpdateType.MODIFY_STATE
        and destination is None
    ):
        return ""
    return extraction.location
