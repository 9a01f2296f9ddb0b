// The page: its state lives in the URL's hash (tab, function, and the
// settings er_print applies: metrics, sort, view mode, filters, compare),
// so a reload or a shared URL shows the same view. Each view is asked of
// the server as an er_print command and drawn by render.js; in a report
// er_html wrote, of the views data.js holds.
"use strict";

// er_html's export (data.js): {session, views: {command: answer}, about}.
const EXPORTED = window.LUMEN_EXPORT || null;

const SETTINGS = ["metrics", "sort", "viewmode", "filters", "compare", "threads", "experiments"];

// Each tab: the er_print commands it shows, from the state.
const BUILTIN_TABS = [
  { id: "overview", label: "Overview", commands: () => ["header", "overview"] },
  { id: "functions", label: "Functions", commands: () => ["functions"], clickNames: true },
  { id: "callers", label: "Callers-Callees", commands: (s) => ["csingle " + quoted(s.fn)], needsFunction: true },
  { id: "calltree", label: "Call Tree", commands: () => ["calltree"], icicle: true },
  { id: "source", label: "Source", commands: (s) => ["source " + quoted(s.fn)], needsFunction: true },
  { id: "disasm", label: "Disassembly", commands: (s) => ["disasm " + quoted(s.fn)], needsFunction: true },
  { id: "lines", label: "Lines", commands: () => ["lines"] },
  { id: "pcs", label: "PCs", commands: () => ["pcs"] },
  { id: "threads", label: "Threads", commands: () => ["thread_list"] },
  { id: "timeline", label: "Timeline", commands: () => ["timeline"], timeline: true },
  { id: "experiments", label: "Experiments", commands: () => ["exp_list"], drawing: () => experimentChooser(state()) },
];

// Plugin views drawn as well as tabulated, and their tabs' names.
const PLUGIN_DRAWINGS = {
  mpi_timeline: (view, views, ctx) => MpiTimeline.draw(view, ctx),
  heap_in_use: (view) => HeapInUse.draw(view),
};
for (const command of PluginBars.commands) PLUGIN_DRAWINGS[command] = (view) => PluginBars.draw(command, view);
const PLUGIN_TAB_LABELS = {
  leaks: "Leaks", allocs: "Allocations", heap: "Heap", heap_in_use: "Heap in Use", jallocs: "Java Allocations",
  syncobjects: "Sync Objects", ioactivity: "I/O Activity", iodetail: "I/O by Descriptor", iocallstack: "I/O Call Stacks",
  iostat: "I/O Statistics", omp_preg: "OpenMP Regions", omp_task: "OpenMP Tasks", omp_states: "OpenMP States",
  mpi_timeline: "MPI Timeline", mpi_ranks: "MPI Ranks", mpi_hosts: "MPI Hosts", mpi_messages: "MPI Messages",
  mpi_stats: "MPI Statistics",
};
const PLUGIN_CHARTS = [
  { id: "mpi-chart", label: "MPI Chart", commands: ["mpi_ranks", "mpi_messages", "mpi_stats"],
    draw: (views) => MpiChart.draw(views),
    help: "each rank's MPI time, the bytes each rank sent to each other, each MPI function's time, and the " +
      "messages sent by size [mpi]" },
];

let tabs = BUILTIN_TABS.slice();
let session = null;
let loading = 0;

// One word for er_print's command line, whatever it holds: double quotes
// around it, and a double quote inside given in single quotes.
function quoted(word) {
  return '"' + String(word).replace(/"/g, "\"'\"'\"") + '"';
}

function state() {
  const params = new URLSearchParams(location.hash.slice(1));
  // lanes: the page's own (the timeline's lanes), never sent to the server.
  const s = { tab: params.get("tab") || "overview", fn: params.get("fn") || "", lanes: params.get("lanes") || "" };
  for (const k of SETTINGS) s[k] = params.get(k) || "";
  return s;
}

function go(changes) {
  const s = Object.assign(state(), changes);
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(s)) if (v) params.set(k, v);
  const hash = "#" + params.toString();
  if (location.hash === hash) show();
  else location.hash = hash;
}

// A view from er_html's export: those it holds at its own settings.
function exported(path) {
  if (path === "api/session") return EXPORTED.session;
  const params = new URLSearchParams(path.slice(path.indexOf("?") + 1));
  const command = params.get("cmd");
  const changed = SETTINGS.filter((k) => params.has(k));
  const held = !changed.length && Object.prototype.hasOwnProperty.call(EXPORTED.views, command);
  if (held) {
    const answer = EXPORTED.views[command];
    if (answer.error) throw Object.assign(new Error(answer.error), answer);
    return answer;
  }
  const about = EXPORTED.about;
  const what = changed.length ? "other " + changed.join(" and ") : `'${command}'`;
  const sources = about.sources ? "" : " (source only with --sources)";
  throw new Error(`This report holds the views at er_html's settings, and those of its ${about.functions} ` +
                  `hottest functions${sources}; for ${what}, run: analyzer ${about.experiments.join(" ")}`);
}

