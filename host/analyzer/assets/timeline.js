// The Timeline tab, drawn from er_print's -timeline with d3: a lane per
// thread, time across in seconds since the experiment's start; each time
// bin with events a box coloured by the function that led it and shaded by
// its share of the busiest bin's first metric. Hovering gives the bin's
// figures; a click shows that thread's call tree in that bin; dragging
// across the time axis selects the bins under it as the time filter of
// every tab. Names go in as text.
"use strict";

const Timeline = (() => {
  const LANE = 24;
  const LEFT = 110;
  const WIDTH = 1200;
  const AXIS = 34;

  const number = (text) => parseFloat(text);

  // "time in A-B" over whole bins: from the first bin's start to the last
  // nanosecond before the next bin (the filter's bounds are inclusive).
  function timeFilter(from, to) {
    return `time in ${from.toFixed(3)}-${(to - 1e-9).toFixed(9)}`;
  }

  function draw(table, ctx) {
    const box = document.createElement("div");
    box.className = "timeline-box";
    const metric = table.metrics.find((m) => !m.spec.includes("%")) || table.metrics[0];
    if (!table.rows.length || !metric) {
      box.append(Render.el("p", "caption", "No events in the selection."));
      return box;
    }
    const lanes = [];
    const laneOf = new Map();
    for (const row of table.rows) {
      const key = row.experiment + "/" + row.thread;
      if (!laneOf.has(key)) {
        laneOf.set(key, lanes.length);
        lanes.push({ experiment: row.experiment, thread: row.thread, tid: row.tid });
      }
    }
    const binWidth = d3.min(table.rows, (r) => number(r.end) - number(r.start));
    const end = d3.max(table.rows, (r) => number(r.end));
    const busiest = d3.max(table.rows, (r) => r.values[metric.spec] || 0) || 1;
    const x = d3.scaleLinear().domain([0, end]).range([LEFT, LEFT + WIDTH]);
    // Colours for the functions that lead the most bins; the rest grey.
    const leads = d3.rollups(table.rows, (v) => v.length, (r) => r.name).sort((a, b) => b[1] - a[1]);
    const palette = d3.schemeTableau10;
    const colour = new Map(leads.slice(0, palette.length).map(([name], i) => [name, palette[i]]));
    const colourOf = (name) => colour.get(name) || "#9a9a9a";

    box.append(Render.el("p", "caption",
      `Each thread's ${metric.title} (${metric.unit}) by bins of ${binWidth.toFixed(3)} s, coloured by the function ` +
      "leading each bin; click a bin for its call tree, drag across the time axis to filter every tab to that time"));
    const height = AXIS + lanes.length * LANE;
    const svg = d3.select(box).append("svg").attr("class", "timeline").attr("viewBox", [0, 0, LEFT + WIDTH + 10, height])
      .attr("width", "100%").attr("data-metric", metric.spec).attr("data-bin", binWidth);
    svg.append("g").selectAll("text").data(lanes).join("text").attr("class", "lane-label")
      .attr("x", 4).attr("y", (l, i) => AXIS + i * LANE + LANE / 2 + 4)
      .text((l) => (lanes.some((o) => o.experiment !== l.experiment) ? `exp ${l.experiment} ` : "") + `thread ${l.thread}`);
    const bins = svg.append("g").selectAll("rect").data(table.rows).join("rect").attr("class", "bin")
      .attr("x", (r) => x(number(r.start)))
      .attr("y", (r) => AXIS + laneOf.get(r.experiment + "/" + r.thread) * LANE + 2)
      .attr("width", (r) => Math.max(1, x(number(r.end)) - x(number(r.start))))
      .attr("height", LANE - 4)
      .attr("fill", (r) => colourOf(r.name))
      .attr("fill-opacity", (r) => 0.2 + 0.8 * ((r.values[metric.spec] || 0) / busiest))
      .attr("data-name", (r) => r.name).attr("data-thread", (r) => r.thread).attr("data-experiment", (r) => r.experiment)
      .attr("data-start", (r) => r.start).attr("data-end", (r) => r.end).attr("data-events", (r) => r.events)
      .attr("data-value", (r) => r.values[metric.spec] || 0);
    bins.append("title").text((r) =>
      `${r.name}\nthread ${r.thread}, ${r.start}-${r.end} s\n${metric.title}: ` +
      `${Render.formatValue(r.values[metric.spec] || 0, metric.unit)} ${metric.unit}\nevents: ${r.events}`);
    bins.on("click", (event, r) => {
      svg.selectAll("rect.bin").classed("chosen", (o) => o === r);
      if (ctx.onBin) ctx.onBin({ thread: r.thread, name: r.name, filters: timeFilter(number(r.start), number(r.end)) });
    });
    // Dragging across the axis: the bins it covers become the time filter.
    const brush = d3.brushX().extent([[LEFT, 0], [LEFT + WIDTH, AXIS - 4]]).on("end", (event) => {
      if (!event.selection || !event.sourceEvent) return;
      const [a, b] = event.selection.map((p) => x.invert(p));
      const from = Math.max(0, Math.floor(a / binWidth + 1e-9) * binWidth);
      const to = Math.max(from + binWidth, Math.ceil(b / binWidth - 1e-9) * binWidth);
      if (ctx.onTimeRange) ctx.onTimeRange(timeFilter(from, to));
    });
    svg.append("g").attr("class", "brush").call(brush);
    // The axis over the strip it is dragged in, letting the drag through.
    svg.append("g").attr("class", "axis").attr("transform", `translate(0,${AXIS - 4})`)
      .call(d3.axisTop(x).ticks(10).tickFormat((t) => t + " s"));

    const legend = Render.el("ul", "timeline-legend");
    for (const [name, count] of leads.slice(0, palette.length)) {
      const item = Render.el("li", "", "");
      const swatch = Render.el("span", "swatch", "");
      swatch.style.background = colourOf(name);
      item.append(swatch, Render.el("span", "", `${name} (${count} bins)`));
      legend.append(item);
    }
    box.append(legend);
    const details = Render.el("div", "timeline-details", "");
    details.id = "timeline-details";
    box.append(details);
    return box;
  }

  return { draw, timeFilter };
})();
