// Bars for plugin views whose rows are things that took time (OpenMP
// parallel regions and tasks by construct, sync objects, files): each row
// a horizontal bar split into its parts (a region's work and its wait at
// the end), the view's own order, the first ROWS rows. Drawn with d3; each
// part carries data-name, data-part and data-value (seconds, as the view
// has them) and a tooltip. Names go in as text.
"use strict";

const PluginBars = (() => {
  const LEFT = 330;
  const BAR = 22;
  const WIDTH = 760;
  const ROWS = 40;

  // What each view's bars show: its table, the parts of a bar, and a title.
  const KINDS = {
    omp_preg: { title: "Thread time in each parallel region (seconds): work in its tasks, wait at its end barrier",
                parts: [["work", "work"], ["wait", "wait"]] },
    omp_task: { title: "Time in each explicit task construct (seconds)", parts: [["time", "time"]] },
    syncobjects: { title: "Wait time on each synchronization object (seconds)", parts: [["wait", "wait"]] },
    ioactivity: { title: "I/O time by file (seconds)",
                  parts: [["ioreadtime", "read"], ["iowritetime", "write"], ["ioothertime", "other"],
                          ["ioerrortime", "error"]] },
  };

  function draw(command, view) {
    const kind = KINDS[command];
    const table = ((view && view.tables) || []).find((t) => kind.parts.every(([spec]) => t.metrics.some((m) => m.spec === spec)));
    const box = document.createElement("div");
    box.className = "plugin-bars-box";
    if (!table || !table.rows.length) {
      box.append(Render.el("p", "caption", "Nothing to draw in the selection."));
      return box;
    }
    const rows = table.rows.slice(0, ROWS);
    const total = (r) => d3.sum(kind.parts, ([spec]) => r.values[spec] || 0);
    const x = d3.scaleLinear().domain([0, d3.max(rows, total) || 1e-9]).range([0, WIDTH]);
    const svg = d3.create("svg").attr("class", "plugin-bars").attr("data-view", command)
      .attr("viewBox", [0, 0, LEFT + WIDTH + 90, 44 + rows.length * BAR]).attr("width", "100%");
    svg.append("text").attr("class", "chart-title").attr("x", 4).attr("y", 14).text(kind.title);
    const legend = svg.append("g").attr("transform", "translate(4,24)");
    kind.parts.forEach(([spec, label], i) => {
      legend.append("rect").attr("class", "bar-part part-" + i).attr("x", i * 90).attr("y", 0).attr("width", 12).attr("height", 12);
      legend.append("text").attr("class", "lane-label").attr("x", i * 90 + 16).attr("y", 10).text(label);
    });
    const bar = svg.append("g").selectAll("g").data(rows).join("g")
      .attr("transform", (r, i) => `translate(0,${44 + i * BAR})`);
    bar.append("text").attr("class", "lane-label").attr("x", 4).attr("y", BAR / 2 + 4)
      .text((r) => (r.name.length > 52 ? r.name.slice(0, 51) + "\u2026" : r.name)).append("title").text((r) => r.name);
    bar.each(function (r) {
      let at = LEFT;
      kind.parts.forEach(([spec, label], i) => {
        const value = r.values[spec] || 0;
        const width = x(value);
        d3.select(this).append("rect").attr("class", "bar-part part-" + i).attr("x", at).attr("y", 3)
          .attr("width", width).attr("height", BAR - 6)
          .attr("data-name", r.name).attr("data-part", spec).attr("data-value", value)
          .append("title").text(`${r.name}\n${label}: ${Render.formatValue(value, "sec.")} s`);
        at += width;
      });
      d3.select(this).append("text").attr("class", "bar-value").attr("x", at + 4).attr("y", BAR / 2 + 4)
        .text(Render.formatValue(total(r), "sec."));
    });
    box.append(svg.node());
    if (table.rows.length > ROWS)
      box.append(Render.el("p", "caption", `The first ${ROWS} of ${table.rows.length} rows are drawn; the table lists all.`));
    return box;
  }

  return { draw, commands: Object.keys(KINDS) };
})();