async function ask(path) {
  if (EXPORTED) return exported(path);
  const response = await fetch(path, { credentials: "same-origin" });
  const body = await response.json();
  if (!response.ok) throw Object.assign(new Error(body.error || response.statusText), body);
  return body;
}

function viewURL(command, s) {
  const params = new URLSearchParams({ cmd: command });
  for (const k of SETTINGS) if (s[k]) params.set(k, s[k]);
  return "api/view?" + params.toString();
}

function drawTabs(s) {
  const nav = document.getElementById("tabs");
  nav.replaceChildren();
  for (const tab of tabs) {
    const button = Render.el("button", tab.id === s.tab ? "active" : "", tab.label);
    button.type = "button";
    button.dataset.tab = tab.id;
    if (tab.help) button.title = tab.help;
    button.addEventListener("click", () => go({ tab: tab.id }));
    nav.append(button);
  }
}

function fillControls(s) {
  document.getElementById("viewmode").value = s.viewmode || (session ? session.default_viewmode : "user");
  document.getElementById("metrics").value = s.metrics || (session ? session.default_metrics : "");
  document.getElementById("filters").value = s.filters;
  document.getElementById("threads").value = s.threads;
  document.getElementById("compare").value = s.compare || (session ? session.default_compare : "off");
  document.getElementById("function").value = s.fn;
}

function clearErrors() {
  for (const id of ["error-metrics", "error-filters", "error-threads", "error-other", "view-error"])
    document.getElementById(id).textContent = "";
  for (const id of ["metrics", "filters", "threads"]) document.getElementById(id).removeAttribute("aria-invalid");
}

function showError(error) {
  const where = { metrics: "metrics", filters: "filters", threads: "threads" }[error.setting];
  if (where) {
    document.getElementById("error-" + where).textContent = error.message;
    document.getElementById(where).setAttribute("aria-invalid", "true");
  } else if (error.setting) {
    document.getElementById("error-other").textContent = error.setting + ": " + error.message;
  } else {
    document.getElementById("view-error").textContent = error.message;
  }
}

// Which experiments every tab shows: a box per experiment, as -exp_list
// numbers them; the last one shown cannot be taken away.
function experimentChooser(s) {
  const box = Render.el("fieldset", "experiment-chooser", "");
  box.append(Render.el("legend", "", "Experiments shown in every tab"));
  const shown = s.experiments ? new Set(s.experiments.split(",")) : null;
  const paths = session ? session.experiments : [];
  paths.forEach((path, i) => {
    const id = String(i + 1);
    const label = Render.el("label", "", "");
    const check = document.createElement("input");
    check.type = "checkbox";
    check.value = id;
    check.checked = !shown || shown.has(id);
    check.addEventListener("change", () => {
      const chosen = [...box.querySelectorAll("input:checked")].map((c) => c.value);
      if (!chosen.length) return void (check.checked = true);
      go({ experiments: chosen.length === paths.length ? "" : chosen.join(",") });
    });
    label.append(check, Render.el("span", "", ` ${id}: ${path}`));
    box.append(label);
  });
  return box;
}

// The hottest function other than <Total>: where function tabs start.
async function hottestFunction(s) {
  const functions = await ask(viewURL("functions", s));
  const row = functions.view && functions.view.rows.find((r) => r.name !== "<Total>");
  return row ? row.name : "";
}

async function show() {
  const s = state();
  const tab = tabs.find((t) => t.id === s.tab) || tabs[0];
  drawTabs({ tab: tab.id });
  fillControls(s);
  clearErrors();
  document.getElementById("function-bar").classList.toggle("hidden", !tab.needsFunction);
  const ticket = ++loading;
  const status = document.getElementById("status");
  const target = document.getElementById("view");
  const notes = document.getElementById("notes");
  status.textContent = "loading\u2026";
  try {
    if (tab.needsFunction && !s.fn) {
      const fn = await hottestFunction(s);
      if (ticket !== loading) return;
      if (fn) return go({ fn });
    }
    // Zoomed in on few events, the timeline is those events alone.
    const zoomed = tab.timeline ? await fewEvents(s) : null;
    const events = zoomed && zoomed.drawn ? zoomed.events : null;
    if (ticket !== loading) return;
    const answers = [];
    try {
      for (const command of events ? [] : tab.commands(s)) answers.push(await ask(viewURL(command, s)));
    } catch (error) {
      // Bins cannot show a range that starts or ends inside one.
      if (zoomed) error.message += ` (the range holds ${zoomed.selected} events, more than the ${EVENTS_DRAWN} ` +
        "drawn one by one: drag a narrower range, or go back to the whole run)";
      throw error;
    }
    if (ticket !== loading) return;
    const ctx = {
      clickNames: tab.clickNames,
      sort: s.sort,
      onSort: (sort) => go({ sort }),
      onFunction: (fn) => go({ fn, tab: tab.needsFunction ? tab.id : "callers" }),
      onCode: (fn, where) => go({ fn, tab: where }),
      onThread: (thread) => go({ threads: thread, tab: "functions" }),
      onTimeRange: (filters) => go({ filters }),
      filters: s.filters,
      lanes: s.lanes,
      onLanes: (lanes) => go({ lanes }),
      onBin: (bin) => showBin(bin, s),
    };
    const parts = tab.timeline ? [Timeline.draw(events ? null : answers[0].view, ctx, events)] : answers.map((a) => Render.view(a.view, ctx));
    const icicle = tab.icicle && answers[0] && answers[0].view && answers[0].view.rows ? Icicle.draw(answers[0].view, ctx) : null;
    if (icicle) parts.unshift(icicle);
    if (tab.drawing && answers[0] && answers[0].view) parts.unshift(tab.drawing(answers[0].view, answers.map((a) => a.view), ctx));
    target.replaceChildren(...parts);
    target.dataset.tab = tab.id;
    notes.textContent = answers.map((a) => a.notes).join("");
    status.textContent = "";
  } catch (error) {
    if (ticket !== loading) return;
    target.replaceChildren();
    target.dataset.tab = tab.id;
    notes.textContent = "";
    status.textContent = "";
    showError(error);
  }
  document.body.dataset.loaded = String(ticket);
}

