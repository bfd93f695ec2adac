"""The suites ``treebrain eval`` runs, by name."""

from __future__ import annotations

from treebrain.evaluation.cases import Suite
from treebrain.evaluation.suites.kg import KgSuite
from treebrain.evaluation.suites.language import LanguageSuite
from treebrain.evaluation.suites.manipulation import ManipulationSuite
from treebrain.evaluation.suites.navigation import NavigationSuite
from treebrain.evaluation.suites.overhead import OverheadSuite
from treebrain.evaluation.suites.planning import GroundingSuite, PlanningSuite
from treebrain.evaluation.suites.tdl import TdlSuite
from treebrain.evaluation.suites.voice import VoiceSuite

SUITES: dict[str, type[Suite]] = {
    suite.name: suite
    for suite in (
        TdlSuite,
        OverheadSuite,
        NavigationSuite,
        ManipulationSuite,
        PlanningSuite,
        GroundingSuite,
        LanguageSuite,
        VoiceSuite,
        KgSuite,
    )
}
