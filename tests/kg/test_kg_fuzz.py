"""Whatever an LLM or a narration file says, the stage functions answer instead of raising."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from treebrain.kg.config import KitchenConfig
from treebrain.kg.extraction import extract_entities
from treebrain.kg.graph import KitchenGraph
from treebrain.kg.llm_extraction import parse_extraction
from treebrain.kg.models import Narration
from treebrain.kg.names import normalise_phrase
from treebrain.kg.retrieval import retrieve_candidates
from treebrain.kg.validation import validate_update

scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
field_values = scalars | st.sampled_from(
    [
        "TAKE",
        "PLACE",
        "CREATE_NEW",
        "MODIFY_STATE",
        "turn",
        "in_hand",
        "food_milk_1",
        "zone_fridge_1",
        "fridge",
    ]
)
answers = st.fixed_dictionaries(
    {},
    optional={
        "update_type": field_values,
        "target_food_id": field_values,
        "new_food_info": st.none()
        | st.fixed_dictionaries(
            {}, optional={"name": field_values, "state": field_values, "quantity": field_values}
        ),
        "updates": st.none()
        | st.fixed_dictionaries(
            {}, optional=dict.fromkeys(("location", "hand", "state", "quantity"), field_values)
        ),
        "history_entry": st.none()
        | st.fixed_dictionaries(
            {},
            optional=dict.fromkeys(
                ("start_time", "end_time", "action", "narration_text", "location_context"), field_values
            ),
        ),
    },
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(answer=answers | values)
def test_any_answer_is_either_accepted_or_explained(kitchen: KitchenConfig, answer: object) -> None:
    kg = KitchenGraph(kitchen.vocabulary.names)
    kg.put_at(kg.add_food("milk"), kg.add_zone("fridge", "appliance"))
    narration = Narration(id="n", start=1.0, end=2.0, text="take the milk from the fridge")
    extraction = extract_entities(narration.text, kitchen.vocabulary)
    check = validate_update(
        answer, narration, extraction, retrieve_candidates(kg, extraction), kg, kitchen.vocabulary
    )
    assert (check.update is None) == bool(check.errors)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=60), answer=values)
def test_any_text_extracts_and_any_extractor_answer_parses(
    kitchen: KitchenConfig, text: str, answer: object
) -> None:
    extraction = extract_entities(text, kitchen.vocabulary)
    assert extraction.target_kind in ("food", "zone", "none", "unknown")
    if extraction.food is not None:
        assert extraction.food_phrase is not None
        assert set(extraction.food_phrase.split()) <= set(normalise_phrase(text).split()), "only named words"
    narration = Narration(id="n", start=1.0, end=2.0, text=text or "x")
    check = parse_extraction(answer, narration, kitchen.vocabulary)
    assert (check.extraction is None) == bool(check.errors)