// Zoomed in (a time filter) on no more than this many events, the
// timeline draws them one by one; the whole run is drawn in bins.
const EVENTS_DRAWN = 2000;

// Under a time filter, the selection's events and how many there are
// (drawn: some and few enough to draw); null without one, or where none
// can be had (a report holds bins alone).
async function fewEvents(s) {
  if (!/\b(time|tstamp)\b/i.test(s.filters)) return null;
  let events;
  try {
    events = (await ask(viewURL("event_list " + EVENTS_DRAWN, s))).view;
  } catch (error) {
    return null;  // the timeline's own request says what is wrong
  }
  const selected = events.summary ? Number(events.summary.selected) : 0;
  return { events, selected, drawn: selected > 0 && selected <= EVENTS_DRAWN };
}

// A timeline bin's call tree: its thread's events in its time, under the
// page's other settings.
async function showBin(bin, s) {
  const details = document.getElementById("timeline-details");
  details.replaceChildren(Render.el("p", "caption", `thread ${bin.thread}, ${bin.filters}: loading\u2026`));
  details.dataset.thread = bin.thread;
  details.dataset.filters = bin.filters;
  delete details.dataset.loaded;
  try {
    const answer = await ask(viewURL("calltree", Object.assign({}, s, { threads: bin.thread, filters: bin.filters })));
    const title = Render.el("p", "caption", `Call tree of thread ${bin.thread} in ${bin.filters} (led by ${bin.name})`);
    details.replaceChildren(title, Render.view(answer.view, { onFunction: (fn) => go({ fn, tab: "callers" }) }));
  } catch (error) {
    details.replaceChildren(Render.el("p", "error", error.message));
  }
  details.dataset.loaded = "true";
}

// A report cannot change its settings: its controls are shown, not used.
function markExported() {
  for (const control of document.querySelectorAll("#controls input, #controls select, #controls button"))
    control.disabled = true;
  const note = Render.el("p", "export-note",
    "A report written by er_html: the views at its settings. The analyzer answers any other.");
  document.getElementById("controls").after(note);
}

async function start() {
  if (EXPORTED) markExported();
  try {
    session = await ask("api/session");
    // An alias of another view ("heapstat": the same as heap) needs no tab.
    for (const v of session.plugin_views.filter((v) => !v.help.startsWith("the same as ")))
      tabs.push({ id: "view-" + v.command, label: PLUGIN_TAB_LABELS[v.command] || v.command,
                  help: v.help + " [" + v.plugin + "]", commands: () => [v.command], drawing: PLUGIN_DRAWINGS[v.command] });
    // Charts over several of a plugin's views, where it offers them all.
    const offered = new Set(session.plugin_views.map((v) => v.command));
    for (const chart of PLUGIN_CHARTS)
      if (chart.commands.every((c) => offered.has(c)))
        tabs.push({ id: chart.id, label: chart.label, help: chart.help, commands: () => chart.commands,
                    drawing: (view, views) => chart.draw(views) });
  } catch (error) {
    showError(error);
  }
  document.getElementById("controls").addEventListener("submit", (event) => {
    event.preventDefault();
    const metrics = document.getElementById("metrics").value.trim();
    // A setting equal to the session's default stays out of the URL.
    const unlessDefault = (value, fallback) => (session && value === session[fallback] ? "" : value);
    go({
      viewmode: unlessDefault(document.getElementById("viewmode").value, "default_viewmode"),
      metrics: unlessDefault(metrics, "default_metrics"),
      filters: document.getElementById("filters").value.trim(),
      threads: document.getElementById("threads").value.trim(),
      compare: unlessDefault(document.getElementById("compare").value, "default_compare"),
    });
  });
  document.getElementById("function").addEventListener("change", (event) => go({ fn: event.target.value.trim() }));
  window.addEventListener("hashchange", show);
  show();
}

start();
