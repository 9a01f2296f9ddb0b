// The Timeline tab, drawn from er_print's -timeline with d3: a lane per
// thread, time across in seconds since the experiment's start; each time
// bin with events a box coloured by the function that led it and shaded by
// its share of the busiest bin's first metric. Hovering gives the bin's
// figures; a click shows that thread's call tree in that bin; dragging
// across the time axis selects the bins under it as the time filter of
// every tab. Once the selection holds few enough events (-event_list), they
// are drawn one by one instead, over the selection's time, in a lane per
// thread, CPU or experiment: a click on one shows its call stack and
// values, a drag zooms further in, and buttons move the range by half its
// width. Names go in as text.
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

  function draw(table, ctx, events) {
    const listed = events && events.tables && events.tables[0];
    if (listed && listed.rows.length) return drawEvents(events, listed, ctx);
    const box = document.createElement("div");
    box.className = "timeline-box";
    const metric = table.metrics.find((m) => !m.spec.includes("%")) || table.metrics[0];
    if (!table.rows.length || !metric) {
      box.append(Render.el("p", "caption", "No events in the selection."));
      return box;
    }
    const { lanes, index } = lanesOf(table.rows);
    const binWidth = d3.min(table.rows, (r) => number(r.end) - number(r.start));
    const end = d3.max(table.rows, (r) => number(r.end));
    const busiest = d3.max(table.rows, (r) => r.values[metric.spec] || 0) || 1;
    const x = d3.scaleLinear().domain([0, end]).range([LEFT, LEFT + WIDTH]);
    const colours = coloursOf(table.rows);

    box.append(Render.el("p", "caption",
      `Each thread's ${metric.title} (${metric.unit}) by bins of ${binWidth.toFixed(3)} s, coloured by the function ` +
      "leading each bin; click a bin for its call tree, drag across the time axis to filter every tab to that time"));
    const svg = laneChart(box, "timeline", lanes).attr("data-metric", metric.spec).attr("data-bin", binWidth);
    const bins = svg.append("g").selectAll("rect").data(table.rows).join("rect").attr("class", "bin")
      .attr("x", (r) => x(number(r.start)))
      .attr("y", (r) => AXIS + index(r) * LANE + 2)
      .attr("width", (r) => Math.max(1, x(number(r.end)) - x(number(r.start))))
      .attr("height", LANE - 4)
      .attr("fill", (r) => colours.of(r.name))
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

    box.append(legendOf(colours, "bins"));
    const details = Render.el("div", "timeline-details", "");
    details.id = "timeline-details";
    box.append(details);
    return box;
  }

  // What a lane holds: a thread (of an experiment), a CPU, or an experiment
  // (a process; an MPI job's rank).
  const LANES = {
    thread: { key: (r) => r.experiment + "/" + r.thread, order: (r) => [Number(r.experiment), Number(r.thread)],
              label: (r, several) => (several ? `exp ${r.experiment} ` : "") + `thread ${r.thread}` },
    cpu: { key: (r) => r.cpu, order: (r) => [Number(r.cpu)],
           label: (r) => (r.cpu === "-1" ? "no CPU" : `CPU ${r.cpu}`) },
    experiment: { key: (r) => r.experiment, order: (r) => [Number(r.experiment)], label: (r) => `experiment ${r.experiment}` },
  };

  // Lanes of `rows` by `by` (a LANES key), in order of their numbers.
  function lanesOf(rows, by = "thread") {
    const kind = LANES[by] || LANES.thread;
    const firsts = new Map();
    for (const row of rows) if (!firsts.has(kind.key(row))) firsts.set(kind.key(row), row);
    const several = new Set(rows.map((r) => r.experiment)).size > 1;
    const numbers = (a, b) => kind.order(a).reduce((c, v, i) => c || v - kind.order(b)[i], 0);
    const lanes = [...firsts.values()].sort(numbers).map((r) => ({ key: kind.key(r), label: kind.label(r, several) }));
    const laneOf = new Map(lanes.map((l, i) => [l.key, i]));
    return { lanes, index: (row) => laneOf.get(kind.key(row)) };
  }

  // The chart's svg in `box`, with a labelled lane for each of `lanes`.
  function laneChart(box, className, lanes) {
    const height = AXIS + lanes.length * LANE;
    const svg = d3.select(box).append("svg").attr("class", className).attr("viewBox", [0, 0, LEFT + WIDTH + 10, height])
      .attr("width", "100%");
    svg.append("g").selectAll("text").data(lanes).join("text").attr("class", "lane-label")
      .attr("x", 4).attr("y", (l, i) => AXIS + i * LANE + LANE / 2 + 4).text((l) => l.label);
    return svg;
  }

  // Colours for the functions that lead the most rows; the rest grey.
  function coloursOf(rows) {
    const leads = d3.rollups(rows, (v) => v.length, (r) => r.name).sort((a, b) => b[1] - a[1]);
    const palette = d3.schemeTableau10;
    const colour = new Map(leads.slice(0, palette.length).map(([name], i) => [name, palette[i]]));
    return { leads: leads.slice(0, palette.length), of: (name) => colour.get(name) || "#9a9a9a" };
  }

  function legendOf(colours, what) {
    const legend = Render.el("ul", "timeline-legend");
    for (const [name, count] of colours.leads) {
      const item = Render.el("li", "", "");
      const swatch = Render.el("span", "swatch", "");
      swatch.style.background = colours.of(name);
      item.append(swatch, Render.el("span", "", `${name} (${count} ${what})`));
      legend.append(item);
    }
    return legend;
  }

  // One event: where it ran, when, its values and its call stack, leaf first.
  function showEvent(row, index, metrics, details) {
    const title = `${row.name}: thread ${row.thread}` + (row.cpu !== "-1" ? `, CPU ${row.cpu}` : "") +
      `, at ${row.time} s` + (Number(row.span) > 0 ? `, over the ${row.span} s before` : "") + ` (${row.data})`;
    // The metrics shown that this event has a value of (those of other data are 0).
    const values = Render.el("table", "event-values", "");
    for (const m of metrics) {
      if (m.unit === "%" || !row.values[m.spec]) continue;
      const tr = document.createElement("tr");
      tr.append(Render.el("th", "", m.title), Render.el("td", "num", `${Render.formatValue(row.values[m.spec] || 0, m.unit)} ${m.unit}`));
      values.append(tr);
    }
    const stack = Render.el("ol", "event-stack", "");
    for (const frame of row.stack) stack.append(Render.el("li", "", `${frame.function} (${frame.load_object})`));
    details.replaceChildren(Render.el("p", "caption", title), values, Render.el("p", "caption", "Call stack, leaf first:"), stack);
    Object.assign(details.dataset, { event: String(index), tstamp: row.tstamp, thread: row.thread, experiment: row.experiment });
  }

  // A button moving a "time in A-B" filter by half its width (never before
  // the start); none for another filter.
  function panButton(label, direction, ctx) {
    const range = /^\s*time\s+in\s+([0-9.]+)\s*-\s*([0-9.]+)\s*$/i.exec(ctx.filters || "");
    const button = Render.el("button", "timeline-pan", direction < 0 ? "\u25c0 " + label : label + " \u25b6");
    button.type = "button";
    button.dataset.direction = String(direction);
    if (!range) {
      button.disabled = true;
      return button;
    }
    const [from, to] = [Number(range[1]), Number(range[2])];
    const step = Math.min((to - from) / 2, direction < 0 ? from : Infinity) * direction;
    button.disabled = step === 0;
    button.addEventListener("click", () => ctx.onTimeRange &&
      ctx.onTimeRange(`time in ${(from + step).toFixed(9)}-${(to + step).toFixed(9)}`));
    return button;
  }

  function drawEvents(events, listed, ctx) {
    const rows = listed.rows;
    const box = document.createElement("div");
    box.className = "timeline-box";
    const by = LANES[ctx.lanes] ? ctx.lanes : "thread";
    const { lanes, index } = lanesOf(rows, by);
    const begins = (r) => number(r.time) - number(r.span);
    let from = d3.min(rows, begins);
    let to = d3.max(rows, (r) => number(r.time));
    const pad = Math.max((to - from) * 0.02, 1e-6);
    from = Math.max(0, from - pad);
    to += pad;
    const x = d3.scaleLinear().domain([from, to]).range([LEFT, LEFT + WIDTH]);
    const colours = coloursOf(rows);
    const selected = events.summary ? events.summary.selected : rows.length;
    box.append(Render.el("p", "caption",
      `${rows.length} of the ${selected} events selected, one by one: each from the start of what it stands for ` +
      "(a sample's interval, a traced call's duration) to its time, coloured by its leaf function; click one for " +
      "its call stack and values, drag across the time axis to zoom in"));
    const whole = Render.el("button", "timeline-whole", "Whole run");
    whole.type = "button";
    whole.addEventListener("click", () => ctx.onTimeRange && ctx.onTimeRange(""));
    const choice = Render.el("label", "timeline-lanes", "Lanes: ");
    const select = document.createElement("select");
    select.id = "timeline-lanes";
    for (const [value, text] of [["thread", "threads"], ["cpu", "CPUs"], ["experiment", "experiments (processes, ranks)"]]) {
      const option = Render.el("option", "", text);
      option.value = value;
      option.selected = value === by;
      select.append(option);
    }
    select.addEventListener("change", () => ctx.onLanes && ctx.onLanes(select.value === "thread" ? "" : select.value));
    choice.append(select);
    box.append(whole, panButton("earlier", -1, ctx), panButton("later", 1, ctx), choice);
    const svg = laneChart(box, "timeline events", lanes).attr("data-events", rows.length).attr("data-selected", selected);
    const details = Render.el("div", "timeline-details", "");
    details.id = "timeline-details";
    const marks = svg.append("g").selectAll("rect").data(rows).join("rect").attr("class", "event")
      .attr("x", (r) => Math.min(x(begins(r)), x(number(r.time)) - 2))
      .attr("y", (r) => AXIS + index(r) * LANE + 2)
      .attr("width", (r) => Math.max(2, x(number(r.time)) - x(begins(r))))
      .attr("height", LANE - 4)
      .attr("fill", (r) => colours.of(r.name))
      .attr("data-index", (r, i) => i).attr("data-name", (r) => r.name).attr("data-thread", (r) => r.thread)
      .attr("data-experiment", (r) => r.experiment).attr("data-tstamp", (r) => r.tstamp).attr("data-time", (r) => r.time);
    marks.append("title").text((r) => `${r.name}\nthread ${r.thread}, at ${r.time} s`);
    marks.on("click", (event, r) => {
      marks.classed("chosen", (o) => o === r);
      showEvent(r, rows.indexOf(r), listed.metrics, details);
    });
    const brush = d3.brushX().extent([[LEFT, 0], [LEFT + WIDTH, AXIS - 4]]).on("end", (event) => {
      if (!event.selection || !event.sourceEvent) return;
      const [a, b] = event.selection.map((p) => x.invert(p));
      if (ctx.onTimeRange) ctx.onTimeRange(`time in ${Math.max(0, a).toFixed(9)}-${b.toFixed(9)}`);
    });
    svg.append("g").attr("class", "brush").call(brush);
    svg.append("g").attr("class", "axis").attr("transform", `translate(0,${AXIS - 4})`)
      .call(d3.axisTop(x).ticks(10).tickFormat((t) => t + " s"));
    box.append(legendOf(colours, "events"), details);
    return box;
  }

  return { draw, timeFilter };
})();
