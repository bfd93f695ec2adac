// treebrain viewer: draws the tree, follows the run over Server-Sent Events, scrubs its timeline.
// Everything shown comes from the tree and may be LLM output, so text only ever enters the page
// through textContent / createTextNode; nothing here ever parses data as HTML.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const NODE_WIDTH = 150;
const NODE_HEIGHT = 34;
const LABEL_LIMIT = 22;
const VALUE_LIMIT = 300;

const state = {
  definition: null,
  nodes: new Map(), // path -> {info, group, edge}
  first: null,
  last: null,
  run: null,
  tick: null,
  mode: "live", // live | paused | playing
  selected: null,
  snapshot: null,
  pendingTick: null,
  loading: false,
  playTimer: null,
  frameTick: null, // the tick of the camera frame shown
};

// ---------------------------------------------------------------------------------------------
// small DOM helpers (text only)

function el(tag, attributes, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (name === "className") element.className = value;
    else element.setAttribute(name, String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

function svg(tag, attributes) {
  const element = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes || {})) element.setAttribute(name, String(value));
  return element;
}

function clear(element) {
  while (element.firstChild) element.removeChild(element.firstChild);
}

function short(text, limit) {
  return text.length <= limit ? text : text.slice(0, limit - 1) + "\u2026";
}

function asText(value) {
  if (value === undefined) return "";
  return typeof value === "string" ? value : JSON.stringify(value, null, 2);
}

function oneLine(value) {
  return typeof value === "string" ? value : JSON.stringify(value);
}

async function getJson(url) {
  const response = await fetch(url, { cache: "no-store" });
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || response.statusText);
  return body;
}

function setConnection(text) {
  document.getElementById("connection").textContent = text;
}

// ---------------------------------------------------------------------------------------------
// the tree

function drawTree(definition) {
  const tree = document.getElementById("tree");
  clear(tree);
  tree.setAttribute("width", definition.width);
  tree.setAttribute("height", definition.height);
  tree.setAttribute("viewBox", `0 0 ${definition.width} ${definition.height}`);
  const edges = svg("g", { class: "edges" });
  const boxes = svg("g", { class: "nodes" });
  tree.append(edges, boxes);
  const byIndex = definition.nodes;
  for (const info of byIndex) {
    let edge = null;
    if (info.parent !== null) {
      const parent = byIndex[info.parent];
      edge = svg("line", {
        class: "edge",
        x1: parent.x, y1: parent.y + NODE_HEIGHT, x2: info.x, y2: info.y,
      });
      edges.append(edge);
    }
    const group = svg("g", { class: "node status-INVALID", "data-path": info.path, "data-status": "INVALID" });
    const title = svg("title");
    title.textContent = `${info.path} (${info.type})`;
    const rect = svg("rect", {
      x: info.x - NODE_WIDTH / 2, y: info.y, width: NODE_WIDTH, height: NODE_HEIGHT, rx: 6,
    });
    const name = svg("text", { x: info.x, y: info.y + 15, "text-anchor": "middle", class: "name" });
    name.textContent = short(info.name, LABEL_LIMIT);
    const kind = svg("text", { x: info.x, y: info.y + 28, "text-anchor": "middle", class: "kind" });
    kind.textContent = short(info.kind === "leaf" ? info.type : `${info.type}`, LABEL_LIMIT + 4);
    group.append(title, rect, name, kind);
    group.addEventListener("click", () => selectNode(info.path));
    boxes.append(group);
    state.nodes.set(info.path, { info, group, title, edge });
  }
}

function paintTree(snapshot) {
  const visited = new Set(snapshot.visited_path);
  for (const [path, entry] of state.nodes) {
    const behaviour = snapshot.behaviours[path];
    const status = behaviour ? behaviour.status : "INVALID";
    entry.group.setAttribute("class", `node status-${status}` + (path === state.selected ? " selected" : ""));
    entry.group.setAttribute("data-status", status);
    const feedback = behaviour && behaviour.details ? `\n${behaviour.details}` : "";
    entry.title.textContent = `${path} (${entry.info.type}): ${status}${feedback}`;
    if (entry.edge) entry.edge.setAttribute("class", visited.has(path) ? "edge visited" : "edge");
  }
}

