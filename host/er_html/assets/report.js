// The report's page: tabs, the metric picker, and each tab drawn from
// window.LUMEN_REPORT (data.js) when it is first shown.
"use strict";

(() => {
  const D = window.LUMEN_REPORT;
  const $ = id => document.getElementById(id);
  const drawn = {};
  let metric = 0;
  const graphs = {};

  function unitOf(m) { return D.metrics[m] ? D.metrics[m].unit : "count"; }
  function format(value) {
    const unit = unitOf(metric);
    if (unit === "nanoseconds") return (value / 1e9).toFixed(3) + " s";
    if (unit === "bytes") return value + " B";
    return String(value);
  }

  function overview() {
    const c = $("tab-overview");
    const total = (D.functions.rows || []).find(r => r.name === "<Total>");
    if (total) {
      c.appendChild(LumenTables.el("h2", {}, "Totals"));
      const totals = {};
      for (const m of D.functions.metrics) if (!m.spec.includes("%")) totals[m.title] = total.values[m.spec];
      c.appendChild(LumenTables.recordTable(totals));
    }
    if (D.warnings.length) {
      c.appendChild(LumenTables.el("h2", {}, "Not read, dropped or limited"));
      for (const w of D.warnings) c.appendChild(LumenTables.el("p", { class: "warning" }, w));
    }
    LumenTables.renderDocument(D.header, c, "Header");
    LumenTables.renderDocument(D.overview, c, "Data recorded");
    LumenTables.renderDocument(D.statistics, c, "Statistics");
    LumenTables.renderDocument(D.threads, c, "Threads");
    c.appendChild(LumenTables.el("p", { class: "info" }, D.generator));
  }

  function showCallers(name) {
    select("callers");
    LumenTables.callersView(D.callers_callees, $("callers-view"), name);
  }

  function flame(kind) {
    const compare = kind === "compare";
    const options = {
      stacks: compare ? D.compare.new_stacks : D.stacks,
      base: compare ? D.compare.base_stacks : undefined,
      frames: D.frames, metric, format,
      inverted: kind === "icicle",
      info: $(kind + "-info"), search: $(kind + "-search"), reset: $(kind + "-reset"),
    };
    if (graphs[kind]) {
      Object.assign(graphs[kind].options, options);
      graphs[kind].root = LumenFlame.buildTree(options.stacks, metric, options.base);
      graphs[kind].zoom = graphs[kind].root;
    } else {
      graphs[kind] = new LumenFlame.FlameGraph($(kind), options);
    }
    graphs[kind].render();
  }

  const draw = {
    overview,
    functions: () => LumenTables.functionTable(D.functions, $("function-table"), $("function-search"), showCallers),
    callers: () => LumenTables.callersView(D.callers_callees, $("callers-view"), null),
    flame: () => flame("flame"),
    icicle: () => flame("icicle"),
    timeline: () => {
      const t = new LumenTimeline.Timeline($("timeline"), $("timeline-legend"), $("timeline-info"), $("timeline-reset"), D.timeline);
      t.render();
    },
    source: () => LumenSource.init(D.sources, D.source_order, $("source-function"), $("source-view"), D.sources_left_out),
    compare: () => {
      $("compare-legend").textContent =
        `${D.compare.new} against ${D.compare.base}: widths are the larger of the two, red frames grew, blue shrank ` +
        `(a stack only ${D.compare.base} has is time removed, full blue).`;
      flame("compare");
    },
  };

  function select(tab) {
    for (const b of document.querySelectorAll("#tabs button")) b.classList.toggle("active", b.dataset.tab === tab);
    for (const s of document.querySelectorAll(".tab")) s.classList.toggle("active", s.id === "tab-" + tab);
    if (!drawn[tab]) {
      drawn[tab] = true;
      draw[tab]();
    }
    location.hash = tab;
  }

  document.title = "lumen report: " + (D.header && D.header.experiments ? D.header.experiments.map(e => e.experiment || e.path).join(", ") : "");
  $("title").textContent = document.title;
  D.metrics.forEach((m, i) => $("metric").appendChild(LumenTables.el("option", { value: i }, `${m.title} (${m.keyword})`)));
  $("metric").addEventListener("change", () => {
    metric = Number($("metric").value);
    for (const kind of Object.keys(graphs)) if (drawn[kind]) flame(kind);
  });
  if (D.compare) $("compare-button").hidden = false;
  for (const b of document.querySelectorAll("#tabs button")) b.addEventListener("click", () => select(b.dataset.tab));
  const wanted = location.hash.slice(1);
  select(draw[wanted] && (wanted !== "compare" || D.compare) ? wanted : "overview");
})();