// ---------------------------------------------------------------------------------------------
// panels

function paintBlackboard(snapshot) {
  const body = document.querySelector("#blackboard tbody");
  clear(body);
  const extra = snapshot.treebrain;
  const written = new Set(extra.written);
  const keys = Object.keys(extra.values).sort();
  for (const key of keys) {
    const full = oneLine(extra.values[key]);
    const value = el("td", { className: "value", title: short(full, 4000) }, short(full, VALUE_LIMIT));
    const row = el("tr", { "data-key": key }, el("td", {}, key), value, el("td", {}, extra.writers[key] || ""));
    if (written.has(key)) row.className = "written";
    body.append(row);
  }
  if (!keys.length) body.append(el("tr", {}, el("td", { colspan: 3, className: "muted" }, "no values")));
}

function fact(list, label, value) {
  list.append(el("dt", {}, label), el("dd", {}, value));
}

function llmCallView(call, open) {
  const tokens = `${call.input_tokens ?? "?"} in / ${call.output_tokens ?? "?"} out tokens`;
  const latency = call.latency_s === null || call.latency_s === undefined ? "" : ` \u00b7 ${call.latency_s.toFixed(2)} s`;
  const cost = call.cost_usd ? ` \u00b7 $${call.cost_usd.toFixed(5)}` : "";
  const who = call.provider ? `${call.provider}/${call.model}` : call.profile || "";
  const summary = el("summary", {}, `tick ${call.tick} \u00b7 ${who} \u00b7 ${tokens}${latency}${cost}`);
  const view = el("details", { className: "llm-call" }, summary);
  if (open) view.setAttribute("open", "");
  if (call.system) view.append(el("div", { className: "role" }, "system prompt"), el("pre", { className: "prompt" }, call.system));
  for (const message of call.messages) {
    view.append(el("div", { className: "role" }, message.role), el("pre", { className: "prompt" }, message.content));
  }
  if (call.response !== null && call.response !== undefined) {
    view.append(el("div", { className: "role" }, "response"), el("pre", { className: "response" }, call.response));
  }
  if (call.parsed !== null && call.parsed !== undefined) {
    view.append(el("div", { className: "role" }, "parsed"), el("pre", {}, asText(call.parsed)));
  }
  if (call.tool_calls && call.tool_calls.length) {
    view.append(el("div", { className: "role" }, "tool calls"), el("pre", {}, asText(call.tool_calls)));
  }
  if (call.error) {
    view.append(el("div", { className: "role error" }, "error"), el("pre", { className: "error" }, `${call.error.kind}: ${call.error.message}`));
  }
  return view;
}

function paintNode(details) {
  const target = document.getElementById("node-details");
  clear(target);
  const node = details.node;
  const status = el("span", { className: `badge status-${details.status}` }, details.ticked ? details.status : "not ticked");
  target.append(el("h3", {}, node.name, status));
  const facts = el("dl", { className: "facts" });
  fact(facts, "path", node.path);
  fact(facts, "type", `${node.type} (${node.kind})`);
  if (node.class_name) fact(facts, "class", node.class_name);
  fact(facts, "defined in", node.line ? `${node.file}:${node.line}` : node.file);
  fact(facts, "tick", String(details.tick));
  fact(facts, "feedback", details.feedback || "\u2014");
  target.append(facts);
  if (Object.keys(node.params).length) {
    target.append(el("h4", {}, "params"), el("pre", { className: "params" }, asText(node.params)));
  }
  if (details.ports.length) {
    const rows = details.ports.map((port) =>
      el("tr", {},
        el("td", {}, port.direction),
        el("td", {}, port.port),
        el("td", {}, port.key),
        el("td", { className: "value" }, port.has_value ? short(oneLine(port.value), VALUE_LIMIT) : "(no value)"),
        el("td", {}, port.writer || "")));
    const head = el("tr", {}, ...["", "port", "key", "value", "last writer"].map((name) => el("th", {}, name)));
    target.append(el("h4", {}, "ports"), el("table", { className: "ports" }, el("thead", {}, head), el("tbody", {}, ...rows)));
  }
  if (details.llm_calls.length) {
    target.append(el("h4", {}, `LLM calls (latest ${details.llm_calls.length})`));
    details.llm_calls.forEach((call, index) => target.append(llmCallView(call, index === 0)));
  }
  if (details.events.length) {
    const items = details.events.map((event) => el("li", {}, `tick ${event.tick} ${event.kind}: ${oneLine(event.data)}`));
    target.append(el("h4", {}, "events"), el("ul", { className: "events" }, ...items));
  }
}

async function refreshNode() {
  if (state.selected === null || state.tick === null) return;
  const path = state.selected;
  try {
    const details = await getJson(`/api/node?path=${encodeURIComponent(path)}&tick=${state.tick}`);
    if (path === state.selected) paintNode(details);
  } catch (error) {
    setConnection(`node: ${error.message}`);
  }
}

function selectNode(path) {
  state.selected = path;
  if (state.snapshot) paintTree(state.snapshot);
  refreshNode();
}

// ---------------------------------------------------------------------------------------------
// showing a tick

function paintTimeline() {
  const scrubber = document.getElementById("scrubber");
  if (state.first !== null) scrubber.min = state.first;
  if (state.last !== null) scrubber.max = state.last;
  if (state.tick !== null) scrubber.value = state.tick;
  const runState = document.getElementById("run-state");
  if (state.run && state.run.finished) {
    runState.textContent = `finished: ${state.run.final_status || "?"}`;
    runState.className = `badge status-${state.run.final_status || "INVALID"}`;
  } else {
    runState.textContent = "running";
    runState.className = "badge status-RUNNING";
  }
  document.getElementById("play").textContent = state.mode === "paused" ? "play" : "pause";
  document.getElementById("latest").classList.toggle("active", state.mode === "live");
}

function show(snapshot) {
  const extra = snapshot.treebrain;
  state.snapshot = snapshot;
  const changedTick = state.tick !== extra.tick;
  state.tick = extra.tick;
  state.first = extra.first;
  state.last = Math.max(state.last ?? extra.last, extra.last);
  if (state.run) {
    state.run.finished = extra.finished;
    state.run.final_status = extra.final_status;
  }
  paintTree(snapshot);
  paintBlackboard(snapshot);
  paintCamera(extra.frame_tick);
  paintTimeline();
  document.getElementById("tick-label").textContent =
    `tick ${extra.tick} / ${state.last}  (+${extra.time_s.toFixed(2)} s, ${extra.tick_ms.toFixed(2)} ms)`;
  if (changedTick) refreshNode();
}

// The camera panel shows the newest frame recorded at or before the tick shown (robots with cameras,
// run with --view or --gif); it stays hidden for runs without frames.
function paintCamera(frameTick) {
  const panel = document.getElementById("camera-panel");
  panel.hidden = frameTick === null || frameTick === undefined;
  if (panel.hidden || state.frameTick === frameTick) return;
  state.frameTick = frameTick;
  document.getElementById("camera").src = `/api/frame?tick=${frameTick}`;
  document.getElementById("camera-label").textContent = `frame of tick ${frameTick}`;
}

async function showTick(tick) {
  state.pendingTick = tick;
  if (state.loading) return;
  state.loading = true;
  try {
    while (state.pendingTick !== null) {
      const wanted = state.pendingTick;
      state.pendingTick = null;
      show(await getJson(`/api/tree?tick=${wanted}`));
    }
  } catch (error) {
    setConnection(error.message);
  } finally {
    state.loading = false;
  }
}

// ---------------------------------------------------------------------------------------------
// modes: live (follow the newest tick), paused, playing (step through recorded ticks)

function setMode(mode) {
  state.mode = mode;
  if (state.playTimer !== null) {
    clearInterval(state.playTimer);
    state.playTimer = null;
  }
  if (mode === "playing") {
    const hz = state.run && state.run.hz ? state.run.hz : 10;
    state.playTimer = setInterval(playStep, Math.max(30, 1000 / hz));
  }
  paintTimeline();
}

function playStep() {
  if (state.tick === null || state.last === null) return;
  if (state.tick >= state.last) {
    if (state.run && !state.run.finished) setMode("live");
    else setMode("paused");
    return;
  }
  showTick(state.tick + 1);
}

function step(delta) {
  setMode("paused");
  if (state.tick === null) return;
  const target = Math.min(Math.max(state.tick + delta, state.first ?? 1), state.last ?? state.tick);
  showTick(target);
}

function togglePlay() {
  if (state.mode === "paused") setMode(state.tick !== null && state.tick >= (state.last ?? 0) ? "live" : "playing");
  else setMode("paused");
}

function goLive() {
  setMode("live");
  if (state.last !== null) showTick(state.last);
}

function paintMarks(marks) {
  const container = document.getElementById("marks");
  clear(container);
  if (state.first === null || state.last === null || state.last === state.first) return;
  const span = state.last - state.first;
  for (const [tick, kind] of marks) {
    const mark = el("span", { className: kind, title: `tick ${tick}: ${kind}` });
    mark.style.left = `${((tick - state.first) / span) * 100}%`;
    container.append(mark);
  }
}

async function refreshTimeline() {
  try {
    const timeline = await getJson("/api/timeline");
    state.first = timeline.first;
    state.last = timeline.last;
    state.run = timeline.run;
    paintMarks(timeline.marks);
    paintTimeline();
  } catch (error) {
    setConnection(error.message);
  }
}

function listen() {
  const source = new EventSource("/api/stream");
  source.addEventListener("tick", (event) => {
    const snapshot = JSON.parse(event.data);
    const extra = snapshot.treebrain;
    state.last = extra.last;
    state.first = extra.first;
    const wasFinished = state.run ? state.run.finished : false;
    if (state.run) {
      state.run.finished = extra.finished;
      state.run.final_status = extra.final_status;
    }
    if (state.mode === "live") show(snapshot);
    else paintTimeline();
    if (extra.finished && !wasFinished) refreshTimeline();
    setConnection("");
  });
  source.addEventListener("error", () => setConnection("reconnecting\u2026"));
}

async function start() {
  document.getElementById("step-back").addEventListener("click", () => step(-1));
  document.getElementById("step-forward").addEventListener("click", () => step(1));
  document.getElementById("play").addEventListener("click", togglePlay);
  document.getElementById("latest").addEventListener("click", goLive);
  document.getElementById("fit").addEventListener("click", (event) => {
    const fitted = document.getElementById("tree").classList.toggle("fit");
    event.target.classList.toggle("active", fitted);
  });
  document.getElementById("scrubber").addEventListener("input", (event) => {
    const tick = Number(event.target.value); // read first: pausing repaints the slider
    setMode("paused");
    showTick(tick);
  });
  document.addEventListener("keydown", (event) => {
    if (event.target instanceof HTMLInputElement && event.target.type !== "range") return;
    if (event.key === "ArrowLeft") { event.preventDefault(); step(-1); }
    else if (event.key === "ArrowRight") { event.preventDefault(); step(1); }
    else if (event.key === " ") { event.preventDefault(); togglePlay(); }
  });
  try {
    state.definition = await getJson("/api/definition");
  } catch (error) {
    setConnection(error.message);
    return;
  }
  const run = state.definition.run;
  document.getElementById("run-title").textContent = `${run.robot || "tree"} \u2014 ${run.source}`;
  document.title = `treebrain \u2014 ${run.robot || "tree"}`;
  drawTree(state.definition);
  await refreshTimeline();
  const startAt = new URLSearchParams(window.location.search).get("start");
  if (startAt === "first" && state.first !== null) {
    setMode("paused");
    await showTick(state.first);
  } else if (state.last !== null) {
    await showTick(state.last);
  }
  listen();
}

document.addEventListener("DOMContentLoaded", start);
